// ONNX Runtime's in-place CPU kernels (its allocation planner reads them from the kernels'
// definitions): Reshape, Squeeze, Unsqueeze, Flatten and Identity view their input (an alias,
// whatever the sizes); the unary activations may write into their input when the planner can
// show the sizes equal. No other CPU kernel runs in place: Add, Mul and the other element-wise
// operators always get an output buffer of their own. The profiles that load this plugin turn
// the ai.onnx plugin's own policies off (its option `inplace: "off"`), so these are the only
// ones, and the free_list planner applies ONNX Runtime's conditions to them.
#include "families.hpp"

namespace cctx::opsets::onnxruntime {

using sdk::kit::kAliasInput0;  // output 0 views input 0
using sdk::kit::kReuseInput0;  // output 0 may take input 0's buffer

void register_inplace(Registration& reg) {
  for (const char* op : {"Reshape", "Squeeze", "Unsqueeze", "Flatten", "Identity"}) {
    reg.inplace(op, 1, kAliasInput0);
  }
  for (const char* op : {"Elu", "HardSigmoid", "LeakyRelu", "Relu", "Selu", "Sigmoid", "Softplus",
                         "Softsign", "Tanh", "Celu", "ThresholdedRelu", "Clip"}) {
    reg.inplace(op, 1, kReuseInput0);
  }
}

}  // namespace cctx::opsets::onnxruntime
