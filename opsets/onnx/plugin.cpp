// The ai.onnx operator set plugin: its one exported symbol and the registration of every family.
#include <cctx/sdk/kit.hpp>

#include "families.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {
namespace {

// The newest ai.onnx opset whose operators this plugin knows.
constexpr std::int32_t kMaxOpset = 27;

// Every family, in registration order. Add a family here and declare it in families.hpp.
using Family = void (*)(Registration&);
constexpr Family kFamilies[] = {
    register_schemas,  // the contracts first: every rule below is written against them
    register_elementwise,   register_matmul,       register_tensor_shape,    register_concat_split,
    register_reduce,        register_control_flow, register_sequence,        register_quantization,
    register_random_signal, register_text_image,  // misc
    register_indexing,      register_generators,   register_spatial,         register_conv_pool,
    register_normalization, register_attention,    register_recurrent_state, register_rnn,
    register_einsum,
    register_losses,    // neural-network operators
    register_training,  // the ai.onnx.preview.training domain
    register_tags,          register_inplace,
};

Status register_all(IRegistrar& r) noexcept {
  return guarded(r, [&] {
    // Option `inplace: off` registers no in-place policy (to compare with the structural
    // fallback, or to model a runtime that never reuses buffers).
    StringRef inplace("on");
    check(r.accept_option("inplace",
                          "on (default) or off: off registers no in-place "
                          "policy"));
    r.option("inplace", &inplace);
    if (!inplace.equals("on") && !inplace.equals("off")) {
      return r.fail(Status::kInvalidArgument, "option 'inplace' must be 'on' or 'off'");
    }
    check(r.declare_domain("", 1, kMaxOpset));
    Registration reg(r, inplace.equals("on"));
    for (Family family : kFamilies) {
      family(reg);
      if (!reg.ok()) return reg.status();
    }
    return Status::kOk;
  });
}

}  // namespace
}  // namespace cctx::opsets::onnx

CCTX_DEFINE_PLUGIN("onnx", "0.1.0", cctx::opsets::onnx::register_all)
