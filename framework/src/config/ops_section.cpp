// Reads `ops:`, the declarative custom ops of a profile. Everything is checked here, when the
// profile is loaded: keys, types, element type names, every expression (compiled once), input
// references against `inputs:`, and the in-place pairs against the declared outputs and inputs.
// What can only be known per node (ranks, attributes) is checked by the rules at analysis time.
#include "ops_section.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "cctx/dtypes.hpp"
#include "cctx/tags.hpp"
#include "declarative/dim_program.hpp"
#include "dtype_names.hpp"

namespace cctx::detail {

namespace {

constexpr std::string_view kOpKeys[] = {
    "domain",    "op_type", "since_version", "inputs",   "outputs",    "defaults", "tags",
    "may_reuse", "alias",   "scratch",       "override", "write_into", "requires"};
constexpr std::string_view kOutputKeys[] = {"dtype", "shape"};
constexpr std::string_view kWriteIntoKeys[] = {"output", "input", "capacity"};
constexpr std::string_view kInputKeys[] = {"rank", "optional", "dtype"};
constexpr std::string_view kTagKeys[] = {"inputs", "node", "inherit", "backward"};
constexpr std::string_view kTagNames[] = {"weight", "shape", "axes"};
constexpr std::string_view kInheritNames[] = {"input0", "concat", "none"};
constexpr std::string_view kBackwardNames[] = {"none", "all_inputs", "input0",
                                               "inputs01_weight_only"};
// Input positions beyond this are typing mistakes (the expression references share the cap).
constexpr std::int64_t kMaxInputs = 1 << 20;
// Ranks beyond this are typing mistakes too (limits.rank bounds what a model may hold).
constexpr std::int64_t kMaxRank = 1 << 20;
// Spellings of "no upper bound" for `inputs: [lo, hi]` and `rank: [lo, hi]`, besides null.
constexpr std::string_view kInfWords[] = {"inf", "Inf", "INF", ".inf", ".Inf", ".INF"};

std::string plural(std::uint64_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string key_text(const DeclaredOp& op) {
  return (op.domain.empty() ? std::string("ai.onnx") : op.domain) + "::" + op.op_type + "@" +
         std::to_string(op.since_version);
}

bool same_key(const DeclaredOp& a, const DeclaredOp& b) {
  return a.domain == b.domain && a.op_type == b.op_type && a.since_version == b.since_version;
}

/// `in<K>` as a whole word: K; -1 otherwise.
std::int64_t input_word(std::string_view text) {
  if (text.size() < 3 || text.substr(0, 2) != "in" || text.size() > 9) return -1;
  std::int64_t k = 0;
  for (char c : text.substr(2)) {
    if (c < '0' || c > '9') return -1;
    k = k * 10 + (c - '0');
  }
  return k;
}

class OpsReader {
 public:
  OpsReader(const Checker& check, std::string_view text) : check_(check), text_(text) {}

  std::vector<DeclaredOp> read(const Field& field) const {
    std::vector<DeclaredOp> ops;
    std::vector<YAML::Mark> marks;
    for (const Field& item : check_.items(field, "a list of op entries")) {
      DeclaredOp op = read_op(item);
      for (std::size_t k = 0; k < ops.size(); ++k) {
        if (same_key(ops[k], op)) {
          check_.fail(item.mark(),
                      "'" + item.name + "' declares " + key_text(op) + " again (first at line " +
                          std::to_string(marks[k].line + 1) + "); an op is declared once per file");
        }
      }
      ops.push_back(std::move(op));
      marks.push_back(item.mark());
    }
    return ops;
  }

 private:
  DeclaredOp read_op(const Field& item) const {
    if (!item.node.IsMap()) {
      check_.fail(item.mark(), "'" + item.name + "' must be a map with 'domain', 'op_type' and " +
                                   "'outputs', got " + describe(item.node));
    }
    std::map<std::string, Field, std::less<>> fields;
    for (Entry& e : check_.entries(item, item.name, kOpKeys)) fields.emplace(e.key, e.value);
    for (std::string_view required : {"domain", "op_type", "outputs"}) {
      if (fields.count(required) == 0) {
        check_.fail(item.mark(), "'" + item.name + "' has no '" + std::string(required) + "'");
      }
    }
    const auto field = [&](std::string_view key) -> const Field* {
      auto it = fields.find(key);
      return it == fields.end() ? nullptr : &it->second;
    };

    DeclaredOp op;
    op.where = location(check_.source(), item.mark());
    prefix_ = item.name + ".";
    op.domain = check_.scalar(*field("domain"), "a domain name (\"\" or ai.onnx for ONNX's own)");
    if (op.domain == "ai.onnx") op.domain.clear();
    const Field& op_type = *field("op_type");
    op.op_type = check_.non_empty(op_type, "an operator name");
    if (!is_symbol_name(op.op_type)) {
      check_.fail(op_type.mark(), "'" + op_type.name +
                                      "' must be an operator name ([A-Za-z_][A-Za-z0-9_]*), got " +
                                      describe(op_type.node));
    }
    if (const Field* f = field("since_version")) {
      op.since_version = static_cast<std::int32_t>(check_.integer(*f, 1, INT32_MAX));
    }
    if (const Field* f = field("inputs")) read_inputs(*f, op);
    if (const Field* f = field("defaults")) {
      for (const Entry& e : check_.entries(*f, f->name, {})) {
        if (!is_symbol_name(e.key)) {
          check_.fail(e.key_mark, quote(e.key) + " in '" + f->name +
                                      "' is not an attribute name ([A-Za-z_][A-Za-z0-9_]*)");
        }
        op.defaults.emplace(e.key, check_.integer(e.value, INT64_MIN));
      }
    }
    const Field& outputs = *field("outputs");
    for (const Field& out : check_.items(outputs, "a list of outputs ({dtype: ..., shape: ...})")) {
      op.outputs.push_back(read_output(out, op));
    }
    if (op.outputs.empty()) {
      check_.fail(outputs.mark(), "'" + outputs.name + "' must list at least one output");
    }
    if (const Field* f = field("tags")) read_tags(*f, op);
    if (const Field* f = field("alias")) {
      op.has_inplace = true;
      op.alias = read_pairs(*f, op);
      check_aliases(*f, op);
    }
    if (const Field* f = field("may_reuse")) {
      op.has_inplace = true;
      op.may_reuse = read_pairs(*f, op);
      const std::vector<Field> items = check_.items(*f, "a list of [output, input] pairs");
      for (std::size_t k = 0; k < op.may_reuse.size(); ++k) {
        for (auto [o, i] : op.alias) {
          if (o == op.may_reuse[k].first) {
            check_.fail(items[k].mark(), "'" + items[k].name + "': output " + std::to_string(o) +
                                             " is already a view of input " + std::to_string(i) +
                                             " ('alias'), it allocates nothing to reuse");
          }
        }
      }
    }
    if (const Field* f = field("requires")) op.requirements = read_requirements(*f, op);
    if (const Field* f = field("write_into")) {
      op.has_inplace = true;
      read_write_into(*f, op);
    }
    if (const Field* f = field("scratch")) op.scratch = read_dim(*f, op);
    if (const Field* f = field("override")) op.override_rules = check_.boolean(*f);
    return op;
  }

  // `write_into: [{output: 1, input: 2, capacity: "2 * in2[0] * attr.max_len * in2[3]"}]`.
  void read_write_into(const Field& f, DeclaredOp& op) const {
    for (const Field& item :
         check_.items(f, "a list of {output, input, capacity} maps (a buffer with room)")) {
      if (!item.node.IsMap()) {
        check_.fail(item.mark(), "'" + item.name +
                                     "' must be a map {output, input, capacity}, got " +
                                     describe(item.node));
      }
      DeclaredOp::WriteInto w;
      bool has_output = false, has_input = false, has_capacity = false;
      for (const Entry& e : check_.entries(item, item.name, kWriteIntoKeys)) {
        if (e.key == "output") {
          has_output = true;
          w.output = static_cast<std::uint32_t>(check_.integer(e.value, 0, kMaxInputs));
          if (w.output >= op.outputs.size()) {
            check_.fail(e.value.mark(), "'" + e.value.name + "' names output " +
                                            std::to_string(w.output) + ", but the op declares " +
                                            plural(op.outputs.size(), "output"));
          }
        } else if (e.key == "input") {
          has_input = true;
          w.input = static_cast<std::uint32_t>(check_.integer(e.value, 0, kMaxInputs));
          check_input(w.input, op, e.value.mark(), "'" + e.value.name + "'");
        } else {
          has_capacity = true;
          w.capacity = read_dim(e.value, op);
        }
      }
      for (auto [present, key] : {std::pair{has_output, "output"}, std::pair{has_input, "input"},
                                  std::pair{has_capacity, "capacity"}}) {
        if (!present) check_.fail(item.mark(), "'" + item.name + "' has no '" + key + "'");
      }
      for (const auto& [o, i] : op.alias) {
        if (o == w.output) {
          check_.fail(item.mark(), "'" + item.name + "': output " + std::to_string(o) +
                                       " is already a view of input " + std::to_string(i) +
                                       " ('alias')");
        }
      }
      op.write_into.push_back(std::move(w));
    }
  }

  // `inputs:` as a count, as [min, max], or as one map of requirements per input.
  void read_inputs(const Field& f, DeclaredOp& op) const {
    if (f.node.IsScalar()) {
      op.min_inputs = op.max_inputs = static_cast<std::uint32_t>(check_.integer(f, 0, kMaxInputs));
      return;
    }
    if (f.node.IsSequence()) {
      const bool requirements =
          f.node.size() == 0 ||
          std::any_of(f.node.begin(), f.node.end(), [](const YAML::Node& n) { return n.IsMap(); });
      if (requirements) {
        read_input_requirements(f, op);
        return;
      }
    }
    const auto [lo, hi] =
        read_range(f, kMaxInputs, "a count or [min, max]",
                   "; or a list of input requirements, one per input ({rank: R, optional: true})");
    op.min_inputs = static_cast<std::uint32_t>(lo);
    op.max_inputs = hi < 0 ? DeclaredOp::kAnyInputs : static_cast<std::uint32_t>(hi);
  }

  // [min, max] of integers in 0..limit, max null or inf for no limit (returned as -1). A value of
  // another shape is an error saying `what` was expected, then `alternative`.
  std::pair<std::int64_t, std::int64_t> read_range(const Field& f, std::int64_t limit,
                                                   const std::string& what,
                                                   const std::string& alternative = "") const {
    const std::string expectation = "'" + f.name + "' must be " + what;
    if (!f.node.IsSequence() || f.node.size() != 2) {
      check_.fail(f.mark(), expectation + " (max may be null for no limit), got " +
                                (f.node.IsSequence() ? "a list of " + plural(f.node.size(), "item")
                                                     : describe(f.node)) +
                                alternative);
    }
    const std::vector<Field> ends = check_.items(f, "[min, max]");
    const std::int64_t lo = check_.integer(ends[0], 0, limit);
    const YAML::Node& hi = ends[1].node;
    if (hi.IsNull() || (hi.IsScalar() && std::find(std::begin(kInfWords), std::end(kInfWords),
                                                   hi.Scalar()) != std::end(kInfWords))) {
      return {lo, -1};
    }
    const std::int64_t max = check_.integer(ends[1], 0, limit);
    if (max < lo) {
      check_.fail(f.mark(), expectation + " with min <= max, got [" + std::to_string(lo) + ", " +
                                std::to_string(max) + "]");
    }
    return {lo, max};
  }

  // `inputs: [{rank: 2}, {rank: [1, 2], optional: true}]`: one entry per input; the node may
  // have up to that many inputs, and needs every one up to the last that is not optional.
  void read_input_requirements(const Field& f, DeclaredOp& op) const {
    for (const Field& item : check_.items(f, "a list of input requirements")) {
      if (!item.node.IsMap()) {
        check_.fail(item.mark(), "'" + item.name +
                                     "' must be a map of requirements of one input ({rank: R, "
                                     "optional: true}), got " +
                                     describe(item.node));
      }
      DeclaredInput input;
      for (const Entry& e : check_.entries(item, item.name, kInputKeys)) {
        if (e.key == "optional") {
          input.optional = check_.boolean(e.value);
          continue;
        }
        if (e.key == "dtype") {
          input.dtypes = read_dtype_names(e.value);
          continue;
        }
        input.has_rank = true;
        if (e.value.node.IsScalar()) {
          input.min_rank = input.max_rank =
              static_cast<std::int32_t>(check_.integer(e.value, 0, kMaxRank));
          continue;
        }
        const auto [lo, hi] = read_range(e.value, kMaxRank, "a rank or [min, max]");
        input.min_rank = static_cast<std::int32_t>(lo);
        input.max_rank = hi < 0 ? DeclaredInput::kAnyRank : static_cast<std::int32_t>(hi);
      }
      if (!input.optional) op.min_inputs = static_cast<std::uint32_t>(op.input_specs.size() + 1);
      op.input_specs.push_back(input);
    }
    op.max_inputs = static_cast<std::uint32_t>(op.input_specs.size());
  }

  // "the op declares 2 inputs" / "at most 3 inputs", for an input reference out of range.
  static std::string declared_inputs(const DeclaredOp& op) {
    return "the op declares " + std::string(op.min_inputs == op.max_inputs ? "" : "at most ") +
           plural(op.max_inputs, "input");
  }

  // Input K named by a reference at `mark`: must be below `inputs:`'s max when it is declared.
  void check_input(std::uint32_t k, const DeclaredOp& op, const YAML::Mark& mark,
                   const std::string& what) const {
    if (op.max_inputs == DeclaredOp::kAnyInputs || k < op.max_inputs) return;
    check_.fail(mark,
                what + " refers to input " + std::to_string(k) + ", but " + declared_inputs(op));
  }

  DeclaredOutput read_output(const Field& f, const DeclaredOp& op) const {
    if (!f.node.IsMap()) {
      check_.fail(f.mark(), "'" + f.name + "' must be a map with 'shape' (and 'dtype'), got " +
                                describe(f.node));
    }
    DeclaredOutput out;
    bool has_dtype = false, has_shape = false;
    for (const Entry& e : check_.entries(f, f.name, kOutputKeys)) {
      if (e.key == "dtype") {
        has_dtype = true;
        read_dtype(e.value, op, out);
      } else {
        has_shape = true;
        read_shape(e.value, op, out);
      }
    }
    if (!has_shape) check_.fail(f.mark(), "'" + f.name + "' has no 'shape'");
    if (!has_dtype) {
      if (op.max_inputs == 0) {
        check_.fail(f.mark(),
                    "'" + f.name + "' has no 'dtype', and the op has no input to take it from");
      }
      out.dtype_from = DeclaredOutput::DtypeFrom::kInput;  // in0's, by default
    }
    return out;
  }

  // `dtype: float` or `dtype: [float, float16]`: element type names.
  std::vector<std::int32_t> read_dtype_names(const Field& f) const {
    std::vector<Field> items;
    if (f.node.IsSequence()) {
      items = check_.items(f, "a list of element types");
    } else {
      items.push_back(f);
    }
    std::vector<std::string_view> names;
    for (const auto& entry : dtype_names()) names.push_back(entry.first);
    std::vector<std::int32_t> codes;
    for (const Field& item : items) {
      const std::string text = check_.non_empty(item, "an element type");
      bool found = false;
      for (const auto& [name, code] : dtype_names()) {
        if (name != text) continue;
        codes.push_back(code);
        found = true;
      }
      if (!found) {
        const std::string_view near = closest(text, names);
        check_.fail(item.mark(),
                    "'" + item.name + "' must be an element type (" + join(names) + "), got " +
                        quote(text) +
                        (near.empty() ? "" : "; did you mean '" + std::string(near) + "'?"));
      }
    }
    return codes;
  }

  // `requires: ["eq(in0[-1], in1[0])", "divides(attr.num_heads, in0[2])", "le(in1[2], 4096)"]`.
  std::vector<DeclaredRequirement> read_requirements(const Field& f, const DeclaredOp& op) const {
    std::vector<DeclaredRequirement> out;
    for (const Field& item :
         check_.items(f, "a list of requirements: eq(A, B), le(A, B) or divides(K, N)")) {
      const std::string text = check_.non_empty(item, "a requirement");
      const std::size_t open = text.find('(');
      const std::string name = open == std::string::npos ? text : text.substr(0, open);
      DeclaredRequirement r;
      r.text = text;
      if (name == "eq") {
        r.kind = DeclaredRequirement::Kind::kEq;
      } else if (name == "le") {
        r.kind = DeclaredRequirement::Kind::kLe;
      } else if (name == "divides") {
        r.kind = DeclaredRequirement::Kind::kDivides;
      } else {
        check_.fail(
            item.mark(),
            "'" + item.name + "' must be eq(A, B), le(A, B) or divides(K, N), got " + quote(text));
      }
      // The top-level commas: exactly one, between the two expressions.
      std::size_t comma = std::string::npos, commas = 0;
      int depth = 0;
      for (std::size_t k = open + 1; k + 1 < text.size(); ++k) {
        const char c = text[k];
        if (c == '(' || c == '[') ++depth;
        if (c == ')' || c == ']') --depth;
        if (c == ',' && depth == 0 && commas++ == 0) comma = k;
      }
      if (text.back() != ')' || commas != 1) {
        check_.fail(item.mark(), "'" + item.name + "' must be " + name +
                                     "(A, B) with two expressions, got " + quote(text));
      }
      r.a = compile(item, text.substr(open + 1, comma - open - 1), open + 1, op, "[0]");
      r.b = compile(item, text.substr(comma + 1, text.size() - comma - 2), comma + 1, op, "[1]");
      out.push_back(std::move(r));
    }
    return out;
  }

  void read_dtype(const Field& f, const DeclaredOp& op, DeclaredOutput& out) const {
    const std::string text = check_.non_empty(f, "an element type");
    if (const std::int64_t k = input_word(text); k >= 0) {
      check_input(static_cast<std::uint32_t>(k), op, f.mark(), "'" + f.name + "'");
      out.dtype_from = DeclaredOutput::DtypeFrom::kInput;
      out.dtype_input = static_cast<std::uint32_t>(k);
      return;
    }
    if (text.rfind("attr.", 0) == 0) {
      const std::string name = text.substr(5);
      if (!is_symbol_name(name)) {
        check_.fail(f.mark(), "'" + f.name + "': " + quote(name) +
                                  " is not an attribute name ([A-Za-z_][A-Za-z0-9_]*)");
      }
      out.dtype_from = DeclaredOutput::DtypeFrom::kAttribute;
      out.dtype_attribute = name;
      return;
    }
    for (const auto& [name, code] : dtype_names()) {
      if (name == text) {
        out.dtype_from = DeclaredOutput::DtypeFrom::kFixed;
        out.dtype = code;
        return;
      }
    }
    std::vector<std::string_view> names;
    for (const auto& entry : dtype_names()) names.push_back(entry.first);
    const std::string_view near = closest(text, names);
    check_.fail(f.mark(), "'" + f.name +
                              "' must be inK (input K's type), attr.NAME (an INT attribute "
                              "holding the type code) or an element type (" +
                              join(names) + "), got " + quote(text) +
                              (near.empty() ? "" : "; did you mean '" + std::string(near) + "'?"));
  }

  void read_shape(const Field& f, const DeclaredOp& op, DeclaredOutput& out) const {
    if (f.node.IsScalar()) {
      const std::int64_t k = input_word(f.node.Scalar());
      if (k < 0) {
        check_.fail(f.mark(), "'" + f.name +
                                  "' must be inK (input K's shape) or a list of dim expressions, "
                                  "got " +
                                  describe(f.node));
      }
      check_input(static_cast<std::uint32_t>(k), op, f.mark(), "'" + f.name + "'");
      out.shape_from_input = true;
      out.shape_input = static_cast<std::uint32_t>(k);
      return;
    }
    for (const Field& item : check_.items(f, "inK or a list of dim expressions")) {
      out.dims.push_back(read_dim(item, op));
    }
  }

  DeclaredDim read_dim(const Field& f, const DeclaredOp& op) const {
    if (!f.node.IsScalar()) {
      const bool list = f.node.IsSequence();
      check_.fail(f.mark(),
                  "'" + f.name + "' must be an expression, got " + describe(f.node) +
                      (list ? " (inside [ ], quote expressions that use [ ]: \"in0[1]\")" : ""));
    }
    return compile(f, f.node.Scalar(), 0, op, "");
  }

  /// `text`, which starts at byte `at` of f's value (all of it, or one side of a requirement),
  /// compiled and its input references checked; named after f, plus `suffix`.
  DeclaredDim compile(const Field& f, const std::string& text, std::size_t at, const DeclaredOp& op,
                      const char* suffix) const {
    detail::DimProgram program;
    try {
      program = compile_dim(text);
    } catch (const DimSyntaxError& e) {
      check_.fail(mark_in(f, at + e.offset()),
                  "'" + f.name + "': bad expression " + quote(text) + ": " + e.what());
    }
    for (const DimRef& ref : program.refs) {
      if (!refers_to_input(ref)) continue;
      check_input(ref.input, op, mark_in(f, at + ref.offset),
                  "'" + f.name + "': '" + ref.text + "'");
    }
    DeclaredDim dim;
    dim.text = text;
    dim.name = (f.name.rfind(prefix_, 0) == 0 ? f.name.substr(prefix_.size()) : f.name) + suffix;
    dim.program = std::make_shared<const DimProgram>(std::move(program));
    return dim;
  }

  // The position of byte `offset` of a scalar's value in the file, when the value is written on
  // one line without escapes (plain, or quoted); else the scalar's own position.
  YAML::Mark mark_in(const Field& f, std::size_t offset) const {
    YAML::Mark mark = f.mark();
    const std::string& value = f.node.Scalar();
    if (mark.is_null() || mark.pos < 0 || value.find('\n') != std::string::npos) return mark;
    auto pos = static_cast<std::size_t>(mark.pos);
    if (pos >= text_.size()) return mark;
    const std::size_t start = (text_[pos] == '"' || text_[pos] == '\'') ? pos + 1 : pos;
    if (text_.compare(start, value.size(), value) != 0) return mark;
    mark.column += static_cast<int>(start - pos + offset);
    mark.pos = static_cast<int>(start + offset);
    return mark;
  }

  std::vector<std::pair<std::uint32_t, std::uint32_t>> read_pairs(const Field& f,
                                                                  const DeclaredOp& op) const {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (const Field& item : check_.items(f, "a list of [output, input] pairs")) {
      if (!item.node.IsSequence() || item.node.size() != 2) {
        check_.fail(item.mark(),
                    "'" + item.name + "' must be [output, input], got " +
                        (item.node.IsSequence() ? "a list of " + plural(item.node.size(), "item")
                                                : describe(item.node)));
      }
      const std::vector<Field> ends = check_.items(item, "[output, input]");
      const auto o = static_cast<std::uint32_t>(check_.integer(ends[0], 0, kMaxInputs));
      const auto i = static_cast<std::uint32_t>(check_.integer(ends[1], 0, kMaxInputs));
      if (o >= op.outputs.size()) {
        check_.fail(ends[0].mark(), "'" + item.name + "' names output " + std::to_string(o) +
                                        ", but the op declares " +
                                        plural(op.outputs.size(), "output"));
      }
      check_input(i, op, ends[1].mark(), "'" + item.name + "'");
      const std::pair<std::uint32_t, std::uint32_t> pair{o, i};
      if (std::find(pairs.begin(), pairs.end(), pair) != pairs.end()) {
        check_.fail(item.mark(), "'" + item.name + "' repeats [" + std::to_string(o) + ", " +
                                     std::to_string(i) + "]");
      }
      pairs.push_back(pair);
    }
    return pairs;
  }

  // An output is a view of one input, and an input backs one view.
  void check_aliases(const Field& f, const DeclaredOp& op) const {
    const std::vector<Field> items = check_.items(f, "a list of [output, input] pairs");
    for (std::size_t k = 0; k < op.alias.size(); ++k) {
      for (std::size_t j = 0; j < k; ++j) {
        if (op.alias[j].first == op.alias[k].first) {
          check_.fail(items[k].mark(),
                      "'" + items[k].name + "': output " + std::to_string(op.alias[k].first) +
                          " is already a view of input " + std::to_string(op.alias[j].second));
        }
        if (op.alias[j].second == op.alias[k].second) {
          check_.fail(items[k].mark(),
                      "'" + items[k].name + "': input " + std::to_string(op.alias[k].second) +
                          " already backs output " + std::to_string(op.alias[j].first));
        }
      }
    }
  }

  void read_tags(const Field& f, DeclaredOp& op) const {
    op.has_tags = true;
    for (const Entry& e : check_.entries(f, f.name, kTagKeys)) {
      if (e.key == "inputs") {
        for (const Entry& t : check_.entries(e.value, e.value.name, {})) {
          std::int64_t k = 0;
          bool overflow = false;
          if (!parse_integer(t.key, k, overflow) || k < 0 || k >= kMaxInputs) {
            check_.fail(t.key_mark, "keys of '" + e.value.name +
                                        "' must be input positions (integers >= 0), got " +
                                        quote(t.key));
          }
          check_input(static_cast<std::uint32_t>(k), op, t.key_mark,
                      "'" + e.value.name + "." + t.key + "'");
          op.input_tags.push_back(
              sdk::PositionalTag{static_cast<std::uint32_t>(k), tag_of(t.value)});
        }
      } else if (e.key == "node") {
        op.node_tag = tag_of(e.value);
      } else if (e.key == "inherit") {
        const std::string word = check_.one_of(e.value, kInheritNames);
        op.inherit = word == "concat" ? sdk::TagInherit::kConcat
                     : word == "none" ? sdk::TagInherit::kNone
                                      : sdk::TagInherit::kInput0;
      } else {
        const std::string word = check_.one_of(e.value, kBackwardNames);
        op.backward = word == "all_inputs"             ? sdk::TagBackward::kAllInputs
                      : word == "input0"               ? sdk::TagBackward::kInput0
                      : word == "inputs01_weight_only" ? sdk::TagBackward::kInputs01WeightOnly
                                                       : sdk::TagBackward::kNone;
      }
    }
  }

  // One of kTagNames, all words of the tag vocabulary: parse_tag maps each.
  sdk::Tag tag_of(const Field& f) const { return *parse_tag(check_.one_of(f, kTagNames)); }

  const Checker& check_;
  std::string_view text_;
  mutable std::string prefix_;  // "ops[3]." while reading that entry
};

}  // namespace

std::vector<DeclaredOp> read_ops(const Checker& check, const Field& field, std::string_view text) {
  return OpsReader(check, text).read(field);
}

void merge_ops(std::vector<DeclaredOp>& into, std::vector<DeclaredOp> ops) {
  for (DeclaredOp& op : ops) {
    auto it = std::find_if(into.begin(), into.end(),
                           [&](const DeclaredOp& old) { return same_key(old, op); });
    if (it != into.end()) {
      *it = std::move(op);
    } else {
      into.push_back(std::move(op));
    }
  }
}

}  // namespace cctx::detail
