// Compiling and evaluating the expressions of declarative ops.
//
// The expression parser knows nothing of nodes, so a pre-pass replaces each reference (`in0[1]`,
// `rank(in2)`, `attr.heads`, `attr.pads[0]`) by a quoted placeholder symbol whose name starts
// with byte 0x01, which no written expression may contain. The parser's tree is then copied into
// a program whose leaves are the references, integers and model symbols. Offsets of syntax errors
// are mapped back through the pre-pass, so they point into the text as written.
#include "declarative/dim_program.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>

#include "cctx/dtypes.hpp"
#include "cctx/expr.hpp"
#include "cctx/op_schema.hpp"
#include "expr/ast.hpp"

namespace cctx::detail {

namespace {

constexpr char kPlaceholderMark = '\x01';
// More references than this in one expression is not a shape formula any more.
constexpr std::size_t kMaxRefs = 4096;
// Input positions and axes beyond these are typing mistakes, not models.
constexpr std::int64_t kMaxInput = 1 << 20;
constexpr std::int64_t kMaxIndex = 1 << 20;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string show(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u < 0x20 || u == 0x7f) {
    static constexpr char kHex[] = "0123456789abcdef";
    return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 15];
  }
  return std::string("'") + c + "'";
}

/// The text handed to the parser, the original offset of each of its bytes, and the references.
struct Rewritten {
  std::string text;
  std::vector<std::size_t> origin;  // origin[i]: offset in the source of text[i]; one past the end
  std::vector<std::size_t> placeholder_starts;  // offsets in `text`, one per reference
  std::vector<DimRef> refs;
};

class Rewriter {
 public:
  explicit Rewriter(std::string_view src) : src_(src) {}

  Rewritten run() {
    for (std::size_t i = 0; i < src_.size(); ++i) {
      const auto u = static_cast<unsigned char>(src_[i]);
      if ((u < 0x20 && !is_space(src_[i])) || u == 0x7f) {
        throw DimSyntaxError(i, show(src_[i]) + " is not allowed in an expression");
      }
    }
    while (pos_ < src_.size()) {
      const char c = src_[pos_];
      if (c == '`') {
        copy_quoted();
      } else if (is_digit(c)) {
        // A number and whatever identifier characters stick to it stay one token for the parser
        // (`2in0[1]` is its syntax error, not two operands).
        const std::size_t start = pos_;
        while (pos_ < src_.size() && is_ident_char(src_[pos_])) ++pos_;
        copy(start, pos_);
      } else if (is_ident_start(c)) {
        identifier();
      } else {
        copy(pos_, pos_ + 1);
        ++pos_;
      }
    }
    out_.origin.push_back(src_.size());
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(std::size_t at, const std::string& reason) const {
    throw DimSyntaxError(at, reason);
  }

  void copy(std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i) {
      out_.text += src_[i];
      out_.origin.push_back(i);
    }
  }

  void copy_quoted() {
    const std::size_t start = pos_++;
    while (pos_ < src_.size()) {
      if (src_[pos_] == '`') {
        if (pos_ + 1 < src_.size() && src_[pos_ + 1] == '`') {
          pos_ += 2;
          continue;
        }
        ++pos_;
        break;
      }
      ++pos_;
    }
    copy(start, pos_);  // an unterminated quote is the parser's error to report
  }

  void skip_spaces() {
    while (pos_ < src_.size() && is_space(src_[pos_])) ++pos_;
  }

  std::string_view read_identifier() {
    const std::size_t start = pos_;
    while (pos_ < src_.size() && is_ident_char(src_[pos_])) ++pos_;
    return src_.substr(start, pos_ - start);
  }

  // A decimal integer with an optional '-', at most `limit` in magnitude.
  std::int64_t read_index(std::string_view what, std::string_view ref_start, std::int64_t limit) {
    skip_spaces();
    const std::size_t start = pos_;
    bool negative = false;
    if (pos_ < src_.size() && src_[pos_] == '-') {
      negative = true;
      ++pos_;
    }
    const std::size_t digits = pos_;
    while (pos_ < src_.size() && is_digit(src_[pos_])) ++pos_;
    if (pos_ == digits) {
      fail(start, "expected " + std::string(what) + " (an integer) in '" + std::string(ref_start) +
                      "[...]'");
    }
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(src_.data() + digits, src_.data() + pos_, value);
    if (ec != std::errc() || value > limit) {
      fail(digits, std::string(what) + " " + std::string(src_.substr(digits, pos_ - digits)) +
                       " is out of range (at most " + std::to_string(limit) + ")");
    }
    skip_spaces();
    return negative ? -value : value;
  }

  void expect_close(char close, std::string_view opened) {
    if (pos_ >= src_.size() || src_[pos_] != close) {
      fail(pos_, std::string("expected '") + close + "' to close '" + std::string(opened) + "'" +
                     (pos_ < src_.size() ? " before " + show(src_[pos_]) : " at end of input"));
    }
    ++pos_;
  }

  // `in<K>` as a whole identifier: K, or -1 when the identifier is something else.
  static std::int64_t input_number(std::string_view name) {
    if (name.size() < 3 || name.substr(0, 2) != "in") return -1;
    std::int64_t k = 0;
    for (char c : name.substr(2)) {
      if (!is_digit(c)) return -1;
      k = k * 10 + (c - '0');
      if (k > kMaxInput) return kMaxInput + 1;
    }
    return k;
  }

  std::uint32_t checked_input(std::int64_t k, std::size_t at, std::string_view name) const {
    if (k > kMaxInput) {
      fail(at, "input number in '" + std::string(name) + "' is out of range (at most " +
                   std::to_string(kMaxInput) + ")");
    }
    return static_cast<std::uint32_t>(k);
  }

  void identifier() {
    const std::size_t start = pos_;
    const std::string_view name = read_identifier();
    if (const std::int64_t k = input_number(name); k >= 0) {
      DimRef ref;
      ref.kind = DimRef::Kind::kInputDim;
      ref.input = checked_input(k, start, name);
      if (pos_ >= src_.size() || src_[pos_] != '[') {
        fail(pos_, "expected '[' after '" + std::string(name) + "' (write " + std::string(name) +
                       "[j] for dim j of input " + std::to_string(k) + ")");
      }
      ++pos_;
      ref.index = read_index("an axis", name, kMaxIndex);
      expect_close(']', std::string(name) + "[");
      add(std::move(ref), start);
      return;
    }
    if (name == "attr") {
      if (pos_ >= src_.size() || src_[pos_] != '.') {
        fail(pos_, "expected '.' after 'attr' (write attr.NAME for an integer attribute)");
      }
      ++pos_;
      if (pos_ >= src_.size() || !is_ident_start(src_[pos_])) {
        fail(pos_, "expected an attribute name after 'attr.'");
      }
      DimRef ref;
      ref.kind = DimRef::Kind::kAttr;
      ref.attribute = std::string(read_identifier());
      if (pos_ < src_.size() && src_[pos_] == '[') {
        ++pos_;
        ref.kind = DimRef::Kind::kAttrAt;
        const std::string opened = "attr." + ref.attribute;
        ref.index = read_index("an element index", opened, kMaxIndex);
        expect_close(']', opened + "[");
      }
      add(std::move(ref), start);
      return;
    }
    if (const std::optional<DimRef::Kind> kind = input_function(name)) {
      std::size_t after = pos_;
      while (after < src_.size() && is_space(src_[after])) ++after;
      if (after < src_.size() && src_[after] == '(') {
        const std::string function(name);
        pos_ = after + 1;
        skip_spaces();
        const std::size_t arg = pos_;
        const std::string_view input = read_identifier();
        const std::int64_t k = input_number(input);
        if (k < 0) fail(arg, function + "() takes one input, as in " + function + "(in0)");
        DimRef ref;
        ref.kind = *kind;
        ref.input = checked_input(k, arg, input);
        skip_spaces();
        expect_close(')', function + "(");
        add(std::move(ref), start);
        return;
      }
    }
    copy(start, pos_);  // a model symbol or a function name: the parser's business
  }

  // The functions of one input; followed by anything but '(' each name is a model symbol.
  static std::optional<DimRef::Kind> input_function(std::string_view name) {
    if (name == "rank") return DimRef::Kind::kInputRank;
    if (name == "numel") return DimRef::Kind::kInputNumel;
    if (name == "elem_bytes") return DimRef::Kind::kInputElemBytes;
    if (name == "bytes") return DimRef::Kind::kInputBytes;
    return std::nullopt;
  }

  void add(DimRef ref, std::size_t start) {
    if (out_.refs.size() >= kMaxRefs) {
      fail(start, "more than " + std::to_string(kMaxRefs) + " references in one expression");
    }
    ref.text = std::string(src_.substr(start, pos_ - start));
    ref.offset = start;
    const std::string placeholder =
        std::string("`") + kPlaceholderMark + std::to_string(out_.refs.size()) + "`";
    out_.placeholder_starts.push_back(out_.text.size());
    for (char c : placeholder) {
      out_.text += c;
      out_.origin.push_back(start);
    }
    out_.refs.push_back(std::move(ref));
  }

  std::string_view src_;
  std::size_t pos_ = 0;
  Rewritten out_;
};

// The parser describes the operand it stumbled on by its first character; for a placeholder that
// is the backquote, so name the reference instead.
std::string explain(std::string reason, const Rewritten& r, std::size_t offset) {
  for (std::size_t k = 0; k < r.placeholder_starts.size(); ++k) {
    if (r.placeholder_starts[k] != offset) continue;
    const std::string tick = "'`'";
    if (const std::size_t at = reason.rfind(tick); at != std::string::npos) {
      reason.replace(at, tick.size(), "'" + r.refs[k].text + "'");
    }
  }
  return reason;
}

/// The storage width of input K's element type, or false with `error` when it has none.
bool input_bits(const DimRef& ref, const sdk::INodeView& node, const RuleRegistry* registry,
                std::uint32_t& bits, std::string& error) {
  const std::string input = "input " + std::to_string(ref.input);
  const std::int32_t code = node.input_dtype(ref.input);
  if (code == sdk::dtype::kUndefined) {
    error = input + " has an unknown element type";
    return false;
  }
  bits = dtype_bits(code, registry);
  if (bits == 0) {
    error = input + " is " + dtype_name(code, registry) + ", which has no fixed element size";
    return false;
  }
  if (ref.kind == DimRef::Kind::kInputElemBytes && bits % 8 != 0) {
    error = input + " is " + dtype_name(code, registry) + " (" + std::to_string(bits) +
            " bits an element), not a whole number of bytes; bytes(in" + std::to_string(ref.input) +
            ") rounds the tensor's bytes";
    return false;
  }
  return true;
}

/// numel(inK) (`bits` 0) or bytes(inK) of input K's `rank` dims, through the host's packing.
std::uint32_t tensor_amount(const sdk::ExprApi& api, const sdk::INodeView& node,
                            std::uint32_t input, std::int32_t rank, std::uint32_t bits) {
  std::vector<std::uint32_t> dims;
  dims.reserve(static_cast<std::size_t>(std::max(rank, 0)));
  for (std::int32_t a = 0; a < rank; ++a) {
    dims.push_back(node.input_dim_handle(input, static_cast<std::uint32_t>(a)));
  }
  const std::uint32_t count = dims.empty() ? api.integer(api.pool, 1)
                                           : api.nary(api.pool, sdk::ExprOp::kMul, dims.data(),
                                                      static_cast<std::uint32_t>(dims.size()));
  if (bits == 0) return count;
  const ElementPacking packing = element_packing(bits);
  const std::uint32_t factor = api.integer(api.pool, packing.factor);
  switch (packing.kind) {
    case ElementPacking::Kind::kWholeBytes:
      return api.binary(api.pool, sdk::ExprOp::kMul, count, factor);
    case ElementPacking::Kind::kPerByte:
      return api.binary(api.pool, sdk::ExprOp::kCeilDiv, count, factor);
    case ElementPacking::Kind::kRoundedBits:
      break;
  }
  const std::uint32_t rounded =
      api.binary(api.pool, sdk::ExprOp::kAdd,
                 api.binary(api.pool, sdk::ExprOp::kMul, count, factor), api.integer(api.pool, 7));
  return api.binary(api.pool, sdk::ExprOp::kFloorDiv, rounded, api.integer(api.pool, 8));
}

bool resolve(const DimRef& ref, const DimProgram& p, const sdk::INodeView& node,
             const AttrDefaults& defaults, const RuleRegistry* registry, std::uint32_t& out,
             std::string& error) {
  const sdk::ExprApi& api = node.expr();
  // The reference, and the whole expression when it is more than the reference.
  std::string who = "'" + ref.text + "'";
  std::string whole = p.text;
  for (char& c : whole) c = is_space(c) ? ' ' : c;  // one line, whatever the YAML scalar held
  const std::size_t first = whole.find_first_not_of(' ');
  if (first == std::string::npos ||
      whole.substr(first, whole.find_last_not_of(' ') + 1 - first) != ref.text) {
    who += " in '" + whole + "'";
  }
  who += ": ";
  switch (ref.kind) {
    case DimRef::Kind::kInputDim:
    case DimRef::Kind::kInputRank:
    case DimRef::Kind::kInputNumel:
    case DimRef::Kind::kInputElemBytes:
    case DimRef::Kind::kInputBytes: {
      const std::string input = "input " + std::to_string(ref.input);
      if (!node.has_input(ref.input)) {
        error = who + "the node has no " + input;
        return false;
      }
      std::uint32_t bits = 0;
      if (ref.kind == DimRef::Kind::kInputElemBytes || ref.kind == DimRef::Kind::kInputBytes) {
        if (!input_bits(ref, node, registry, bits, error)) {
          error = who + error;
          return false;
        }
        if (ref.kind == DimRef::Kind::kInputElemBytes) {
          out = api.integer(api.pool, bits / 8);
          return true;
        }
      }
      const std::int32_t rank = node.input_rank(ref.input);
      if (rank < 0) {
        error = who + input + " has an unknown rank";
        return false;
      }
      if (ref.kind == DimRef::Kind::kInputRank) {
        out = api.integer(api.pool, rank);
        return true;
      }
      if (ref.kind != DimRef::Kind::kInputDim) {
        out = tensor_amount(api, node, ref.input, rank, bits);
        return true;
      }
      const std::int64_t axis = ref.index < 0 ? ref.index + rank : ref.index;
      if (axis < 0 || axis >= rank) {
        error = who + input + " has rank " + std::to_string(rank);
        return false;
      }
      out = node.input_dim_handle(ref.input, static_cast<std::uint32_t>(axis));
      return true;
    }
    case DimRef::Kind::kAttr: {
      std::int64_t value = 0;
      if (!attribute_value(node, defaults, ref.attribute, value, error)) {
        error = who + error;
        return false;
      }
      out = api.integer(api.pool, value);
      return true;
    }
    case DimRef::Kind::kAttrAt: {
      const sdk::StringRef name(ref.attribute.data(), ref.attribute.size());
      const sdk::AttrType type = node.attribute_type(name);
      sdk::Span<std::int64_t> values;
      if (type != sdk::AttrType::kInts || !node.attr_ints(name, &values)) {
        error = who + (type == sdk::AttrType::kNone
                           ? "the node has no attribute '" + ref.attribute + "'"
                           : "attribute '" + ref.attribute + "' is " + attribute_type_name(type) +
                                 ", not INTS");
        return false;
      }
      const auto size = static_cast<std::int64_t>(values.size);
      const std::int64_t at = ref.index < 0 ? ref.index + size : ref.index;
      if (at < 0 || at >= size) {
        error = who + "attribute '" + ref.attribute + "' has " + std::to_string(size) +
                (size == 1 ? " element" : " elements");
        return false;
      }
      out = api.integer(api.pool, values.data[at]);
      return true;
    }
  }
  error = who + "unknown reference";
  return false;
}

}  // namespace

DimProgram compile_dim(std::string_view text) {
  const Rewritten r = Rewriter(text).run();
  Ast ast;
  std::string reason;
  try {
    ast = parse_ast(r.text, reason);
  } catch (const ExprError& e) {
    const std::size_t at = std::min(e.offset(), r.text.size());
    throw DimSyntaxError(r.origin[at], explain(reason.empty() ? e.what() : reason, r, at));
  }
  DimProgram p;
  p.text = std::string(text);
  p.refs = r.refs;
  p.lists = ast.lists;
  p.code.reserve(ast.nodes.size());
  for (const AstNode& n : ast.nodes) {
    DimInstr in{DimOp::kInt, n.a, n.b, n.value};
    switch (n.op) {
      case AstOp::kInt:
        break;
      case AstOp::kSym:
        in.op = DimOp::kSymbol;
        in.a = static_cast<std::uint32_t>(p.symbols.size());
        p.symbols.emplace_back(ast.name(n));
        break;
      case AstOp::kQuoted: {
        const std::string_view name = ast.name(n);
        if (!name.empty() && name[0] == kPlaceholderMark) {
          in.op = DimOp::kRef;
          std::uint32_t k = 0;
          std::from_chars(name.data() + 1, name.data() + name.size(), k);
          in.a = k;
          break;
        }
        // Handed back to the parser quoted, so that `a b` stays the symbol named "a b".
        std::string quoted = "`";
        for (char c : name) quoted += c == '`' ? std::string("``") : std::string(1, c);
        in.op = DimOp::kSymbol;
        in.a = static_cast<std::uint32_t>(p.symbols.size());
        p.symbols.push_back(quoted + "`");
        break;
      }
      case AstOp::kNeg:
        in.op = DimOp::kNeg;
        break;
      case AstOp::kSum:
        in.op = DimOp::kSum;
        break;
      case AstOp::kMul:
        in.op = DimOp::kMul;
        break;
      case AstOp::kFloorDiv:
        in.op = DimOp::kFloorDiv;
        break;
      case AstOp::kExactDiv:
        in.op = DimOp::kExactDiv;
        break;
      case AstOp::kMod:
        in.op = DimOp::kMod;
        break;
      case AstOp::kMax:
        in.op = DimOp::kMax;
        break;
      case AstOp::kMin:
        in.op = DimOp::kMin;
        break;
      case AstOp::kCeil:
        in.op = DimOp::kCeil;
        break;
      case AstOp::kFloatLit:
      case AstOp::kFloatDiv:
      case AstOp::kToFloat:
      case AstOp::kRound:
      case AstOp::kFloatFn:
        // parse_ast(text, reason) refuses floating-point syntax: a profile's dims are integers.
        throw DimSyntaxError(0, "floating-point syntax is not part of a dim expression");
    }
    p.code.push_back(in);
  }
  return p;
}

bool attribute_value(const sdk::INodeView& node, const AttrDefaults& defaults,
                     std::string_view name, std::int64_t& value, std::string& error) {
  const sdk::StringRef ref(name.data(), name.size());
  const sdk::AttrType type = node.attribute_type(ref);
  if (type == sdk::AttrType::kInt && node.attr_int(ref, &value)) return true;
  if (type == sdk::AttrType::kNone) {
    if (auto it = defaults.find(name); it != defaults.end()) {
      value = it->second;
      return true;
    }
    error = "the node has no attribute '" + std::string(name) + "' and the op declares no default";
    return false;
  }
  error = "attribute '" + std::string(name) + "' is " + attribute_type_name(type) + ", not INT";
  return false;
}

bool evaluate_dim(const DimProgram& p, const sdk::INodeView& node, const AttrDefaults& defaults,
                  const RuleRegistry* registry, std::uint32_t& result, std::string& error) {
  const sdk::ExprApi& api = node.expr();
  std::vector<std::uint32_t> vals(p.code.size());
  std::vector<std::uint32_t> args;
  auto binary = [&](sdk::ExprOp op, const DimInstr& in) {
    return api.binary(api.pool, op, vals[in.a], vals[in.b]);
  };
  auto list = [&](const DimInstr& in) {
    args.clear();
    for (std::uint32_t k = 0; k < in.b; ++k) {
      const std::uint32_t entry = p.lists[in.a + k];
      const std::uint32_t v = vals[entry & ~kDimNegate];
      args.push_back((entry & kDimNegate) != 0
                         ? api.binary(api.pool, sdk::ExprOp::kSub, api.integer(api.pool, 0), v)
                         : v);
    }
  };
  for (std::size_t i = 0; i < p.code.size(); ++i) {
    const DimInstr& in = p.code[i];
    switch (in.op) {
      case DimOp::kInt:
        vals[i] = api.integer(api.pool, in.value);
        break;
      case DimOp::kSymbol: {
        const std::string& s = p.symbols[in.a];
        vals[i] = api.parse(api.pool, s.data(), s.size());
        break;
      }
      case DimOp::kRef:
        if (!resolve(p.refs[in.a], p, node, defaults, registry, vals[i], error)) return false;
        break;
      case DimOp::kNeg:
        vals[i] = api.binary(api.pool, sdk::ExprOp::kSub, api.integer(api.pool, 0), vals[in.a]);
        break;
      case DimOp::kSum:
        list(in);
        vals[i] = api.nary(api.pool, sdk::ExprOp::kAdd, args.data(),
                           static_cast<std::uint32_t>(args.size()));
        break;
      case DimOp::kMul:
        vals[i] = binary(sdk::ExprOp::kMul, in);
        break;
      case DimOp::kFloorDiv:
        vals[i] = binary(sdk::ExprOp::kFloorDiv, in);
        break;
      case DimOp::kExactDiv:
        vals[i] = binary(sdk::ExprOp::kExactDiv, in);
        break;
      case DimOp::kMod:
        vals[i] = binary(sdk::ExprOp::kMod, in);
        break;
      case DimOp::kCeil:
        vals[i] = binary(sdk::ExprOp::kCeilDiv, in);
        break;
      case DimOp::kMax:
      case DimOp::kMin:
        list(in);
        vals[i] = api.nary(api.pool, in.op == DimOp::kMax ? sdk::ExprOp::kMax : sdk::ExprOp::kMin,
                           args.data(), static_cast<std::uint32_t>(args.size()));
        break;
    }
  }
  if (vals.empty()) {
    error = "empty expression";
    return false;
  }
  result = vals.back();
  return true;
}

}  // namespace cctx::detail
