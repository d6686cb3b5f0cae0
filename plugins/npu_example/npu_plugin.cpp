// An NPU vendor's four operators in C++ (the same ops, contracts and figures as npu.yaml, the
// declarative form): com.npu::LayerNorm, MatMul4Bit (two 4-bit weights per byte), KvAppend (a
// static KV cache appended in place: IInplaceSink::write_into) and FusedAttention. Activations
// are float32 [B, S, D]; the KV cache [B, P, D]. Each contract is checked where the rule starts:
// a provably false one refuses the node, the others become requirements of the node.
#include <cctx/sdk/plugin.hpp>
#include <cctx/sdk/shape_helpers.hpp>
#include <initializer_list>

namespace {
using namespace cctx::sdk;

/// Every input of `node` has `rank` and, when given, the element type `type`.
Status check_inputs(const INodeView& node, IShapeSink& out,
                    std::initializer_list<std::pair<std::int32_t, std::int32_t>> rank_and_type) {
  std::uint32_t i = 0;
  for (auto [rank, type] : rank_and_type) {
    if (!node.has_input(i)) return out.fail(Status::kInvalidArgument, "an input is missing");
    if (node.input_rank(i) != rank) return out.fail(Status::kInvalidArgument, "wrong rank");
    if (node.input_dtype(i) != type) return out.fail(Status::kInvalidArgument, "wrong type");
    ++i;
  }
  return Status::kOk;
}

/// `a kind b` must hold: refused when provably false, else a requirement of the node.
Status require(IShapeSink& out, ConstraintKind kind, Dim a, Dim b) {
  std::int64_t remainder = 0;
  const bool refused = kind == ConstraintKind::kEq   ? a.provably_ne(b)
                       : kind == ConstraintKind::kLe ? a.provably_gt(b)
                                                     : mod(b, a).get_int(&remainder) && remainder;
  if (refused) return out.fail(Status::kInvalidArgument, "a requirement does not hold");
  return out.require(kind, a, b);
}

#define NPU_CHECK(expr)                            \
  if (const Status s = (expr); s != Status::kOk) { \
    return s;                                      \
  }

class LayerNormShape final : public IShapeRule {
 public:
  Status infer(const INodeView& node, IShapeSink& out) const noexcept override {
    NPU_CHECK(check_inputs(node, out, {{3, dtype::kFloat}, {1, dtype::kFloat}}));
    NPU_CHECK(require(out, ConstraintKind::kEq, node.input_dim(0, 2), node.input_dim(1, 0)));
    return set_shape(out, 0, node.input_dtype(0), input_shape(node, 0));
  }
};
class LayerNormReuse final : public IInplacePolicy {
 public:
  Status declare(const INodeView&, IInplaceSink& out) const noexcept override {
    return out.may_reuse(0, 0);
  }
};
class LayerNormScratch final : public IScratchEstimator {
 public:
  Status estimate(const INodeView& node, IScratchSink& out) const noexcept override {
    return out.set_bytes(2 * node.input_dim(0, 0) * node.input_dim(0, 1) * 4);
  }
};

class MatMul4BitShape final : public IShapeRule {
 public:
  Status infer(const INodeView& node, IShapeSink& out) const noexcept override {
    NPU_CHECK(check_inputs(node, out, {{3, dtype::kFloat}, {2, dtype::kUint8}}));
    NPU_CHECK(require(out, ConstraintKind::kEq, node.input_dim(0, 2), 2 * node.input_dim(1, 1)));
    return set_shape(out, 0, node.input_dtype(0),
                     Shape::of({node.input_dim(0, 0), node.input_dim(0, 1), node.input_dim(1, 0)}));
  }
};
class MatMul4BitScratch final : public IScratchEstimator {
 public:
  Status estimate(const INodeView& node, IScratchSink& out) const noexcept override {
    return out.set_bytes(node.input_dim(1, 0) * 2 * node.input_dim(1, 1) * 4);
  }
};

/// The attribute `name`, which the node must have.
bool required_attribute(const INodeView& node, const char* name, std::int64_t* value) {
  return node.attr_int(StringRef::from_c_str(name), value);
}

class KvAppendShape final : public IShapeRule {
 public:
  Status infer(const INodeView& node, IShapeSink& out) const noexcept override {
    NPU_CHECK(check_inputs(node, out, {{3, dtype::kFloat}, {3, dtype::kFloat}}));
    std::int64_t max_len = 0;
    if (!required_attribute(node, "max_len", &max_len)) {
      return out.fail(Status::kInvalidArgument, "max_len is required");
    }
    const Dim rows = node.input_dim(0, 1) + node.input_dim(1, 1);
    NPU_CHECK(require(out, ConstraintKind::kEq, node.input_dim(0, 0), node.input_dim(1, 0)));
    NPU_CHECK(require(out, ConstraintKind::kEq, node.input_dim(0, 2), node.input_dim(1, 2)));
    NPU_CHECK(require(out, ConstraintKind::kLe, rows, node.constant(max_len)));
    return set_shape(out, 0, node.input_dtype(0),
                     Shape::of({node.input_dim(0, 0), rows, node.input_dim(0, 2)}));
  }
};
class KvAppendInPlace final : public IInplacePolicy {
 public:
  Status declare(const INodeView& node, IInplaceSink& out) const noexcept override {
    std::int64_t max_len = 0;
    if (!required_attribute(node, "max_len", &max_len) || node.input_rank(0) != 3) {
      return out.fail(Status::kUnsupported, "max_len or past's rank missing");
    }
    return out.write_into(0, 0, node.input_dim(0, 0) * max_len * node.input_dim(0, 2) * 4);
  }
};

class FusedAttentionShape final : public IShapeRule {
 public:
  Status infer(const INodeView& node, IShapeSink& out) const noexcept override {
    NPU_CHECK(
        check_inputs(node, out, {{3, dtype::kFloat}, {3, dtype::kFloat}, {3, dtype::kFloat}}));
    std::int64_t heads = 0;
    if (!required_attribute(node, "num_heads", &heads)) {
      return out.fail(Status::kInvalidArgument, "num_heads is required");
    }
    NPU_CHECK(require(out, ConstraintKind::kEq, node.input_dim(0, 2), node.input_dim(1, 2)));
    NPU_CHECK(require(out, ConstraintKind::kEq, node.input_dim(1, 1), node.input_dim(2, 1)));
    NPU_CHECK(require(out, ConstraintKind::kEq, node.input_dim(1, 2), node.input_dim(2, 2)));
    NPU_CHECK(require(out, ConstraintKind::kDivides, node.constant(heads), node.input_dim(0, 2)));
    return set_shape(out, 0, node.input_dtype(0), input_shape(node, 0));
  }
};
class FusedAttentionScratch final : public IScratchEstimator {
 public:
  Status estimate(const INodeView& node, IScratchSink& out) const noexcept override {
    std::int64_t heads = 0;
    if (!required_attribute(node, "num_heads", &heads)) {
      return out.fail(Status::kUnsupported, "num_heads is required");
    }
    return out.set_bytes(node.input_dim(0, 0) * heads * node.input_dim(0, 1) *
                         node.input_dim(1, 1) * 4);
  }
};

Status register_npu(IRegistrar& r) noexcept {
  static const LayerNormShape kLayerNorm;
  static const LayerNormReuse kLayerNormReuse;
  static const LayerNormScratch kLayerNormScratch;
  static const MatMul4BitShape kMatMul4Bit;
  static const MatMul4BitScratch kMatMul4BitScratch;
  static const KvAppendShape kKvAppend;
  static const KvAppendInPlace kKvAppendInPlace;
  static const FusedAttentionShape kFusedAttention;
  static const FusedAttentionScratch kFusedAttentionScratch;
  const RuleKey layer_norm{"com.npu", "LayerNorm", 1}, matmul{"com.npu", "MatMul4Bit", 1},
      append{"com.npu", "KvAppend", 1}, attention{"com.npu", "FusedAttention", 1};
  NPU_CHECK(r.declare_domain("com.npu", 1, 1));
  for (Status s :
       {r.add_shape_rule(layer_norm, &kLayerNorm),
        r.add_inplace_policy(layer_norm, &kLayerNormReuse),
        r.add_scratch_estimator(layer_norm, &kLayerNormScratch),
        r.add_shape_rule(matmul, &kMatMul4Bit),
        r.add_scratch_estimator(matmul, &kMatMul4BitScratch), r.add_shape_rule(append, &kKvAppend),
        r.add_inplace_policy(append, &kKvAppendInPlace),
        r.add_shape_rule(attention, &kFusedAttention),
        r.add_scratch_estimator(attention, &kFusedAttentionScratch)}) {
    NPU_CHECK(s);
  }
  return Status::kOk;
}
}  // namespace

CCTX_DEFINE_PLUGIN("npu_example", "1.0", register_npu)
