// An NPU vendor's four operators in C++ (the same ops, contracts and figures as npu.yaml, the
// declarative form): com.npu::LayerNorm, MatMul4Bit (two 4-bit weights per byte), KvAppend (a
// static KV cache appended in place: IInplaceSink::write_into) and FusedAttention. Activations
// are float32 [B, S, D]; the KV cache [B, P, D].
//
// Schema first (SDK 1.9): each operator's contract (its inputs' element types and ranks, its
// attributes) is declared once, and the host checks every node against it before any rule runs,
// so the rules below neither check types nor handle a missing attribute. What a schema cannot
// say, relations between dims, each rule states where it starts: a provably false one refuses
// the node, the others become requirements of the node.
#include <cctx/sdk/kit/registration.hpp>
#include <cctx/sdk/kit/schema.hpp>
#include <cctx/sdk/plugin.hpp>
#include <cctx/sdk/shape_helpers.hpp>

namespace {
using namespace cctx::sdk;

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

/// Attribute `name`, which the schema makes required (the host refused every node without it).
std::int64_t attribute(const INodeView& node, const char* name) {
  return node.attr_int_or(StringRef::from_c_str(name), 0);
}

class LayerNormShape final : public IShapeRule {
 public:
  Status infer(const INodeView& node, IShapeSink& out) const noexcept override {
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

class KvAppendShape final : public IShapeRule {
 public:
  Status infer(const INodeView& node, IShapeSink& out) const noexcept override {
    const Dim rows = node.input_dim(0, 1) + node.input_dim(1, 1);
    NPU_CHECK(require(out, ConstraintKind::kEq, node.input_dim(0, 0), node.input_dim(1, 0)));
    NPU_CHECK(require(out, ConstraintKind::kEq, node.input_dim(0, 2), node.input_dim(1, 2)));
    NPU_CHECK(require(out, ConstraintKind::kLe, rows, node.constant(attribute(node, "max_len"))));
    return set_shape(out, 0, node.input_dtype(0),
                     Shape::of({node.input_dim(0, 0), rows, node.input_dim(0, 2)}));
  }
};
class KvAppendInPlace final : public IInplacePolicy {
 public:
  Status declare(const INodeView& node, IInplaceSink& out) const noexcept override {
    return out.write_into(
        0, 0, node.input_dim(0, 0) * attribute(node, "max_len") * node.input_dim(0, 2) * 4);
  }
};

class FusedAttentionShape final : public IShapeRule {
 public:
  Status infer(const INodeView& node, IShapeSink& out) const noexcept override {
    const std::int64_t heads = attribute(node, "num_heads");
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
    return out.set_bytes(node.input_dim(0, 0) * attribute(node, "num_heads") *
                         node.input_dim(0, 1) * node.input_dim(1, 1) * 4);
  }
};

Status register_ops(IRegistrar& r) {
  static const LayerNormShape kLayerNorm;
  static const LayerNormReuse kLayerNormReuse;
  static const LayerNormScratch kLayerNormScratch;
  static const MatMul4BitShape kMatMul4Bit;
  static const MatMul4BitScratch kMatMul4BitScratch;
  static const KvAppendShape kKvAppend;
  static const KvAppendInPlace kKvAppendInPlace;
  static const FusedAttentionShape kFusedAttention;
  static const FusedAttentionScratch kFusedAttentionScratch;
  using kit::Schema;
  kit::Registration reg = kit::register_domain(r, "com.npu", 1, 1);

  reg.schema("LayerNorm", 1,
             Schema().input("X", {dtype::kFloat}).rank(3).input("gamma", {dtype::kFloat}).rank(1));
  reg.shape("LayerNorm", 1, kLayerNorm);
  reg.inplace("LayerNorm", 1, kLayerNormReuse);
  reg.scratch("LayerNorm", 1, kLayerNormScratch);

  reg.schema("MatMul4Bit", 1,
             Schema().input("A", {dtype::kFloat}).rank(3).input("W", {dtype::kUint8}).rank(2));
  reg.shape("MatMul4Bit", 1, kMatMul4Bit);
  reg.scratch("MatMul4Bit", 1, kMatMul4BitScratch);

  reg.schema("KvAppend", 1,
             Schema()
                 .input("past", {dtype::kFloat})
                 .rank(3)
                 .input("new", {dtype::kFloat})
                 .rank(3)
                 .required_int("max_len")
                 .at_least(1));
  reg.shape("KvAppend", 1, kKvAppend);
  reg.inplace("KvAppend", 1, kKvAppendInPlace);

  reg.schema("FusedAttention", 1,
             Schema()
                 .input("Q", {dtype::kFloat})
                 .rank(3)
                 .input("K", {dtype::kFloat})
                 .rank(3)
                 .input("V", {dtype::kFloat})
                 .rank(3)
                 .required_int("num_heads")
                 .at_least(1));
  reg.shape("FusedAttention", 1, kFusedAttention);
  reg.scratch("FusedAttention", 1, kFusedAttentionScratch);
  return reg.status();
}

// guarded(): the schemas' lists are std::vectors, whose allocation may throw.
Status register_npu(IRegistrar& r) noexcept {
  return guarded(r, [&] { return register_ops(r); });
}
}  // namespace

CCTX_DEFINE_PLUGIN("npu_example", "1.0", register_npu)
