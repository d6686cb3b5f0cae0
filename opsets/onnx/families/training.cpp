// The ai.onnx.preview.training domain (opset 1): Gradient and the optimisers Adagrad, Adam and
// Momentum. Every output has the type and shape of one input: a gradient those of the tensor it
// differentiates against, an optimiser's new tensors those of the tensors they replace.
#include "families.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

constexpr char kTrainingDomain[] = "ai.onnx.preview.training";

/// Output o takes input i's dtype and shape.
Status mirror(const INodeView& node, IShapeSink& out, std::uint32_t o, std::uint32_t i) {
  if (!node.has_output(o)) return Status::kOk;
  return set_shape(out, o, node.input_dtype(i), input_shape(node, i));
}

/// Gradient: input k is the value of the k-th name of `xs` followed by `zs`; output k is the
/// gradient of `y` with respect to xs[k], shaped like input k.
Status gradient(const INodeView& node, IShapeSink& out) {
  const std::uint32_t xs = node.attr_strings_count("xs");
  const std::uint32_t zs = node.attr_strings_count("zs");
  if (xs == 0) return fail("missing 'xs'");
  if (node.input_count() != xs + zs) {
    return fail("has " + std::to_string(node.input_count()) + " inputs for " +
                std::to_string(xs + zs) + " names in 'xs' and 'zs'");
  }
  if (node.output_count() != xs) {
    return fail("has " + std::to_string(node.output_count()) + " outputs for " +
                std::to_string(xs) + " names in 'xs'");
  }
  for (std::uint32_t o = 0; o < xs; ++o) {
    check(mirror(node, out, o, o));
  }
  return Status::kOk;
}

/// The optimisers: inputs R, T, then n tensors of each of `groups` kinds (X, G, then the state
/// tensors); outputs the new X, then the new state tensors (G has none), each shaped like the
/// tensor it replaces.
Status optimizer(const INodeView& node, IShapeSink& out, std::uint32_t groups) {
  const std::uint32_t inputs = node.input_count();
  if (inputs < 2 + groups || (inputs - 2) % groups != 0) {
    return fail("expects R, T and " + std::to_string(groups) +
                " tensors per optimised tensor, got " + std::to_string(inputs) + " inputs");
  }
  const std::uint32_t n = (inputs - 2) / groups;
  if (node.output_count() != (groups - 1) * n) {
    return fail("has " + std::to_string(node.output_count()) + " outputs for " + std::to_string(n) +
                " optimised tensor(s); expected " + std::to_string((groups - 1) * n));
  }
  for (std::uint32_t o = 0; o < node.output_count(); ++o) {
    const std::uint32_t group = o / n, k = o % n;
    const std::uint32_t input_group = group == 0 ? 0 : group + 1;  // outputs skip G
    check(mirror(node, out, o, 2 + input_group * n + k));
  }
  return Status::kOk;
}

Status adagrad(const INodeView& node, IShapeSink& out) { return optimizer(node, out, 3); }
Status momentum(const INodeView& node, IShapeSink& out) { return optimizer(node, out, 3); }
Status adam(const INodeView& node, IShapeSink& out) { return optimizer(node, out, 4); }

constinit const FnShapeRule kGradient{&gradient};
constinit const FnShapeRule kAdagrad{&adagrad};
constinit const FnShapeRule kMomentum{&momentum};
constinit const FnShapeRule kAdam{&adam};

}  // namespace

void register_training(Registration& reg) {
  if (!reg.ok()) return;
  IRegistrar& r = reg.registrar();
  if (r.declare_domain(kTrainingDomain, 1, 1) != Status::kOk) {
    reg.fail("cannot declare the ai.onnx.preview.training domain");
    return;
  }
  kit::Registration training(r, StringRef(kTrainingDomain));
  training.shape("Gradient", 1, kGradient);
  training.shape("Adagrad", 1, kAdagrad);
  training.shape("Adam", 1, kAdam);
  training.shape("Momentum", 1, kMomentum);
  if (!training.ok()) reg.fail("registering the ai.onnx.preview.training rules failed");
}

}  // namespace cctx::opsets::onnx
