// com.example: the operators of an imaginary accelerator, one of each kind of rule a vendor needs.
//
//   FusedGelu(X) -> Y            element-wise: Y has X's shape; Y may take over X's buffer
//   View(X) -> Y                 a view: Y is X flattened to 2-D and aliases X (no allocation)
//   FlashAttention(Q, K, V) -> O attention-like: O = Q's shape with V's last dim; symbolic scratch
//                                for the tiled score blocks: B*H*Sq*block*4 bytes
//   Compact(X) -> Y              data-dependent: Y is [n] with n unknown until run time
//   Pack(X) -> Y                 changes at since_version 2: v1 packs pairs (last dim /2), v2 takes
//                                a `factor` attribute
#include <cctx/sdk/plugin.hpp>
#include <cctx/sdk/shape_helpers.hpp>
#include <string>

namespace {

using namespace cctx::sdk;

constexpr char kDomain[] = "com.example";

Status fail(IShapeSink& out, const std::string& message) {
  return out.fail(Status::kInvalidArgument, StringRef(message.data(), message.size()));
}

class FusedGeluShape final : public IShapeRule {
 public:
  Status infer(const INodeView& node, IShapeSink& out) const noexcept override {
    return guarded(out, [&] {
      if (node.input_count() != 1) return fail(out, "FusedGelu takes exactly one input");
      return set_shape(out, 0, node.input_dtype(0), input_shape(node, 0));
    });
  }
};

class ReuseInput0 final : public IInplacePolicy {
 public:
  Status declare(const INodeView&, IInplaceSink& out) const noexcept override {
    return out.may_reuse(0, 0);
  }
};

class ViewShape final : public IShapeRule {
 public:
  Status infer(const INodeView& node, IShapeSink& out) const noexcept override {
    return guarded(out, [&] {
      Shape x = input_shape(node, 0);
      if (!x.known || x.rank() == 0)
        return set_shape(out, 0, node.input_dtype(0), Shape::unknown());
      Dim rows = product(node, x.dims, 0, x.rank() - 1);
      return set_shape(out, 0, node.input_dtype(0), Shape::of({rows, x.dims.back()}));
    });
  }
};

class AliasInput0 final : public IInplacePolicy {
 public:
  Status declare(const INodeView&, IInplaceSink& out) const noexcept override {
    return out.alias(0, 0);
  }
};

class FlashAttentionShape final : public IShapeRule {
 public:
  Status infer(const INodeView& node, IShapeSink& out) const noexcept override {
    return guarded(out, [&] {
      Shape q = input_shape(node, 0), v = input_shape(node, 2);
      if (!q.known || !v.known) return set_shape(out, 0, node.input_dtype(0), Shape::unknown());
      if (q.rank() != 4 || v.rank() != 4) return fail(out, "FlashAttention expects 4-D Q, K, V");
      std::vector<Dim> dims = q.dims;
      dims[3] = v.dims[3];
      return set_shape(out, 0, node.input_dtype(0), Shape::of(dims));
    });
  }
};

// Score blocks of `block` keys per query row, float32: B * H * Sq * block * 4 bytes.
class FlashAttentionScratch final : public IScratchEstimator {
 public:
  Status estimate(const INodeView& node, IScratchSink& out) const noexcept override {
    return guarded(out, [&] {
      Shape q = input_shape(node, 0);
      if (!q.known || q.rank() != 4) return out.fail(Status::kUnsupported, "Q has no 4-D shape");
      const std::int64_t block = node.attr_int_or("block", 64);
      return out.set_bytes(q.dims[0] * q.dims[1] * q.dims[2] * block * 4);
    });
  }
};

class CompactShape final : public IShapeRule {
 public:
  Status infer(const INodeView& node, IShapeSink& out) const noexcept override {
    return guarded(out, [&] {
      Shape x = input_shape(node, 0);
      std::int64_t lo = 0, hi = INT64_MAX;
      if (x.known) product(node, x.dims, 0, x.rank()).bounds(&lo, &hi);
      // How many elements survive is known only at run time: a producer-named fresh symbol
      // bounded by the input's element count.
      Dim n(&node.expr(), out.fresh_dim(0, 0, 0, hi));
      return set_shape(out, 0, node.input_dtype(0), Shape::of({n}));
    });
  }
};

class PackShape final : public IShapeRule {
 public:
  Status infer(const INodeView& node, IShapeSink& out) const noexcept override {
    return guarded(out, [&] {
      Shape x = input_shape(node, 0);
      if (!x.known || x.rank() == 0)
        return set_shape(out, 0, node.input_dtype(0), Shape::unknown());
      const std::int64_t factor = node.opset_version() >= 2 ? node.attr_int_or("factor", 2) : 2;
      if (factor <= 0) return fail(out, "factor must be positive");
      x.dims.back() = ceil_div(x.dims.back(), factor);
      return set_shape(out, 0, node.input_dtype(0), x);
    });
  }
};

Status register_rules(IRegistrar& r) noexcept {
  static const FusedGeluShape kFusedGelu;
  static const ReuseInput0 kReuse;
  static const ViewShape kView;
  static const AliasInput0 kAlias;
  static const FlashAttentionShape kAttention;
  static const FlashAttentionScratch kAttentionScratch;
  static const CompactShape kCompact;
  static const PackShape kPack;
  return guarded(r, [&] {
    Status s = r.declare_domain(kDomain, 1, 2);
    if (s == Status::kOk) s = r.add_shape_rule({kDomain, "FusedGelu", 1}, &kFusedGelu);
    if (s == Status::kOk) s = r.add_inplace_policy({kDomain, "FusedGelu", 1}, &kReuse);
    if (s == Status::kOk) s = r.add_shape_rule({kDomain, "View", 1}, &kView);
    if (s == Status::kOk) s = r.add_inplace_policy({kDomain, "View", 1}, &kAlias);
    if (s == Status::kOk) s = r.add_shape_rule({kDomain, "FlashAttention", 1}, &kAttention);
    if (s == Status::kOk)
      s = r.add_scratch_estimator({kDomain, "FlashAttention", 1}, &kAttentionScratch);
    if (s == Status::kOk) s = r.add_shape_rule({kDomain, "Compact", 1}, &kCompact);
    if (s == Status::kOk) s = r.add_shape_rule({kDomain, "Pack", 1}, &kPack);
    if (s == Status::kOk) s = r.add_shape_rule({kDomain, "Pack", 2}, &kPack);
    return s;
  });
}

}  // namespace

CCTX_DEFINE_PLUGIN("example_vendor", "1.0.0", register_rules)
