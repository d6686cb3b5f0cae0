// ONNX Runtime's in-place CPU kernels (its allocation planner reads them from the kernels'
// definitions): Reshape, Squeeze, Unsqueeze, Flatten and Identity view their input (an alias,
// whatever the sizes); the unary activations, and Softmax and LogSoftmax of float data
// (cpu/math/softmax.cc), may write into their input when the planner can show the sizes equal.
// No other CPU kernel runs in place: Add, Mul and the other element-wise operators always get an
// output buffer of their own. The profiles that load this plugin turn
// the ai.onnx plugin's own policies off (its option `inplace: "off"`), so these are the only
// ones, and the free_list planner applies ONNX Runtime's conditions to them.
#include "families.hpp"

namespace cctx::opsets::onnxruntime {

using sdk::kit::kAliasInput0;  // output 0 views input 0
using sdk::kit::kReuseInput0;  // output 0 may take input 0's buffer

/// Softmax and LogSoftmax declare MayInplace(0, 0) for float only (double gets a buffer of its
/// own). The planner's test of equal sizes decides: a transformer whose file carries the
/// shapes ONNX's inference gave (onnxruntime.quantization saves them) holds one attention-score
/// buffer where the plain export holds two (measured, ONNX Runtime 1.30).
constexpr sdk::kit::FnInplacePolicy kReuseFloatInput0{
    [](const sdk::INodeView& node, sdk::IInplaceSink& out) {
      return node.input_dtype(0) == sdk::dtype::kFloat ? out.may_reuse(0, 0) : sdk::Status::kOk;
    }};

void register_inplace(Registration& reg) {
  for (const char* op : {"Reshape", "Squeeze", "Unsqueeze", "Flatten", "Identity"}) {
    reg.inplace(op, 1, kAliasInput0);
  }
  for (const char* op : {"Elu", "HardSigmoid", "LeakyRelu", "Relu", "Selu", "Sigmoid", "Softplus",
                         "Softsign", "Tanh", "Celu", "ThresholdedRelu", "Clip"}) {
    reg.inplace(op, 1, kReuseInput0);
  }
  for (const char* op : {"Softmax", "LogSoftmax"}) reg.inplace(op, 1, kReuseFloatInput0);
}

}  // namespace cctx::opsets::onnxruntime
