/// @file rules.hpp
/// The four rule kinds a plugin can register, and the host sinks they write their answers to.
///
/// Rules are plugin-owned objects (usually `static const`) that the host borrows for as long as
/// the plugin stays loaded. Interfaces have protected, non-virtual destructors: neither side ever
/// deletes the other's objects, and a rule with a trivial destructor can be `constinit`, so that
/// nothing of a plugin runs when it is loaded or unloaded (no static constructors or atexit
/// handlers). They are stateless and re-entrant: the host may call one rule for
/// several nodes, in any order. Every method is `noexcept`; wrap bodies in `guarded()` (plugin.hpp)
/// so an exception becomes a diagnostic instead of `std::terminate`.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cctx/sdk/abi.hpp"
#include "cctx/sdk/dims.hpp"
#include "cctx/sdk/node_view.hpp"
#include "cctx/sdk/types.hpp"

namespace cctx::sdk {
inline namespace v1 {

/// Assumptions a shape rule records (expressions.md section 7); they go to the report.
/// @since 1.0, every enumerator
enum class ConstraintKind : std::int32_t {
  kEq = 0,         ///< a == b
  kLe = 1,         ///< a <= b
  kNe = 2,         ///< a != b
  kBroadcast = 3,  ///< a == b or a == 1 or b == 1
  kOneOf = 4,      ///< a in {b, c}
  kDivides = 5,    ///< a divides b
};

/// Operations of float terms (IShapeSink::float_term_handle).
/// @since 1.5, every enumerator
enum class FloatTermOp : std::int32_t {
  kFromDim = 0,  ///< the integer dim `a`, converted
  kCast = 1,     ///< term `a`, converted to another floating type
  kAdd = 2,
  kSub = 3,
  kMul = 4,
  kDiv = 5,
  kMin = 6,
  kMax = 7,
  kNeg = 8,
  kAbs = 9,
  kSqrt = 10,
};

/// How a float term becomes an integer (IShapeSink::float_to_dim_handle).
/// @since 1.5, every enumerator
enum class FloatRounding : std::int32_t {
  kFloor = 0,
  kCeil = 1,
  kTrunc = 2,     ///< toward zero: a Cast to an integer type
  kHalfEven = 3,  ///< to nearest, ties to even: ONNX Round
};

/// Description of one value handed to or returned from a subgraph inference. For a sequence,
/// `dtype`/`rank`/`dims` describe every element and `value_size == 1` gives its length in
/// `values[0]` (-1: unknown length); a sequence has no other value.
struct ValueDesc {
  ValueKind kind = ValueKind::kTensor;     ///< @since 1.0
  std::int32_t dtype = dtype::kUndefined;  ///< @since 1.0
  std::int32_t rank = -1;                  ///< -1: unknown rank  @since 1.0
  const std::uint32_t* dims = nullptr;     ///< `rank` handles  @since 1.0
  std::int32_t value_size = -1;            ///< -1: no known value  @since 1.0
  const std::uint32_t* values = nullptr;   ///< `value_size` handles  @since 1.0
};

/// Receives the outputs of a subgraph inference, one call per body output.
class CCTX_SDK_VISIBLE IBodyOutputs {
 public:
  /// @since 1.0
  virtual void on_output(std::uint32_t index, const ValueDesc& value) noexcept = 0;

 protected:
  ~IBodyOutputs() = default;
};

/// Where a shape rule writes its answer. The host copies everything before the call returns.
class CCTX_SDK_VISIBLE IShapeSink {
 public:
  /// Sets output `out`: kind, element type and shape (`rank` handles; rank -1 = unknown rank).
  /// @since 1.0
  virtual Status set_output(std::uint32_t out, ValueKind kind, std::int32_t dtype,
                            std::int32_t rank, const std::uint32_t* dims) noexcept = 0;
  /// Sets the known value of output `out`: row-major, at most 64 elements, each an exact integer
  /// (an integer tensor, or a floating tensor whose elements are all exact integers).
  /// @since 1.0
  virtual Status set_output_value(std::uint32_t out, std::uint32_t count,
                                  const std::uint32_t* values) noexcept = 0;
  /// A fresh producer-named symbol `<Op>_<node>_o<out>_d<axis>` bounded by [lo, hi].
  /// @since 1.0
  virtual std::uint32_t fresh_dim(std::uint32_t out, std::uint32_t axis, std::int64_t lo,
                                  std::int64_t hi) noexcept = 0;
  /// Records an assumption the rule's result depends on (`c` is used by kOneOf only): a range
  /// where its formula holds, a value it takes not to be the copy marker. The model may run where
  /// it fails (the result then differs); what the operator cannot run without is `require`.
  /// @since 1.0
  virtual Status constraint(ConstraintKind kind, std::uint32_t a, std::uint32_t b,
                            std::uint32_t c) noexcept = 0;
  /// Records a warning against the node; the analysis goes on.
  /// @since 1.0
  virtual Status warn(StringRef message) noexcept = 0;
  /// Records why the rule failed and returns `code` (so `return out.fail(...)` reads naturally).
  /// @since 1.0
  virtual Status fail(Status code, StringRef message) noexcept = 0;
  /// Infers the GRAPH attribute `attr` of the node with the given body input descriptions (outer
  /// values stay visible) and reports each body output to `outputs`.
  /// @since 1.0
  virtual Status infer_body(StringRef attr, std::uint32_t input_count, const ValueDesc* inputs,
                            IBodyOutputs& outputs) noexcept = 0;
  /// Sets the length of sequence output `out` (`count` positions) and each element's shape:
  /// `ranks[k]` is element k's rank (-1: unknown) and `dims` holds the dims of the elements of
  /// known rank, one element after the other. Call it after set_output, which forgets them;
  /// without it the length stays unknown.
  /// @since 1.0
  virtual Status set_output_elements(std::uint32_t out, std::uint32_t count,
                                     const std::int32_t* ranks,
                                     const std::uint32_t* dims) noexcept = 0;
  /// Sets the length of sequence output `out` to the expression handle `length` (symbolic or
  /// concrete), every element being described by the shape set_output gave. Call it after
  /// set_output; a later set_output_elements replaces it. Use `set_output_length(out, Dim)`.
  /// (Named `set_output_length` in 1.1: the same slot.)
  /// @since 1.1
  virtual Status set_output_length_handle(std::uint32_t out, std::uint32_t length) noexcept = 0;
  /// Bounds `dim`, a symbol this call made with fresh_dim, by `upper`: an expression in the
  /// inputs' dims that the operator never exceeds (NonZero: the input's element count). A fact of
  /// the operator, not an assumption, so it is not listed among the constraints: evaluation takes
  /// it as the worst case of a data-dependent size that no assignment gives (`cctx analyze --eval`
  /// with only the input symbols). kInvalidArgument when `dim` is not a symbol fresh_dim returned
  /// during this call, or a handle is invalid. Use `bound_fresh_dim(Dim, Dim)` or kit::fresh_upto.
  /// @since 1.3
  virtual Status bound_fresh_dim_handle(std::uint32_t dim, std::uint32_t upper) noexcept = 0;
  /// Sets the value of floating output `out` as fractions `nums[k] / dens[k]` (at most 64
  /// elements, every denominator at least 1 under the bounds) whose floor, ceiling and truncation
  /// are those of what the runtime computes: a true division of integers the type holds exactly
  /// (`h / 32.0`, whose Ceil is `-((-h)//32)`), a product with an exact binary fraction (0.5).
  /// Elements that are all integers are stored as the value set_output_value sets. Call it after
  /// set_output. kInvalidArgument when a denominator is not proven >= 1 or a handle is invalid.
  /// Use kit::set_fractions.
  /// @since 1.3
  virtual Status set_output_fraction_handles(std::uint32_t out, std::uint32_t count,
                                             const std::uint32_t* nums,
                                             const std::uint32_t* dens) noexcept = 0;
  /// Output `out`, set as a tensor of unknown rank, holds `count` elements whatever its rank: an
  /// If whose branches give different ranks but the same number of elements (PyTorch's "squeeze
  /// if the size is 1"). Its bytes are then `count` x the element size instead of an unknown
  /// `bytes_<value>`, and the report says that the rank depends on which branch runs. Call it
  /// after set_output, which forgets it. kInvalidArgument when the output was not set as a tensor
  /// of unknown rank or the handle is invalid. Use `set_output_element_count(out, Dim)`.
  /// @since 1.4
  virtual Status set_output_element_count_handle(std::uint32_t out,
                                                 std::uint32_t count) noexcept = 0;
  /// After infer_body: `*count` is the element count of output `index` of the body it inferred
  /// last in this call, when that output is a tensor of unknown rank whose count is known (a
  /// nested If of branches that differ in rank); kUnsupported otherwise. ValueDesc has no room
  /// for it.
  /// @since 1.4
  virtual Status body_output_element_count_handle(std::uint32_t index,
                                                  std::uint32_t* count) noexcept = 0;
  /// Records what the operator cannot run without (`c` for kOneOf only): inputs that must
  /// broadcast, inner dimensions that must be equal, an integer divisor that must not be 0. The
  /// model fails or is undefined wherever it does not hold, so the host narrows the bounds of the
  /// one input symbol such a requirement of the main graph mentions to where it holds
  /// (semantics.md "Bounds derived from the model"), and later proofs use them. Listed among the
  /// constraints, marked required. Use `require(kind, Dim, Dim)`.
  /// @since 1.4
  virtual Status require_handles(ConstraintKind kind, std::uint32_t a, std::uint32_t b,
                                 std::uint32_t c) noexcept = 0;
  /// Makes a *float term* (expressions.md 4.5 "Floating-point sizes"): a value computed in
  /// floating point from dims, each operation rounded to `dtype` (dtype::kFloat or kDouble) as
  /// the runtime rounds it. kFromDim converts dim handle `a`; kCast converts term `a` to dtype;
  /// the other operations take terms of type `dtype` (`b` for the binary ones). Terms of
  /// constants are computed at once. kUnsupported (nothing made, the rule goes on) for another
  /// dtype, operands of another type, a result that is not finite, or a term too deep;
  /// kInvalidArgument for an invalid handle. Use kit::float_term.
  /// @since 1.5
  virtual Status float_term_handle(FloatTermOp op, std::int32_t dtype, std::uint32_t a,
                                   std::uint32_t b, std::uint32_t* out) noexcept = 0;
  /// The float term of the constant `value` of type `dtype`; kUnsupported when it is not finite
  /// or not a value of that type. Use kit::float_constant.
  /// @since 1.5
  virtual Status float_constant_handle(double value, std::int32_t dtype,
                                       std::uint32_t* out) noexcept = 0;
  /// Term `term` rounded to an integer dim (Floor, Ceil, a Cast to an integer type, Round): a
  /// constant for a term of constants, the dim itself for a converted dim its type holds
  /// exactly, else a symbol `<Op>_<node>_o<out>_v<element>` that evaluation computes from the
  /// term exactly as the runtime would (the same term and rounding give the same symbol).
  /// kUnsupported when a constant term's value is not finite or outside int64. Use
  /// kit::round_float_term.
  /// @since 1.5
  virtual Status float_to_dim_handle(std::uint32_t term, FloatRounding rounding, std::uint32_t out,
                                     std::uint32_t element, std::uint32_t* dim) noexcept = 0;
  /// Sets the value of floating output `out` as float terms, one per element (at most 64), for
  /// the values that are neither integers nor exact fractions. Call it after set_output. Use
  /// kit::set_float_terms.
  /// @since 1.5
  virtual Status set_output_float_handles(std::uint32_t out, std::uint32_t count,
                                          const std::uint32_t* terms) noexcept = 0;
  /// After infer_body: `*count` is the number of the nodes of the body it inferred last in this
  /// call (nested bodies included) whose shape rule refused its inputs (kInvalidArgument: the
  /// operator's contract is broken there, a rank or size it cannot take). Such a body cannot run
  /// with the inputs it was given: an If branch that refuses while the other does not is not the
  /// one that runs.
  /// @since 1.6
  virtual Status body_refusals(std::uint32_t* count) noexcept = 0;
  /// Body `attr` of this node does not run with the node's inputs (an If branch whose condition
  /// is decided the other way, or whose nodes refuse their inputs): the host leaves its working
  /// memory out of the node's scratch. Its values keep their shapes (the report lists them).
  /// kInvalidArgument when the node has no such graph attribute.
  /// @since 1.6
  virtual Status skip_body(StringRef attr) noexcept = 0;

  // ---- convenience (inline, compiled into the plugin) -----------------------------------------
  /// The length of sequence output `out`, symbolic or concrete (`node.constant(3)`).
  Status set_output_length(std::uint32_t out, Dim length) noexcept {
    return set_output_length_handle(out, length.handle());
  }
  /// An integer is not an expression handle: pass a Dim (`node.constant(n)` for n elements).
  template <class Number, std::enable_if_t<std::is_arithmetic_v<Number>, int> = 0>
  Status set_output_length(std::uint32_t, Number) noexcept = delete;
  /// Output `out` (unknown rank) holds `count` elements whatever its rank.
  Status set_output_element_count(std::uint32_t out, Dim count) noexcept {
    return set_output_element_count_handle(out, count.handle());
  }
  /// `dim`, a fresh symbol of this call, never exceeds `upper` (its worst case).
  Status bound_fresh_dim(Dim dim, Dim upper) noexcept {
    return bound_fresh_dim_handle(dim.handle(), upper.handle());
  }
  /// Records an assumption between dims (`c` for kOneOf only).
  Status constraint(ConstraintKind kind, Dim a, Dim b, Dim c = Dim()) noexcept {
    return constraint(kind, a.handle(), b.handle(), c.handle());
  }
  /// Records a requirement between dims (`c` for kOneOf only): require_handles.
  Status require(ConstraintKind kind, Dim a, Dim b, Dim c = Dim()) noexcept {
    return require_handles(kind, a.handle(), b.handle(), c.handle());
  }
  Status set_tensor(std::uint32_t out, std::int32_t dtype, std::int32_t rank,
                    const std::uint32_t* dims) noexcept {
    return set_output(out, ValueKind::kTensor, dtype, rank, dims);
  }
  Status set_unknown_rank(std::uint32_t out, std::int32_t dtype) noexcept {
    return set_output(out, ValueKind::kTensor, dtype, -1, nullptr);
  }

 protected:
  ~IShapeSink() = default;
};

/// Infers output kinds, dtypes, shapes and (for small integer tensors) values from the inputs.
class CCTX_SDK_VISIBLE IShapeRule {
 public:
  /// @since 1.0
  virtual Status infer(const INodeView& node, IShapeSink& out) const noexcept = 0;

 protected:
  ~IShapeRule() = default;
};

/// Where a tag rule reads and merges tags (merge follows semantics.md "Tags: Vocabulary and merge":
/// tags only rise).
class CCTX_SDK_VISIBLE ITagSink {
 public:
  /// @since 1.0
  virtual Tag input_tag(std::uint32_t i) const noexcept = 0;
  /// @since 1.0
  virtual Tag output_tag(std::uint32_t i) const noexcept = 0;
  /// @since 1.0
  virtual void merge_input_tag(std::uint32_t i, Tag tag) noexcept = 0;
  /// @since 1.0
  virtual void merge_output_tag(std::uint32_t i, Tag tag) noexcept = 0;
  /// Sets the node tag; it becomes sticky (wins over the inherited tag).
  /// @since 1.0
  virtual void set_node_tag(Tag tag) noexcept = 0;
  /// @since 1.0
  virtual Status fail(Status code, StringRef message) noexcept = 0;

 protected:
  ~ITagSink() = default;
};

/// Step 3 of the per-node tag algorithm (semantics.md "Tags: Per-node rule"): op-specific tagging.
class CCTX_SDK_VISIBLE ITagRule {
 public:
  /// @since 1.0
  virtual Status apply(const INodeView& node, ITagSink& tags) const noexcept = 0;

 protected:
  ~ITagRule() = default;
};

/// How a node's tag is inherited from its inputs when no explicit tag applies (step 5).
/// @since 1.0, every enumerator
enum class TagInherit : std::int32_t {
  kInput0 = 0,       ///< input 0's tag (the default for every op)
  kConcat = 1,       ///< weight if any tagged input is weight, else the shared tag, else ambiguous
  kControlFlow = 2,  ///< from the bodies' outputs (If/Loop/Scan)
  kNone = 3,         ///< never inherited
};

/// Where a consistent output tag propagates back to (step 7).
/// @since 1.0, every enumerator
enum class TagBackward : std::int32_t {
  kNone = 0,
  kAllInputs = 1,          ///< every input unless the tag is ambiguous (Concat)
  kInput0 = 2,             ///< input 0 (Identity, Cast, Reshape, ...)
  kInputs01WeightOnly = 3  ///< inputs 0 and 1, only for `weight` (binary arithmetic)
};

/// A tag imposed on an input position (step 2), applied only when the node has >= 2 inputs.
struct PositionalTag {
  std::uint32_t input;  ///< @since 1.0
  Tag tag;              ///< @since 1.0
};

/// Declarative tagging table of one operator (steps 1, 2, 5, 7 of semantics.md "Tags: Per-node
/// rule").
struct TagTraits {
  Tag explicit_tag = Tag::kNone;  ///< step 1 (Shape, Size -> kShape)  @since 1.0
  bool constant_like =
      false;  ///< step 1 for Constant: weight, or the outputs' shared tag  @since 1.0
  Span<PositionalTag> positional;  ///< step 2; copied by the host at registration  @since 1.0
  TagInherit inherit = TagInherit::kInput0;   ///< @since 1.0
  TagBackward backward = TagBackward::kNone;  ///< @since 1.0
};

/// Where an in-place policy declares its candidates (semantics.md "In-place reuse: Policies").
class CCTX_SDK_VISIBLE IInplaceSink {
 public:
  /// Output `out` may take over input `in`'s buffer when that buffer dies at this node.
  /// @since 1.0
  virtual Status may_reuse(std::uint32_t out, std::uint32_t in) noexcept = 0;
  /// Output `out` is a view of input `in`: it always shares the buffer and allocates nothing.
  /// @since 1.0
  virtual Status alias(std::uint32_t out, std::uint32_t in) noexcept = 0;
  /// @since 1.0
  virtual Status fail(Status code, StringRef message) noexcept = 0;
  /// Output `out` is written into input `in`'s buffer, which has room for `capacity_bytes` (an
  /// expression handle): a KV cache appended in place into a max-length buffer (a static cache,
  /// TensorScatter, onnxruntime-genai's shared past and present). The output allocates nothing
  /// and shares the buffer; the buffer holds max(its own bytes, capacity) from its creation (the
  /// caller allocates a graph input's capacity). Evaluations where the output's bytes exceed the
  /// capacity are refused naming the node: it cannot run there. Unlike may_reuse, the input
  /// need not die here, and a graph input's buffer may be written. kInvalidArgument for an
  /// invalid handle (it fails the rule). Use `write_into(out, in, Dim)`.
  /// @since 1.8
  virtual Status write_into_handle(std::uint32_t out, std::uint32_t in,
                                   std::uint32_t capacity_bytes) noexcept = 0;

  // ---- convenience (inline, compiled into the plugin) -----------------------------------------
  /// write_into_handle with the capacity as a Dim: `out.write_into(1, 3, max_len * row_bytes)`.
  Status write_into(std::uint32_t out, std::uint32_t in, Dim capacity_bytes) noexcept {
    return write_into_handle(out, in, capacity_bytes.handle());
  }

 protected:
  ~IInplaceSink() = default;
};

/// Declares which outputs may reuse or alias which inputs. Declaration order matters (7.4).
class CCTX_SDK_VISIBLE IInplacePolicy {
 public:
  /// @since 1.0
  virtual Status declare(const INodeView& node, IInplaceSink& out) const noexcept = 0;

 protected:
  ~IInplacePolicy() = default;
};

/// Where a scratch estimator writes the working bytes of a node.
class CCTX_SDK_VISIBLE IScratchSink {
 public:
  /// Working memory beyond inputs and outputs as a raw expression handle (Dim::handle()). Use
  /// `set_bytes(Dim)` or `set_constant_bytes(n)` instead. A handle that names no expression is
  /// refused and fails the estimate. (Named `set_bytes` in 1.0 and 1.1: the same slot.)
  /// @since 1.0
  virtual Status set_bytes_handle(std::uint32_t bytes) noexcept = 0;
  /// The estimate cannot be computed (missing attribute, unknown rank): the host reports the
  /// symbol `scratch_<Op>_<node>` instead of a silent 0.
  /// @since 1.0
  virtual Status fail(Status code, StringRef message) noexcept = 0;
  /// Working memory of a constant number of bytes: `out.set_constant_bytes(4096)`.
  /// @since 1.2
  virtual Status set_constant_bytes(std::uint64_t bytes) noexcept = 0;
  /// One more block of working memory, as a raw expression handle (use `add_block(Dim)`): the
  /// kernel allocates its working memory block by block, in call order, after its outputs, and
  /// holds every block until it returns. The node's scratch is the sum of its blocks;
  /// `set_bytes` replaces them with one. Totals are the same either way; an arena model places
  /// the blocks one by one, where a best-fit arena that does not split a chunk under twice the
  /// request wastes differently for many blocks than for one (sdk/README.md, "Scratch block by
  /// block").
  /// @since 1.10
  virtual Status add_block_handle(std::uint32_t bytes) noexcept = 0;

  // ---- convenience (inline, compiled into the plugin) -----------------------------------------
  /// Working memory in bytes, symbolic or concrete: `out.set_bytes(2 * node.input_dim(0, 0))`.
  Status set_bytes(Dim bytes) noexcept { return set_bytes_handle(bytes.handle()); }
  /// One block of the kernel's working memory, in the order the kernel allocates them.
  Status add_block(Dim bytes) noexcept { return add_block_handle(bytes.handle()); }
  template <class Number, std::enable_if_t<std::is_arithmetic_v<Number>, int> = 0>
  Status add_block(Number) noexcept = delete;
  /// An integer is not an expression handle: say `set_constant_bytes(n)` for n bytes, or
  /// `set_bytes(Dim)` for an expression (SDK 1.1 read `set_bytes(4096)` as handle 4096).
  template <class Number, std::enable_if_t<std::is_arithmetic_v<Number>, int> = 0>
  Status set_bytes(Number) noexcept = delete;

 protected:
  ~IScratchSink() = default;
};

/// Estimates the extra working memory of a node (semantics.md section 9).
class CCTX_SDK_VISIBLE IScratchEstimator {
 public:
  /// @since 1.0
  virtual Status estimate(const INodeView& node, IScratchSink& out) const noexcept = 0;

 protected:
  ~IScratchEstimator() = default;
};

}  // namespace v1
}  // namespace cctx::sdk
