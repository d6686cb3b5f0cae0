#include "yaml_checks.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <numeric>
#include <unordered_map>

#include "cctx/errors.hpp"

namespace cctx::detail {
namespace {

// Long values (a block scalar, a pasted path) would drown the message; 60 characters identify them.
constexpr std::size_t kMaxQuoted = 60;

constexpr std::int64_t kMaxInt = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMinInt = std::numeric_limits<std::int64_t>::min();

constexpr std::string_view kTrueWords[] = {"true", "True", "TRUE"};
constexpr std::string_view kFalseWords[] = {"false", "False", "FALSE"};

bool contains(std::span<const std::string_view> words, std::string_view word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

std::string describe_range(std::int64_t lo, std::int64_t hi) {
  if (hi == kMaxInt) {
    if (lo == kMinInt) return "an integer";
    if (lo == 0) return "a non-negative integer";
    if (lo == 1) return "a positive integer";
    return "an integer >= " + std::to_string(lo);
  }
  return "an integer between " + std::to_string(lo) + " and " + std::to_string(hi);
}

// " did you mean 'x'?" when `word` is a likely typo of one of `choices`, else nothing.
std::string suggestion(std::string_view word, std::span<const std::string_view> choices) {
  std::string_view best = closest(word, choices);
  if (best.empty()) return {};
  return "; did you mean '" + std::string(best) + "'?";
}

}  // namespace

YAML::Mark Field::mark() const {
  if (!node.IsDefined() || node.IsNull() || node.Mark().is_null()) return key_mark;
  return node.Mark();
}

std::string Field::member(std::string_view key) const {
  if (name.empty()) return std::string(key);
  return name + "." + std::string(key);
}

std::string Field::item(std::size_t index) const {
  return name + "[" + std::to_string(index) + "]";
}

std::string location(std::string_view source, const YAML::Mark& mark) {
  std::string where(source);
  if (mark.is_null()) return where;
  return where + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

std::string quote(std::string_view text) {
  bool shortened = false;
  if (text.size() > kMaxQuoted) {
    std::size_t cut = kMaxQuoted;
    // Do not split a UTF-8 sequence: back off over continuation bytes (10xxxxxx).
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text = text.substr(0, cut);
    shortened = true;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (byte < 0x20 || byte == 0x7F) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    } else {
      out += c;
    }
  }
  if (shortened) out += "...";
  return out + "'";
}

std::string describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsScalar()) return quote(node.Scalar());
  if (node.IsSequence()) return "a list";
  return "a map";
}

std::string join(std::span<const std::string_view> words) {
  std::string out;
  for (std::string_view w : words) {
    if (!out.empty()) out += ", ";
    out += w;
  }
  return out;
}

bool is_symbol_name(std::string_view text) {
  if (text.empty()) return false;
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!alpha(text[0])) return false;
  return std::all_of(text.begin() + 1, text.end(), [&](char c) { return alpha(c) || digit(c); });
}

bool parse_integer(std::string_view text, std::int64_t& value, bool& overflow) {
  overflow = false;
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty() ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  // Parse the magnitude unsigned so that the most negative int64 is representable.
  std::uint64_t magnitude = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), magnitude);
  const std::uint64_t limit = static_cast<std::uint64_t>(kMaxInt) + (negative ? 1 : 0);
  if (ec == std::errc::result_out_of_range || magnitude > limit) {
    overflow = true;
    return false;
  }
  if (ec != std::errc() || end != text.data() + text.size()) return false;
  if (!negative) {
    value = static_cast<std::int64_t>(magnitude);
  } else if (magnitude == limit) {
    value = kMinInt;
  } else {
    value = -static_cast<std::int64_t>(magnitude);
  }
  return true;
}

Field root_field(const YAML::Node& root) { return Field{root, "", root.Mark()}; }

void Checker::fail(const YAML::Mark& mark, const std::string& message) const {
  std::string line = location(source_, mark) + ": " + message;
  // The contract is one line per error; a file name with a newline must not break it.
  std::replace_if(
      line.begin(), line.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  throw ConfigError(line);
}

std::vector<Entry> Checker::entries(const Field& field, std::string_view context,
                                    std::span<const std::string_view> allowed) const {
  if (!field.node.IsDefined() || field.node.IsNull()) return {};
  if (!field.node.IsMap()) {
    fail(field.mark(), "'" + field.name + "' must be a map, got " + describe(field.node));
  }
  std::vector<Entry> out;
  // Index of each key in `out`: a map of 100k symbols or plugin options is checked in linear
  // time (comparing each key with every earlier one took 15 s at 100k keys).
  std::unordered_map<std::string, std::size_t> seen_at;
  for (const auto& pair : field.node) {
    const YAML::Node& key_node = pair.first;
    const YAML::Mark key_mark = key_node.Mark().is_null() ? field.mark() : key_node.Mark();
    if (!key_node.IsScalar()) {
      fail(key_mark,
           "keys of '" + std::string(context) + "' must be plain names, got " + describe(key_node));
    }
    const std::string key = key_node.Scalar();
    if (!allowed.empty() && !contains(allowed, key)) {
      // A key is quoted back only when it looks like one: a file named by mistake (`extends:
      // /etc/shadow`) parses as a map whose keys are its lines, which must not reach a log.
      const bool word = key.size() <= 40 && std::all_of(key.begin(), key.end(), [](char c) {
                          return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' ||
                                 c == '-' || c == '.';
                        });
      fail(key_mark, (word ? "unknown key " + quote(key)
                           : "unknown key of " + std::to_string(key.size()) +
                                 " characters (not a key of a profile; is this a profile?)") +
                         " in '" + std::string(context) + "'; allowed: " + join(allowed) +
                         (word ? suggestion(key, allowed) : std::string()));
    }
    // yaml-cpp keeps both copies of a repeated key; silently taking one would hide a mistake.
    if (const auto [it, first] = seen_at.try_emplace(key, out.size()); !first) {
      fail(key_mark, "duplicate key " + quote(key) + " in '" + std::string(context) +
                         "' (first at line " + std::to_string(out[it->second].key_mark.line + 1) +
                         ")");
    }
    out.push_back(Entry{key, Field{pair.second, field.member(key), key_mark}, key_mark});
  }
  return out;
}

std::vector<Field> Checker::items(const Field& field, std::string_view expectation) const {
  if (!field.node.IsDefined() || field.node.IsNull()) return {};
  if (!field.node.IsSequence()) {
    fail(field.mark(), "'" + field.name + "' must be " + std::string(expectation) + ", got " +
                           describe(field.node));
  }
  std::vector<Field> out;
  std::size_t index = 0;
  for (const auto& item : field.node) {
    const YAML::Mark mark = item.Mark().is_null() ? field.mark() : item.Mark();
    out.push_back(Field{item, field.item(index++), mark});
  }
  return out;
}

bool Checker::boolean(const Field& field) const {
  if (field.node.IsScalar()) {
    if (contains(kTrueWords, field.node.Scalar())) return true;
    if (contains(kFalseWords, field.node.Scalar())) return false;
  }
  fail(field.mark(),
       "'" + field.name + "' must be a boolean (true/false), got " + describe(field.node));
}

std::int64_t Checker::integer(const Field& field, std::int64_t lo, std::int64_t hi) const {
  std::int64_t value = 0;
  bool overflow = false;
  if (field.node.IsScalar() && parse_integer(field.node.Scalar(), value, overflow) && value >= lo &&
      value <= hi) {
    return value;
  }
  fail(field.mark(), "'" + field.name + "' must be " + describe_range(lo, hi) + ", got " +
                         describe(field.node) + (overflow ? " (out of range)" : ""));
}

std::string Checker::scalar(const Field& field, std::string_view expectation) const {
  if (!field.node.IsScalar()) {
    fail(field.mark(), "'" + field.name + "' must be " + std::string(expectation) + ", got " +
                           describe(field.node));
  }
  return field.node.Scalar();
}

std::string Checker::non_empty(const Field& field, std::string_view expectation) const {
  std::string text = scalar(field, expectation);
  if (text.empty()) {
    fail(field.mark(), "'" + field.name + "' must be " + std::string(expectation) + ", got ''");
  }
  return text;
}

std::string Checker::one_of(const Field& field, std::span<const std::string_view> choices) const {
  if (field.node.IsScalar() && contains(choices, field.node.Scalar())) return field.node.Scalar();
  const std::string got = describe(field.node);
  const std::string hint = field.node.IsScalar() ? suggestion(field.node.Scalar(), choices) : "";
  fail(field.mark(),
       "'" + field.name + "' must be one of: " + join(choices) + "; got " + got + hint);
}

std::string Checker::expand_env(const Field& field, std::string_view text) const {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t open = text.find("${", pos);
    if (open == std::string_view::npos) break;
    out.append(text.substr(pos, open - pos));
    const std::size_t close = text.find('}', open + 2);
    if (close == std::string_view::npos) {
      fail(field.mark(), "'" + field.name + "': unterminated '${' in " + quote(text));
    }
    const std::string_view name = text.substr(open + 2, close - open - 2);
    if (!is_symbol_name(name)) {
      fail(field.mark(),
           "'" + field.name + "': " + quote("${" + std::string(name) + "}") +
               " is not a variable reference (use ${NAME}, NAME = [A-Za-z_][A-Za-z0-9_]*)");
    }
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) {
      fail(field.mark(),
           "'" + field.name + "': environment variable '" + std::string(name) + "' is not set");
    }
    out += value;
    pos = close + 1;
  }
  if (pos < text.size()) out.append(text.substr(pos));
  return out;
}

}  // namespace cctx::detail
