// Reads analysis profiles (config/profiles/README.md is the user-facing key reference).
//
// A profile is applied on top of a Profile that already holds the defaults, or the parent's
// values when the file `extends:` another one. That one mechanism gives the override rules:
// scalars replace, sections (shapes, inplace, ...) replace key by key, `symbols` merge per symbol,
// `plugins` are appended after the parent's and `ops` merge per (domain, op_type, since_version).
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <system_error>

#include "cctx/errors.hpp"
#include "cctx/host.hpp"
#include "cctx/profile.hpp"
#include "dtype_names.hpp"
#include "ops_section.hpp"
#include "yaml_checks.hpp"

namespace cctx {
namespace fs = std::filesystem;

namespace {

using detail::Checker;
using detail::describe;
using detail::Entry;
using detail::Field;
using detail::quote;

constexpr std::string_view kTopKeys[] = {
    "profile", "extends", "plugins", "plugin_path", "ops",         "symbols",      "shapes", "tags",
    "inplace", "memory",  "scratch", "report",      "expressions", "decision_log", "limits"};
constexpr std::string_view kPluginKeys[] = {"name", "path", "options", "override", "toolchain"};
constexpr std::string_view kToolchainPolicies[] = {"lenient", "strict"};
constexpr std::string_view kShapesKeys[] = {"strict", "fallback"};
constexpr std::string_view kShapeFallbacks[] = {"onnx_schema", "declared", "unknown_rank"};
constexpr std::string_view kEnabledKeys[] = {"enabled"};
constexpr std::string_view kInplaceKeys[] = {"enabled", "allow_input_overwrite", "fallback"};
constexpr std::string_view kInplaceFallbacks[] = {"none", "structural"};
constexpr std::string_view kMemoryKeys[] = {"enabled",
                                            "buffer_plan",
                                            "execution_order",
                                            "constants_as_initializers",
                                            "fold_shape_constants",
                                            "session_overhead_bytes",
                                            "session_overhead_per_node_bytes",
                                            "output_copies",
                                            "run_overhead_bytes",
                                            "run_overhead_per_value_bytes",
                                            "run_overhead_per_node_bytes",
                                            "headroom_bytes",
                                            "headroom_percent",
                                            "threads",
                                            "arena"};
constexpr std::string_view kThreadsKeys[] = {"default", "session_bytes_per_thread"};
constexpr std::string_view kArenaKeys[] = {"enabled",
                                           "initial_region_bytes",
                                           "max_doubling_bytes",
                                           "rounding_bytes",
                                           "max_dead_bytes_per_chunk",
                                           "memory_pattern",
                                           "initializers",
                                           "prepacked"};
constexpr std::string_view kBufferPlans[] = {"seed",
                                             "free_list"};  // pipeline/buffer_plan.cpp makes them
constexpr std::string_view kExecutionOrders[] = {"file", "reverse_dfs"};
constexpr std::string_view kReportKeys[] = {"evaluate", "let"};
constexpr std::string_view kExpressionKeys[] = {"max_weight", "max_terms", "max_degree",
                                                "max_args"};
constexpr std::string_view kLimitKeys[] = {
    "file_bytes", "nodes", "rank", "subgraph_depth", "expression_chars", "assignments"};
// Spellings of an unbounded upper end besides null: YAML 1.2's .inf family and plain "inf".
constexpr std::string_view kInfWords[] = {"inf",  "Inf",  "INF",  "+inf",  "+Inf",  "+INF",
                                          ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"};

/// One file of the `extends` chain: its identity for cycle detection and its name for messages.
struct Link {
  fs::path identity;
  std::string display;
};

bool is_one_of(std::string_view word, std::span<const std::string_view> words) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// The same file reached through different spellings (./a.yaml, ../x/a.yaml, a symlink) must be
// recognised as the same link of the chain.
fs::path identity_of(const fs::path& file) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(file, ec);
  return ec ? file.lexically_normal() : canonical;
}

fs::path absolute_of(const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  return (ec ? path : absolute).lexically_normal();
}

// Reads a whole file. Returns the problem ("no such file", ...) or an empty string on success.
// A FIFO is read too (`--profile <(...)`, `/dev/stdin` from a pipe), but never waited on for
// long: a named pipe that nothing writes to is refused after kPipeWaitMs instead of blocking.
std::string read_text(const fs::path& path, std::string& text) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) return "no such file";
  if (ec) return "cannot access (" + ec.message() + ")";
  if (fs::is_directory(st)) return "is a directory, not a profile file";
  if (fs::is_socket(st)) return "is a socket, not a profile file";
  if (fs::is_block_file(st)) return "is a block device, not a profile file";
  const bool pipe = fs::is_fifo(st);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (pipe ? O_NONBLOCK : 0));
  if (fd < 0) return std::string("cannot open (") + std::strerror(errno) + ")";
  struct Close {
    int fd;
    ~Close() { ::close(fd); }
  } close_at_end{fd};
  // Bounded: `extends: /dev/zero` (or a pipe) must not read forever.
  constexpr std::size_t kMaxProfileBytes = std::size_t{16} << 20;
  constexpr int kPipeWaitMs = 5000;
  text.clear();
  char chunk[1 << 14];
  bool written = false;  // a FIFO has had a writer: its end of data is a real end
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got > 0) {
      written = true;
      text.append(chunk, static_cast<std::size_t>(got));
      if (text.size() > kMaxProfileBytes) return "larger than 16 MiB, not a profile";
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && errno != EAGAIN) return std::string("read error (") + std::strerror(errno) + ")";
    // A non-blocking FIFO reads 0 both at its end and while no writer has opened it yet.
    if (got == 0 && (!pipe || written)) return {};
    pollfd wait{fd, POLLIN, 0};
    const int ready = ::poll(&wait, 1, kPipeWaitMs);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      return "is a FIFO that nothing wrote to in " + std::to_string(kPipeWaitMs / 1000) + " s";
    }
    if ((wait.revents & POLLIN) == 0) return {};  // the writer came and went without writing
  }
}

// Plugin names become file names (lib<name>.so); anything path-like belongs in `path`.
bool is_plugin_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

// `${VAR}` unquoted inside [ ] or { } is a YAML syntax error ('{' opens a flow map), and the
// parser's message does not say so: point at the fix when the failing line has one.
std::string syntax_hint(const std::string& text, const YAML::Mark& mark) {
  if (mark.is_null()) return {};
  std::size_t start = 0;
  for (int line = 0; line < mark.line && start != std::string::npos; ++line) {
    start = text.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  if (start == std::string::npos) return {};
  const std::string_view line =
      std::string_view(text).substr(start, text.find('\n', start) - start);
  if (line.find("${") != std::string_view::npos) {
    return " (inside [ ] or { }, quote values that contain ${...})";
  }
  // `shape: [in0[0], 4]`: a declarative op's reference opens a nested flow list.
  for (std::size_t at = line.find("in"); at != std::string_view::npos;
       at = line.find("in", at + 1)) {
    std::size_t end = at + 2;
    while (end < line.size() && line[end] >= '0' && line[end] <= '9') ++end;
    if (end > at + 2 && end < line.size() && line[end] == '[') {
      return " (inside [ ] or { }, quote expressions that use [ ], e.g. \"in0[1]\")";
    }
  }
  return {};
}

std::string bound_text(const YAML::Node& node) {
  return node.IsNull() ? "null" : node.IsScalar() ? node.Scalar() : describe(node);
}

/// Applies the text of one profile source onto a Profile.
class ProfileReader {
 public:
  ProfileReader(std::string source, fs::path base_dir, std::vector<Link>& chain)
      : check_(std::move(source)), base_dir_(std::move(base_dir)), chain_(chain) {}

  void apply(const std::string& text, Profile& profile);

 private:
  void apply_root(const YAML::Node& root, Profile& profile) const;
  void apply_entry(const Entry& entry, Profile& profile) const;
  void apply_extends(const Field& field, Profile& profile) const;
  void apply_shapes(const Field& field, Profile::Shapes& shapes) const;
  void apply_inplace(const Field& field, Profile::Inplace& inplace) const;
  void apply_arena(const Field& field, Profile::Memory::Arena& arena) const;
  void apply_threads(const Field& field, Profile::Memory::Threads& threads) const;
  Profile::Memory::Arena::Prepacked read_prepacked(const Field& item) const;
  bool read_enabled(const Field& field, std::string_view section, bool current) const;
  void apply_expressions(const Field& field, ExprLimits& limits) const;
  void apply_limits(const Field& field, Limits& limits) const;
  PluginSpec read_plugin(const Field& item) const;
  Interval read_bounds(const Field& field) const;
  std::vector<std::string> read_fallback(const Field& field) const;
  std::vector<Assignment> read_evaluate(const Field& field) const;
  std::vector<std::pair<std::string, std::string>> read_let(const Field& field) const;
  void check_symbol_name(const Entry& entry, std::string_view context) const;
  fs::path read_path(const Field& field, std::string_view expectation) const;

  Checker check_;
  fs::path base_dir_;
  std::vector<Link>& chain_;
  std::string_view text_;  // the text being applied, for columns inside `ops` expressions
};

// Applies one file as a link of the `extends` chain.
void apply_file(const fs::path& file, const std::string& display, const std::string& text,
                std::vector<Link>& chain, Profile& profile) {
  chain.push_back(Link{identity_of(file), display});
  ProfileReader(display, absolute_of(file).parent_path(), chain).apply(text, profile);
  chain.pop_back();
}

// A second document starts at a '---' line that follows content; returns the mark of its first
// content (null when there is none). Found by scanning the text because yaml-cpp 0.7's LoadAll
// loops forever on some malformed input (fuzz_profile found one): only Load is used.
YAML::Mark second_document(const std::string& text) {
  bool seen_content = false, after_marker = false;
  int line = 0;
  for (std::size_t start = 0; start <= text.size(); ++line) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view row = std::string_view(text).substr(start, end - start);
    start = end + 1;
    if (row.substr(0, 3) == "---" && (row.size() == 3 || row[3] == ' ' || row[3] == '\t')) {
      if (seen_content) after_marker = true;
      row.remove_prefix(3);
      if (!after_marker) continue;
    }
    const std::size_t first = row.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || row[first] == '#' || row.substr(0, 3) == "...") continue;
    if (after_marker) {
      YAML::Mark mark = YAML::Mark::null_mark();
      mark.pos = 0;
      mark.line = line;
      mark.column = static_cast<int>(first);
      return mark;
    }
    if (row[0] != '%') seen_content = true;
  }
  return YAML::Mark::null_mark();
}

void ProfileReader::apply(const std::string& text, Profile& profile) {
  text_ = text;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    check_.fail(e.mark, "YAML syntax error: " + e.msg + syntax_hint(text, e.mark));
  }
  if (const YAML::Mark second = second_document(text); !second.is_null()) {
    check_.fail(second, "a profile is a single YAML document; a second one starts here");
  }
  try {
    apply_root(root, profile);
  } catch (const YAML::Exception& e) {
    // Not expected (every access is checked first), but a yaml-cpp exception must not escape.
    check_.fail(e.mark, e.msg);
  }
}

void ProfileReader::apply_root(const YAML::Node& root, Profile& profile) const {
  if (root.IsNull()) return;  // empty or comments only: all defaults
  if (!root.IsMap()) {
    check_.fail(root.Mark(),
                "the top level of a profile must be a map of keys, got " +
                    // Not the text itself: a file named by mistake (`extends: /etc/shadow`)
                    // must not have its first line echoed into a log.
                    (root.IsScalar() ? std::string("text (is this a profile?)") : describe(root)));
  }
  const std::vector<Entry> entries = check_.entries(detail::root_field(root), "profile", kTopKeys);
  // The parent goes first wherever `extends` is written, so that every other key overrides it.
  for (const Entry& entry : entries) {
    if (entry.key == "extends") apply_extends(entry.value, profile);
  }
  for (const Entry& entry : entries) apply_entry(entry, profile);
}

void ProfileReader::apply_entry(const Entry& entry, Profile& profile) const {
  const std::string& key = entry.key;
  const Field& value = entry.value;
  if (key == "profile") {
    profile.name = check_.non_empty(value, "a non-empty string");
  } else if (key == "plugins") {
    for (const Field& item : check_.items(value, "a list of plugin entries")) {
      profile.plugins.push_back(read_plugin(item));
    }
  } else if (key == "ops") {
    detail::merge_ops(profile.ops, detail::read_ops(check_, value, text_));
  } else if (key == "plugin_path") {
    profile.plugin_path.clear();  // a list replaces the parent's
    for (const Field& item : check_.items(value, "a list of folders")) {
      profile.plugin_path.push_back(read_path(item, "a folder path"));
    }
  } else if (key == "symbols") {
    for (const Entry& symbol : check_.entries(value, "symbols", {})) {
      check_symbol_name(symbol, "symbols");
      profile.symbols.insert_or_assign(symbol.key, read_bounds(symbol.value));
    }
  } else if (key == "shapes") {
    apply_shapes(value, profile.shapes);
  } else if (key == "tags") {
    profile.tags.enabled = read_enabled(value, "tags", profile.tags.enabled);
  } else if (key == "inplace") {
    apply_inplace(value, profile.inplace);
  } else if (key == "memory") {
    for (const Entry& e : check_.entries(value, "memory", kMemoryKeys)) {
      if (e.key == "enabled") {
        profile.memory.enabled = check_.boolean(e.value);
      } else if (e.key == "constants_as_initializers") {
        profile.memory.constants_as_initializers = check_.boolean(e.value);
      } else if (e.key == "fold_shape_constants") {
        profile.memory.fold_shape_constants = check_.boolean(e.value);
      } else if (e.key == "headroom_bytes") {
        profile.memory.headroom_bytes = check_.integer(e.value, 0, std::int64_t{1} << 50);
      } else if (e.key == "headroom_percent") {
        profile.memory.headroom_percent = check_.integer(e.value, 0, 100);
      } else if (e.key == "output_copies") {
        profile.memory.output_copies = check_.integer(e.value, 0, 16);
      } else if (e.key == "run_overhead_bytes") {
        profile.memory.run_overhead_bytes = check_.integer(e.value, 0, std::int64_t{1} << 40);
      } else if (e.key == "run_overhead_per_value_bytes") {
        profile.memory.run_overhead_per_value_bytes = check_.integer(e.value, 0, 1 << 20);
      } else if (e.key == "run_overhead_per_node_bytes") {
        profile.memory.run_overhead_per_node_bytes = check_.integer(e.value, 0, 1 << 20);
      } else if (e.key == "session_overhead_per_node_bytes") {
        profile.memory.session_overhead_per_node_bytes = check_.integer(e.value, 0, 1 << 30);
      } else if (e.key == "session_overhead_bytes") {
        profile.memory.session_overhead_bytes = check_.integer(e.value, 0, std::int64_t{1} << 50);
      } else if (e.key == "arena") {
        apply_arena(e.value, profile.memory.arena);
      } else if (e.key == "threads") {
        apply_threads(e.value, profile.memory.threads);
      } else if (e.key == "execution_order") {
        profile.memory.execution_order = std::string(check_.one_of(e.value, kExecutionOrders));
      } else {
        profile.memory.buffer_plan = std::string(check_.one_of(e.value, kBufferPlans));
      }
    }
  } else if (key == "scratch") {
    profile.scratch.enabled = read_enabled(value, "scratch", profile.scratch.enabled);
  } else if (key == "report") {
    for (const Entry& e : check_.entries(value, "report", kReportKeys)) {
      if (e.key == "let") {
        profile.report.let = read_let(e.value);
      } else {
        profile.report.evaluate = read_evaluate(e.value);
      }
    }
  } else if (key == "expressions") {
    apply_expressions(value, profile.expressions);
  } else if (key == "limits") {
    apply_limits(value, profile.limits);
  } else if (key == "decision_log") {
    profile.decision_log = check_.boolean(value);
  }
  // "extends" was applied first, by apply_root.
}

void ProfileReader::apply_extends(const Field& field, Profile& profile) const {
  fs::path file = read_path(field, "a profile file path");
  // `extends: default`: a bare name with no such file next to this profile is the shipped one.
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    if (fs::path shipped = Host::shipped_profile(field.node.Scalar()); !shipped.empty()) {
      file = std::move(shipped);
    }
  }
  const std::string display = file.string();
  const fs::path identity = identity_of(file);
  for (std::size_t i = 0; i < chain_.size(); ++i) {
    if (chain_[i].identity != identity) continue;
    std::string cycle;
    for (std::size_t j = i; j < chain_.size(); ++j) cycle += chain_[j].display + " -> ";
    check_.fail(field.mark(), "'extends' cycle: " + cycle + display);
  }
  std::string text;
  if (const std::string problem = read_text(file, text); !problem.empty()) {
    check_.fail(field.mark(), "'extends': " + display + ": " + problem);
  }
  apply_file(file, display, text, chain_, profile);
}

void ProfileReader::apply_shapes(const Field& field, Profile::Shapes& shapes) const {
  for (const Entry& e : check_.entries(field, "shapes", kShapesKeys)) {
    if (e.key == "strict") {
      shapes.strict = check_.boolean(e.value);
    } else {
      shapes.fallback = read_fallback(e.value);
    }
  }
}

void ProfileReader::apply_inplace(const Field& field, Profile::Inplace& inplace) const {
  for (const Entry& e : check_.entries(field, "inplace", kInplaceKeys)) {
    if (e.key == "enabled") {
      inplace.enabled = check_.boolean(e.value);
    } else if (e.key == "allow_input_overwrite") {
      inplace.allow_input_overwrite = check_.boolean(e.value);
    } else {
      inplace.fallback = check_.one_of(e.value, kInplaceFallbacks) == "structural"
                             ? InplaceFallback::kStructural
                             : InplaceFallback::kNone;
    }
  }
}

// One item of memory.arena.prepacked: `[domain:]Op:input [K=type ...] [temporary]`.
Profile::Memory::Arena::Prepacked ProfileReader::read_prepacked(const Field& item) const {
  const std::string text =
      check_.non_empty(item, "'[domain:]Op:input [K=type ...] [attr=N ...] [temporary]'");
  auto refuse = [&](const std::string& why) {
    check_.fail(item.mark(),
                "'memory.arena.prepacked' items are '[domain:]Op:input [K=type ...] [attr=N "
                "...] [temporary]' (input indices from 0, ONNX element types such as uint8, "
                "integer attributes): " +
                    why + " in '" + text + "'");
  };
  auto index = [&](const std::string& digits) {
    std::int64_t k = -1;
    bool overflow = false;
    if (!detail::parse_integer(digits, k, overflow) || k < 0 || k > 1024)
      refuse("'" + digits + "' is no input index");
    return static_cast<std::int32_t>(k);
  };
  std::vector<std::string> words;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    if (end > at) words.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  const std::string& head = words.front();
  const std::size_t colon = head.rfind(':');
  if (colon == std::string::npos || colon == 0) refuse("no ':input'");
  Profile::Memory::Arena::Prepacked packed;
  const std::string op = head.substr(0, colon);
  const std::size_t domain_end = op.rfind(':');
  packed.op_type = domain_end == std::string::npos ? op : op.substr(domain_end + 1);
  if (domain_end != std::string::npos && op.substr(0, domain_end) != "ai.onnx")
    packed.domain = op.substr(0, domain_end);
  packed.input = index(head.substr(colon + 1));
  for (std::size_t w = 1; w < words.size(); ++w) {
    if (words[w] == "temporary") {
      packed.temporary = true;
      continue;
    }
    const std::size_t eq = words[w].find('=');
    if (eq == std::string::npos || eq == 0) refuse("'" + words[w] + "' is not 'K=type'");
    if (std::isalpha(static_cast<unsigned char>(words[w][0])) != 0 || words[w][0] == '_') {
      // attr=N: an integer attribute of the node.
      std::int64_t value = 0;
      bool overflow = false;
      const std::string digits = words[w].substr(eq + 1);
      if (!detail::parse_integer(digits, value, overflow) || overflow)
        refuse("'" + digits + "' is no integer");
      packed.attributes.emplace_back(words[w].substr(0, eq), value);
      continue;
    }
    const std::string type = words[w].substr(eq + 1);
    const std::optional<std::int32_t> code = detail::dtype_by_name(type);
    if (!code) refuse("'" + type + "' is no element type");
    packed.types.emplace_back(index(words[w].substr(0, eq)), *code);
  }
  return packed;
}

// `arena:` turns the arena on; `enabled: false` turns off one an extended profile set.
void ProfileReader::apply_arena(const Field& field, Profile::Memory::Arena& arena) const {
  constexpr std::int64_t kMaxRegion = std::int64_t{1} << 50;
  arena.enabled = true;
  for (const Entry& e : check_.entries(field, "memory.arena", kArenaKeys)) {
    if (e.key == "enabled") {
      arena.enabled = check_.boolean(e.value);
    } else if (e.key == "initial_region_bytes") {
      arena.initial_region_bytes = check_.integer(e.value, 1, kMaxRegion);
    } else if (e.key == "max_doubling_bytes") {
      arena.max_doubling_bytes = check_.integer(e.value, 1, kMaxRegion);
    } else if (e.key == "rounding_bytes") {
      arena.rounding_bytes = check_.integer(e.value, 1, std::int64_t{1} << 20);
    } else if (e.key == "max_dead_bytes_per_chunk") {
      arena.max_dead_bytes_per_chunk = check_.integer(e.value, 0, kMaxRegion);
    } else if (e.key == "memory_pattern") {
      arena.memory_pattern = check_.boolean(e.value);
    } else if (e.key == "prepacked") {
      arena.prepacked.clear();
      for (const Field& item :
           check_.items(e.value, "a list of '[domain:]Op:input [K=type ...] [temporary]'")) {
        arena.prepacked.push_back(read_prepacked(item));
      }
    } else {
      arena.initializers = check_.boolean(e.value);
    }
  }
}

// `threads:` declares the runtime parameter; `default: auto` is this machine's physical cores.
void ProfileReader::apply_threads(const Field& field, Profile::Memory::Threads& threads) const {
  threads.declared = true;
  for (const Entry& e : check_.entries(field, "memory.threads", kThreadsKeys)) {
    if (e.key == "default") {
      threads.default_threads = check_.scalar(e.value, "auto or a number of threads") == "auto"
                                    ? 0
                                    : check_.integer(e.value, 1, 4096);
    } else {
      threads.session_bytes_per_thread = check_.integer(e.value, 0, std::int64_t{1} << 30);
    }
  }
}

bool ProfileReader::read_enabled(const Field& field, std::string_view section, bool current) const {
  for (const Entry& e : check_.entries(field, section, kEnabledKeys)) {
    current = check_.boolean(e.value);
  }
  return current;
}

void ProfileReader::apply_expressions(const Field& field, ExprLimits& limits) const {
  constexpr std::int64_t kMax = std::numeric_limits<std::uint32_t>::max();
  for (const Entry& e : check_.entries(field, "expressions", kExpressionKeys)) {
    const auto value = static_cast<std::uint32_t>(check_.integer(e.value, 1, kMax));
    if (e.key == "max_weight") {
      limits.max_weight = value;
    } else if (e.key == "max_terms") {
      limits.max_terms = value;
    } else if (e.key == "max_degree") {
      limits.max_degree = value;
    } else {
      limits.max_args = value;
    }
  }
}

void ProfileReader::apply_limits(const Field& field, Limits& limits) const {
  for (const Entry& e : check_.entries(field, "limits", kLimitKeys)) {
    if (e.key == "file_bytes") {
      limits.file_bytes = check_.integer(e.value, 1, kMaxFileBytes);
    } else if (e.key == "nodes") {
      limits.nodes = check_.integer(e.value, 1);
    } else if (e.key == "rank") {
      limits.rank = check_.integer(e.value, 0);
    } else if (e.key == "subgraph_depth") {
      limits.subgraph_depth = check_.integer(e.value, 0, kMaxSubgraphDepth);
    } else if (e.key == "assignments") {
      limits.assignments = check_.integer(e.value, 1);
    } else {
      limits.expression_chars = check_.integer(e.value, 1);
    }
  }
}

PluginSpec ProfileReader::read_plugin(const Field& item) const {
  if (!item.node.IsMap()) {
    check_.fail(item.mark(), "'" + item.name + "' must be a map with 'name' or 'path', got " +
                                 describe(item.node));
  }
  const std::vector<Entry> entries = check_.entries(item, item.name, kPluginKeys);
  // Decide name-or-path before reading values: "both"/"neither" is the more basic mistake.
  const auto has = [&](std::string_view key) {
    return std::any_of(entries.begin(), entries.end(),
                       [&](const Entry& e) { return e.key == key; });
  };
  if (has("name") && has("path")) {
    check_.fail(item.mark(), "'" + item.name + "' sets both 'name' and 'path'; set exactly one");
  }
  if (!has("name") && !has("path")) {
    check_.fail(item.mark(), "'" + item.name +
                                 "' sets neither 'name' nor 'path'; set exactly one (name: a "
                                 "plugin found in plugin_path, path: a library file)");
  }
  PluginSpec spec;
  spec.where = detail::location(check_.source(), item.mark());
  for (const Entry& e : entries) {
    if (e.key == "name") {
      spec.name = check_.scalar(e.value, "a plugin name");
      if (!is_plugin_name(spec.name)) {
        check_.fail(e.value.mark(), "'" + e.value.name +
                                        "' must be a plugin name (letters, digits, '_', '-', "
                                        "'.'; use 'path' for a file), got " +
                                        describe(e.value.node));
      }
    } else if (e.key == "path") {
      spec.path = read_path(e.value, "a library file path");
    } else if (e.key == "options") {
      for (const Entry& option : check_.entries(e.value, e.value.name, {})) {
        // Plugins receive text: numbers and booleans are handed over as written.
        spec.options[option.key] =
            check_.scalar(option.value, "a scalar (string, number or boolean)");
        spec.option_where.emplace_back(option.key,
                                       detail::location(check_.source(), option.key_mark));
      }
    } else if (e.key == "toolchain") {
      spec.strict_toolchain = check_.one_of(e.value, kToolchainPolicies) == "strict";
    } else {
      spec.override_rules = check_.boolean(e.value);
    }
  }
  return spec;
}

Interval ProfileReader::read_bounds(const Field& field) const {
  const std::string shape = "'" + field.name + "' must be [lo, hi] with 0 <= lo <= hi";
  if (!field.node.IsSequence() || field.node.size() != 2) {
    std::string got = describe(field.node);
    if (field.node.IsSequence()) {
      got = "a list of " + std::to_string(field.node.size()) +
            (field.node.size() == 1 ? " item" : " items");
    }
    check_.fail(field.mark(), shape + ", got " + got);
  }
  const std::vector<Field> ends = check_.items(field, "[lo, hi]");
  Interval bounds;
  bool overflow = false;
  if (!ends[0].node.IsScalar() ||
      !detail::parse_integer(ends[0].node.Scalar(), bounds.lo, overflow)) {
    check_.fail(ends[0].mark(), "'" + field.name + "' lower bound must be an integer, got " +
                                    describe(ends[0].node) + (overflow ? " (out of range)" : ""));
  }
  const YAML::Node& hi = ends[1].node;
  if (hi.IsNull() || (hi.IsScalar() && is_one_of(hi.Scalar(), kInfWords))) {
    bounds.hi = kPosInf;
  } else if (!hi.IsScalar() || !detail::parse_integer(hi.Scalar(), bounds.hi, overflow)) {
    check_.fail(ends[1].mark(), "'" + field.name +
                                    "' upper bound must be an integer, null or .inf, got " +
                                    describe(hi) + (overflow ? " (out of range)" : ""));
  }
  if (bounds.lo < 0 || bounds.lo > bounds.hi) {
    check_.fail(field.mark(),
                shape + ", got [" + bound_text(ends[0].node) + ", " + bound_text(hi) + "]");
  }
  return bounds;
}

std::vector<std::string> ProfileReader::read_fallback(const Field& field) const {
  std::vector<std::string> words;
  for (const Field& item : check_.items(field, "a list (of onnx_schema, declared, unknown_rank)")) {
    std::string word = check_.one_of(item, kShapeFallbacks);
    if (std::find(words.begin(), words.end(), word) != words.end()) {
      check_.fail(item.mark(), "'" + field.name + "' lists " + quote(word) + " twice");
    }
    words.push_back(std::move(word));
  }
  return words;
}

std::vector<Assignment> ProfileReader::read_evaluate(const Field& field) const {
  std::vector<Assignment> assignments;
  for (const Field& item : check_.items(field, "a list of maps symbol -> value")) {
    Assignment assignment;
    for (const Entry& e : check_.entries(item, item.name, {})) {
      check_symbol_name(e, item.name);
      assignment.emplace(e.key, check_.integer(e.value, 0));
    }
    if (assignment.empty()) {
      check_.fail(item.mark(),
                  "'" + item.name + "' must map at least one symbol to a value, e.g. {N: 8}");
    }
    assignments.push_back(std::move(assignment));
  }
  return assignments;
}

std::vector<std::pair<std::string, std::string>> ProfileReader::read_let(const Field& field) const {
  return read_relations(check_, field, "report.let");
}

}  // namespace

std::vector<std::pair<std::string, std::string>> detail::read_relations(const Checker& check,
                                                                        const Field& field,
                                                                        std::string_view where) {
  std::vector<std::pair<std::string, std::string>> relations;
  for (const Entry& e : check.entries(field, where, {})) {
    if (!detail::is_symbol_name(e.key)) {
      check.fail(e.key_mark, quote(e.key) + " in '" + std::string(where) +
                                 "' is not a symbol name ([A-Za-z_][A-Za-z0-9_]*)");
    }
    std::string text = e.value.node.IsScalar() ? e.value.node.Scalar() : std::string();
    if (text.empty()) {
      check.fail(e.value.mark(),
                 "'" + std::string(where) + "." + e.key +
                     "' must be an expression of other symbols, e.g. past_seq + seq");
    }
    try {
      ExprPool syntax;
      (void)syntax.parse(text);
    } catch (const ExprError& error) {
      check.fail(e.value.mark(), "'" + std::string(where) + "." + e.key + "': " + error.what());
    }
    relations.emplace_back(e.key, std::move(text));
  }
  return relations;
}

namespace {

void ProfileReader::check_symbol_name(const Entry& entry, std::string_view context) const {
  if (detail::is_symbol_name(entry.key)) return;
  check_.fail(entry.key_mark, quote(entry.key) + " in '" + std::string(context) +
                                  "' is not a symbol name ([A-Za-z_][A-Za-z0-9_]*)");
}

fs::path ProfileReader::read_path(const Field& field, std::string_view expectation) const {
  const std::string text = check_.expand_env(field, check_.non_empty(field, expectation));
  if (text.empty()) {
    check_.fail(field.mark(),
                "'" + field.name + "' is empty after expanding " + quote(field.node.Scalar()));
  }
  fs::path path(text);
  if (path.is_relative()) path = base_dir_ / path;
  path = path.lexically_normal();
  // "dir/" and "dir" name the same folder; keep one spelling so paths compare equal.
  if (!path.has_filename() && path != path.root_path()) path = path.parent_path();
  return path;
}

}  // namespace

Profile load_profile(const fs::path& path) {
  std::string text;
  if (const std::string problem = read_text(path, text); !problem.empty()) {
    throw ConfigError((path.empty() ? "(empty path)" : path.string()) + ": " + problem);
  }
  std::vector<Link> chain;
  Profile profile;
  apply_file(path, path.string(), text, chain, profile);
  profile.source = absolute_of(path);
  return profile;
}

ScenarioFile load_scenarios(const fs::path& path) {
  std::string text;
  if (const std::string problem = read_text(path, text); !problem.empty()) {
    throw ConfigError((path.empty() ? "(empty path)" : path.string()) + ": " + problem);
  }
  const Checker check(path.string());
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    check.fail(e.mark, "YAML syntax error: " + e.msg);
  }
  if (!root.IsMap()) {
    check.fail(root.Mark(), "a scenario file is a map: NAME: {SYM: V, ...} (and 'let:')");
  }
  ScenarioFile file;
  try {
    for (const Entry& e : check.entries(detail::root_field(root), "scenarios", {})) {
      if (e.key == "let") {
        file.let = detail::read_relations(check, e.value, "let");
        continue;
      }
      Scenario scenario{e.key, {}};
      for (const Entry& v : check.entries(e.value, e.key, {})) {
        if (!detail::is_symbol_name(v.key)) {
          check.fail(v.key_mark, quote(v.key) + " in '" + e.key +
                                     "' is not a symbol name ([A-Za-z_][A-Za-z0-9_]*)");
        }
        scenario.values.emplace(v.key, check.integer(v.value, 0));
      }
      if (scenario.values.empty()) {
        check.fail(e.value.mark(),
                   "'" + e.key + "' must map at least one symbol to a value, e.g. {batch: 8}");
      }
      file.scenarios.push_back(std::move(scenario));
    }
  } catch (const YAML::Exception& e) {
    check.fail(e.mark, e.msg);
  }
  if (file.scenarios.empty()) {
    check.fail(root.Mark(), "no scenario: add NAME: {SYM: V, ...}");
  }
  return file;
}

Profile parse_profile(const std::string& yaml, const std::string& source,
                      const fs::path& base_dir) {
  const fs::path base = absolute_of(base_dir);
  // If `source` names a real file under base_dir, a parent extending it is a cycle too.
  std::vector<Link> chain;
  if (!source.empty()) chain.push_back(Link{identity_of(base / source), source});
  Profile profile;
  ProfileReader(source, base, chain).apply(yaml, profile);
  profile.source = source;
  return profile;
}

}  // namespace cctx
