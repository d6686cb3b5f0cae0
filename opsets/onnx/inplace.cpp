// In-place policies of the ai.onnx operators (semantics.md "In-place reuse: Policies"): which
// outputs may take over an input's buffer when it dies, and which outputs are views of an input.
#include "families.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

// kReuseInput0 and kAliasInput0 come from the SDK kit (cctx/sdk/kit/rules.hpp).
namespace {

Status reuse_inputs01(const INodeView&, IInplaceSink& out) {
  check(out.may_reuse(0, 0));
  return out.may_reuse(0, 1);
}

Status reuse_any_input(const INodeView& node, IInplaceSink& out) {
  for (std::uint32_t k = 0; k < node.input_count(); ++k) {
    check(out.may_reuse(0, k));
  }
  return Status::kOk;
}

Status reuse_where_branches(const INodeView&, IInplaceSink& out) {
  check(out.may_reuse(0, 1));
  return out.may_reuse(0, 2);
}

constinit const FnInplacePolicy kReuseInputs01{&reuse_inputs01};
constinit const FnInplacePolicy kReuseAnyInput{&reuse_any_input};
constinit const FnInplacePolicy kReuseWhere{&reuse_where_branches};

}  // namespace

void register_inplace(Registration& reg) {
  for (const char* op :
       {"Abs",         "Neg",       "Relu",  "LeakyRelu", "Elu", "Selu", "Sigmoid",
        "HardSigmoid", "HardSwish", "Tanh",  "Exp",       "Log", "Sqrt", "Reciprocal",
        "Floor",       "Ceil",      "Round", "Sign",      "Erf", "Gelu", "Softplus",
        "Softsign",    "Clip",      "Not",   "Cast"}) {
    reg.inplace(op, 1, kReuseInput0);
  }
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "PRelu", "And", "Or", "Xor",
                         "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitShift"}) {
    reg.inplace(op, 1, kReuseInputs01);
  }
  for (const char* op : {"Sum", "Max", "Min", "Mean"}) reg.inplace(op, 1, kReuseAnyInput);
  reg.inplace("Where", 1, kReuseWhere);
  // ONNX Runtime's BitCast (CPU, 26) declares MayInplace(0, 0): same bytes, another type.
  reg.inplace("BitCast", 26, kReuseInput0);
  for (const char* op : {"Reshape", "Squeeze", "Unsqueeze", "Flatten", "Identity"}) {
    reg.inplace(op, 1, kAliasInput0);
  }
}

}  // namespace cctx::opsets::onnx
