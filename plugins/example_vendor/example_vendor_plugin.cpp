// com.example: the operators of an imaginary accelerator, one of each kind of rule a vendor needs,
// written with the SDK's rule kit (<cctx/sdk/kit.hpp>).
//
//   FusedGelu(X) -> Y            element-wise: Y has X's shape; Y may take over X's buffer
//   View(X) -> Y                 a view: Y is X flattened to 2-D and aliases X (no allocation)
//   FlashAttention(Q, K, V) -> O attention-like: O = Q's shape with V's last dim; symbolic scratch
//                                for the tiled score blocks: B*H*Sq*block*4 bytes
//   Compact(X) -> Y              data-dependent: Y is [n] with n unknown until run time
//   Pack(X) -> Y                 changes at since_version 2: v1 packs pairs (last dim /2), v2 takes
//                                a `factor` attribute
//
// A rule is a plain function; the kit's classes (FnShapeRule, ...) run it inside guarded(), so
// fail(), require_inputs() and check() end it by throwing, and the throw becomes the Status the
// host expects without leaving the plugin.
#include <cctx/sdk/kit.hpp>

namespace {

using namespace cctx::sdk;
using namespace cctx::sdk::kit;

constexpr char kDomain[] = "com.example";

// View: X flattened to [product of all but the last dim, last dim].
constexpr FnShapeRule kView{[](const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const Shape x = known_input(node, out, 0, node.input_dtype(0));
  if (x.rank() == 0) return set_shape(out, 0, node.input_dtype(0), Shape::unknown());
  const Dim rows = product(node, x.dims, 0, x.rank() - 1);
  return set_shape(out, 0, node.input_dtype(0), Shape::of({rows, x.dims.back()}));
}};

// FlashAttention: Q's shape with V's head size.
constexpr FnShapeRule kFlashAttention{[](const INodeView& node, IShapeSink& out) {
  require_inputs(node, 3);
  const Shape q = known_input(node, out, 0, node.input_dtype(0));
  const Shape v = known_input(node, out, 2, node.input_dtype(0));
  if (q.rank() != 4 || v.rank() != 4) return fail("FlashAttention expects 4-D Q, K, V");
  std::vector<Dim> dims = q.dims;
  dims[3] = v.dims[3];
  return set_shape(out, 0, node.input_dtype(0), Shape::of(dims));
}};

// Score blocks of `block` keys per query row, float32: B * H * Sq * block * 4 bytes.
constexpr FnScratchEstimator kFlashAttentionScratch{[](const INodeView& node, IScratchSink& out) {
  Shape q;
  if (!known_shape(node, 0, &q, 4)) return unsupported("Q has no 4-D shape");
  const std::int64_t block = node.attr_int_or("block", 64);
  return out.set_bytes(q.dims[0] * q.dims[1] * q.dims[2] * block * 4);
}};

// Compact: how many elements survive is known only at run time: a producer-named fresh symbol
// bounded by the input's element count.
constexpr FnShapeRule kCompact{[](const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const Shape x = input_shape(node, 0);
  std::int64_t lo = 0, hi = INT64_MAX;
  if (x.known) product(node, x.dims, 0, x.rank()).bounds(&lo, &hi);
  return set_shape(out, 0, node.input_dtype(0), Shape::of({fresh(node, out, 0, 0, 0, hi)}));
}};

// Pack: the last dim divided (rounding up) by 2, or by `factor` from since_version 2 on.
constexpr FnShapeRule kPack{[](const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  Shape x = known_input(node, out, 0, node.input_dtype(0));
  if (x.rank() == 0) return set_shape(out, 0, node.input_dtype(0), Shape::unknown());
  const std::int64_t factor = node.opset_version() >= 2 ? node.attr_int_or("factor", 2) : 2;
  if (factor <= 0) return fail("factor must be positive");
  x.dims.back() = ceil_div(x.dims.back(), factor);
  return set_shape(out, 0, node.input_dtype(0), x);
}};

Status register_rules(IRegistrar& r) noexcept {
  // Registration's calls never throw: the first failure is kept and returned by status().
  Registration reg = register_domain(r, kDomain, 1, 2);
  reg.shape("FusedGelu", 1, kSameAsInput0);
  reg.inplace("FusedGelu", 1, kReuseInput0);
  reg.shape("View", 1, kView);
  reg.inplace("View", 1, kAliasInput0);
  reg.shape("FlashAttention", 1, kFlashAttention);
  reg.scratch("FlashAttention", 1, kFlashAttentionScratch);
  reg.shape("Compact", 1, kCompact);
  reg.shape("Pack", {1, 2}, kPack);
  return reg.status();
}

}  // namespace

CCTX_DEFINE_PLUGIN("example_vendor", "1.0.0", register_rules)
