// The ai.onnx operator set plugin: its one exported symbol and the registration of every family.
#include <cctx/sdk/plugin.hpp>

#include "families.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {
namespace {

// The newest ai.onnx opset whose operators this plugin knows.
constexpr std::int32_t kMaxOpset = 23;

Status register_all(IRegistrar& r) noexcept {
  return guarded(r, [&] {
    using Fn = Status (*)(IRegistrar&);
    const Fn families[] = {register_elementwise, register_matmul, register_tensor_shape,
                           register_concat_split, register_tags};
    if (Status s = r.declare_domain("", 1, kMaxOpset); s != Status::kOk) return s;
    for (Fn family : families) {
      if (Status s = family(r); s != Status::kOk) return s;
    }
    // Option `inplace: off` registers no in-place policy (to compare with the structural
    // fallback, or to model a runtime that never reuses buffers).
    StringRef inplace;
    if (r.option("inplace", &inplace) && inplace.equals("off")) return Status::kOk;
    if (!r.option("inplace", &inplace) || inplace.equals("on")) return register_inplace(r);
    return r.fail(Status::kInvalidArgument, "option 'inplace' must be 'on' or 'off'");
  });
}

}  // namespace
}  // namespace cctx::opsets::onnx

CCTX_DEFINE_PLUGIN("onnx", "0.1.0", cctx::opsets::onnx::register_all)
