// Expressions of declarative ops (config/profiles/README.md, "Declarative ops"): the grammar of
// expressions.md section 2 plus references to the node being analysed, `inK[j]` (dim j of input
// K, negative j counting from the end), `rank(inK)`, `numel(inK)` (the product of its dims),
// `elem_bytes(inK)` (the bytes of one element of its type), `bytes(inK)` (its storage bytes),
// `attr.NAME` (an INT attribute) and `attr.NAME[i]` (element i of an INTS attribute). An expression
// is compiled once, when the profile is read, and evaluated per node through the SDK's ExprApi,
// exactly as a plugin's rule computes its dims.
#pragma once

#include <cctx/sdk/node_view.hpp>
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cctx {
class RuleRegistry;
}

namespace cctx::detail {

/// A reference to the node inside an expression.
struct DimRef {
  enum class Kind : std::uint8_t {
    kInputDim,
    kInputRank,
    kInputNumel,      ///< numel(inK)
    kInputElemBytes,  ///< elem_bytes(inK)
    kInputBytes,      ///< bytes(inK)
    kAttr,
    kAttrAt,
  };
  Kind kind = Kind::kInputDim;
  std::uint32_t input = 0;  ///< every kInput* kind
  std::int64_t index = 0;   ///< axis (kInputDim) or element (kAttrAt); negative counts from the end
  std::string attribute;    ///< kAttr, kAttrAt
  std::string text;         ///< as written: "in0[-1]", "attr.num_heads"
  std::size_t offset = 0;   ///< byte offset of `text` in the expression
};

enum class DimOp : std::uint8_t {
  kInt,       // value
  kSymbol,    // symbols[a]: a model symbol, as text for ExprApi::parse
  kRef,       // refs[a]
  kNeg,       // -code[a]
  kSum,       // lists[a, a+b); an entry with kDimNegate set is subtracted
  kMul,       // a * b
  kFloorDiv,  // a // b
  kExactDiv,  // a /: b
  kMod,       // a % b
  kMax,       // lists[a, a+b)
  kMin,       // lists[a, a+b)
  kCeil,      // CeilToInt(a, b)
};

inline constexpr std::uint32_t kDimNegate = 0x80000000U;

struct DimInstr {
  DimOp op = DimOp::kInt;
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  std::int64_t value = 0;
};

/// A compiled expression: instructions in post-order (operands first), the result last, so that
/// evaluation is one forward loop whatever the nesting.
struct DimProgram {
  std::vector<DimInstr> code;
  std::vector<std::uint32_t> lists;
  std::vector<std::string> symbols;
  std::vector<DimRef> refs;  ///< in source order
  std::string text;          ///< the expression as written, for messages
};

/// True for the references to an input (inK[j], rank(inK), numel(inK), ...), whose `input` is K.
inline bool refers_to_input(const DimRef& ref) {
  return ref.kind != DimRef::Kind::kAttr && ref.kind != DimRef::Kind::kAttrAt;
}

/// A syntax error at a byte offset of the expression text; what() is the bare reason.
class DimSyntaxError : public std::runtime_error {
 public:
  DimSyntaxError(std::size_t offset, const std::string& reason)
      : std::runtime_error(reason), offset_(offset) {}
  std::size_t offset() const noexcept { return offset_; }

 private:
  std::size_t offset_;
};

/// Compiles `text`. Throws DimSyntaxError (bad reference, syntax error, literal out of range).
DimProgram compile_dim(std::string_view text);

/// The op's `defaults:` for integer attributes the node may omit.
using AttrDefaults = std::map<std::string, std::int64_t, std::less<>>;

/// Evaluates `program` for `node` through node.expr(). Returns false with `error` set when a
/// reference cannot be resolved: an absent input, an unknown rank, an axis out of range, an
/// unknown element type or one without a byte size, a missing attribute without a default, an
/// attribute of another type. Element types a plugin registered are sized from `registry`.
bool evaluate_dim(const DimProgram& program, const sdk::INodeView& node,
                  const AttrDefaults& defaults, const RuleRegistry* registry, std::uint32_t& result,
                  std::string& error);

/// The value of INT attribute `name`, or its default. False with `error` set otherwise.
bool attribute_value(const sdk::INodeView& node, const AttrDefaults& defaults,
                     std::string_view name, std::int64_t& value, std::string& error);

}  // namespace cctx::detail
