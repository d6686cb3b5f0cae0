// A graph rewrite stated as data: a pattern of nodes and what replaces them, in a small text
// form that plugins register (IRegistrar::add_rewrite) and docs/design/rewrites.md describes.
// It is a runtime's graph optimisation as far as memory sees it: which nodes become one, which
// values stop existing, which operator runs instead.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cctx {

/// One argument of a pattern or replacement node.
struct RewriteArg {
  std::string var;        ///< the variable's name
  bool optional = false;  ///< `?x`: the input may be absent (then x is absent everywhere)
  bool constant = false;  ///< `const x`: an initializer or a Constant node's output
  bool rest = false;      ///< `*x`: every remaining input, in order
  /// `const w{d1%16|d1<16, d0=8, d1>15}`: tests of the constant's dims, every clause (`,`) holding
  /// through one of its alternatives (`|`); `scalar`: one element (every dim 1, or rank 0);
  /// `rank=4`: four dims; `value=1`: one element, equal to the integer; `zeros`: every element
  /// 0; `whole`: every element a whole number of at least 1; `e2=1`: element 2 equals the
  /// integer (at most 64 elements read: only small constants are ever read). A value that is not a
  /// constant takes every test but `scalar` and `value=V`, answered by the shape the runtime's
  /// inference gives it (ValueTypeQuery; a dim tested must be an integer there); `like=v` (values
  /// only): the same dims as variable v's, each the same integer or the same name (ONNX Runtime's
  /// test before fusing an Add of two values); `type=1`: the element type (ONNX's number: 1
  /// float, 3 int8, ...), of a constant or as the inference gives it; `same=v` (values only;
  /// `!same=v`: not so): the
  /// same dims by `like`'s test or by derivation, dim by dim (ONNX Runtime's NCHWc transformer's
  /// test: graph_rewrite.cpp, `DimOrigins`); `readers=N` (values only): N reads of the value by
  /// live nodes (one per input slot), a graph output or a read inside a body counting as one
  /// more (ONNX Runtime's tests of a node's output edges before a QDQ fusion).
  struct DimTest {
    enum class Op : std::uint8_t {
      kMultipleOf,
      kBelow,
      kAbove,
      kEquals,
      kScalar,
      kRank,
      kValue,
      kLike,
      kZeros,
      kWhole,
      kElement,
      kSame,
      kType,
      kReaders
    };
    Op op = Op::kMultipleOf;
    std::int32_t dim = 0;
    std::int64_t value = 0;
    std::string other;     ///< kLike, kSame: the variable whose dims these must equal
    bool negated = false;  ///< `!same=v`
  };
  std::vector<std::vector<DimTest>> dim_tests;
};

/// `Op{group?=1, !activation, perm=[0,2,1]}(...)`: a pattern node's integer attribute equals a
/// value (`?=`: or is absent), differs from it (`!=`: or is absent), or is absent (`!name`); an
/// integer list attribute equals a list (`=` only); `mode="nearest"` (`=` or `?=`) a string one;
/// `perm` alone: the attribute is present.
struct AttrTest {
  enum class Op : std::uint8_t { kEquals, kEqualsOrAbsent, kDiffers, kAbsent, kPresent };
  Op op = Op::kEquals;
  std::string name;
  std::int64_t value = 0;
  bool is_list = false;              ///< `name=[...]`: compares the attribute's ints
  std::vector<std::int64_t> values;  ///< the list, when is_list
  bool is_string = false;            ///< `name="text"`: compares the attribute's string
  std::string text;                  ///< the string, when is_string
};

/// An attribute of a replacement node.
struct RewriteAttr {
  enum class Kind : std::uint8_t {
    kCopyFrom,  ///< `[c]`: every attribute of the node that produced variable `from`
    kString,    ///< `[name="text"]`
    kInt,       ///< `[name=3]`
    kOpTypeOf,  ///< `[name=@y]`: the op type of the node that produced variable `from`
    kDimOf,     ///< `[name=dim(w,0)]`: dim `integer` of the constant bound to variable `from`
    kFloat,     ///< `[name=0.5]`: a number with a fraction or an exponent
    kIntsOf,    ///< `[name=ints(v)]`: the whole-number contents of the constant bound to v
    kInts,      ///< `[name=(0, -1, 16)]`: a list of integers
    kTensor,    ///< `[value=tensor(0, -1, 16)]`: a 1-D int64 tensor (a Constant's shape)
    /// `[value=tensor(t.perm)]`: a 1-D int64 tensor of the integer list attribute `text` of the
    /// node that produced variable `from`
    kTensorOfAttr,
    /// `[value=uint8_of(z)]`: a uint8 tensor of the int8 constant bound to `from`, each element
    /// plus 128, of its dims (ONNX Runtime's QDQS8ToU8 zero point)
    kUint8Of,
  };
  Kind kind = Kind::kCopyFrom;
  std::string name;
  std::string from;  ///< the variable, for kCopyFrom and kOpTypeOf
  std::string text;
  std::int64_t integer = 0;
  float real = 0.0F;                   ///< kFloat
  std::vector<std::int64_t> integers;  ///< kInts, kTensor
};

/// Which nodes a pattern node (or a reroute) accepts: `[!][DOMAIN:]Op|Other` or `DOMAIN:*`,
/// with `|@mark` alternatives (or marks alone: `@blocked`). A node a replacement marked
/// (`y = Relu(x) @blocked`: it runs on a layout of the runtime's own) is accepted only through
/// its mark; an unmarked node only through its domain and operator.
struct RewriteOps {
  std::string domain;                 ///< normalised: "" for ai.onnx
  std::vector<std::string> op_types;  ///< alternatives; empty with any_op
  std::vector<std::string> marks;     ///< `@mark` alternatives
  bool any_op = false;                ///< `DOMAIN:*`
  bool negated = false;               ///< `!...`: every node the rest does not accept
  bool accepts(std::string_view node_domain, std::string_view op_type,
               std::string_view mark = {}) const;
};

/// One statement of a rule:
///  - `y0, y1 = domain:Op|Other(args) [attrs]`: a node (a pattern's may be `keep`: matched and
///    required, but left in place, its outputs untouched; or `not`: a condition on its output's
///    producer);
///  - `y = x` (replacement): a rename, readers of y read x;
///  - `reroute p -> q for OPS` (replacement): the readers of p that OPS accepts read q instead;
///    a match where no reader would change is not applied;
///  - `y <- x` (replacement): x's producer writes y instead, and x's readers read y (an
///    elimination whose output is a graph output: x must have a producer and be nobody's
///    outside the match).
struct RewriteNode {
  enum class Kind : std::uint8_t { kNode, kRename, kReroute, kTakeName };
  Kind kind = Kind::kNode;
  bool keep = false;
  /// `not x = OPS(...)` (pattern only): x must not be made by a node OPS accepts (a graph input,
  /// an initializer or any other node's output passes); nothing is matched or removed.
  bool absent = false;
  RewriteOps ops;                    ///< the node's operator; a reroute's readers
  std::vector<std::string> outputs;  ///< `_` for an output that must be absent or unread
  /// Per output, written `$y` in a pattern: the value must be a graph output.
  std::vector<bool> graph_outputs;
  /// Per output, written `~y` in a pattern: the value must not be a graph output.
  std::vector<bool> not_graph_outputs;
  /// A replacement node's mark (`... @blocked`): later patterns accept it through `@blocked`.
  std::string mark;
  std::vector<RewriteArg> inputs;       ///< a rename's source; a reroute's p and q
  std::vector<RewriteAttr> attributes;  ///< replacement nodes only
  std::vector<AttrTest> attr_tests;     ///< pattern nodes only
  /// `Add{ordered}(x, const c)`: a commutative operator's inputs in this order only (ONNX
  /// Runtime's fusions often want the constant second).
  bool ordered = false;
  bool is_rename() const { return kind == Kind::kRename; }
  bool is_node() const { return kind == Kind::kNode; }
  const std::string& op_type() const { return ops.op_types.front(); }
};

struct RewriteRule {
  std::string name;
  std::string origin;  ///< the plugin that registered it
  /// Rules apply pass by pass, in ascending order; within one pass, at each node in graph order
  /// every rule of the pass in registration order, until nothing changes.
  std::int32_t pass = 0;
  std::vector<RewriteNode> pattern;            ///< matched from the last node up through its inputs
  std::vector<RewriteNode> replacement;        ///< in order
  std::string pattern_text, replacement_text;  ///< as registered, for `cctx plugins`
  /// The pattern node that makes each variable (filled by parse_rewrite_rule).
  std::map<std::string, std::size_t, std::less<>> produced_by;
  /// A rewrite the framework carries out itself, named by the pattern `builtin:NAME` with an
  /// empty replacement; empty for a pattern rule: kCommonSubexpressions, kSameTypeCasts or
  /// kConstantReshapeShapes.
  std::string builtin;
};

/// `builtin:common_subexpressions`: a node equal to an earlier live one (operator, inputs,
/// attributes; no body, not a random or Constant node, no output the graph returns or a body
/// reads) goes, its readers reading the earlier node's outputs (ONNX Runtime's
/// CommonSubexpressionElimination, level basic).
inline constexpr std::string_view kCommonSubexpressions = "common_subexpressions";

/// `builtin:same_type_casts`: a Cast to the element type its input already has goes, its readers
/// reading the input (ONNX Runtime's CastElimination, level basic). The input's type is a
/// constant's own or what ValueTypeQuery says; unknown keeps the Cast.
inline constexpr std::string_view kSameTypeCasts = "same_type_casts";

/// `builtin:constant_reshape_shapes`: a Reshape whose shape is a Concat (read by it alone) of
/// parts that are each a constant of integers (or a Cast of one), the Reshape input's own dim k
/// at position k (Shape, Gather of index k, Unsqueeze at axis 0: written 0), or one element
/// the runtime's inference cannot tell (written -1, once at most) reads a constant shape
/// instead; the Concat, and the nodes that fed it alone, go (ONNX Runtime's ReshapeFusion,
/// level basic).
inline constexpr std::string_view kConstantReshapeShapes = "constant_reshape_shapes";

/// `builtin:unique_dequantize_per_reader`: a DequantizeLinear read more than once (by two
/// nodes, twice by one node, or also as a graph output or inside a body) gets a copy per read
/// but the first (per read when the graph or a body reads it), each written next to it: every
/// quantized operator then has a DequantizeLinear of its own to fuse (ONNX Runtime's
/// EnsureUniqueDQForNodeUnit, level basic). Each copy is a buffer of its own.
inline constexpr std::string_view kUniqueDequantizePerReader = "unique_dequantize_per_reader";

/// Parses a rule; throws Error (exit code 4, a plugin's fault) naming the rule and what is
/// wrong: a syntax error, a pattern node its last node does not reach, a replacement that reads
/// or writes a variable the pattern does not bind.
RewriteRule parse_rewrite_rule(std::string name, std::string_view pattern,
                               std::string_view replacement, std::int32_t pass = 0);

}  // namespace cctx
