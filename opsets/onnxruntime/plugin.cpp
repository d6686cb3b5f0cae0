// The ONNX Runtime CPU plugin: its in-place kernels, and the working buffers its CPU kernels
// allocate during a run (one thread, graph optimisations off), replacing the ai.onnx plugin's
// generic estimates. Load it after `onnx` with `override: true` (README.md).
#include <cctx/sdk/kit.hpp>

#include "families.hpp"
#include "ort_kit.hpp"

namespace cctx::opsets::onnxruntime {
namespace {

using Family = void (*)(Registration&);
constexpr Family kFamilies[] = {register_conv, register_rnn, register_attention, register_tensor,
                                register_inplace};

Status register_all(IRegistrar& r) noexcept {
  return guarded(r, [&] {
    Registration reg = register_domain(r, "", 1, kMaxOpset);
    for (Family family : kFamilies) {
      family(reg);
      if (!reg.ok()) return reg.status();
    }
    if (const Status s = register_contrib(r); s != Status::kOk) return s;
    if (const Status s = register_group_query_attention(r); s != Status::kOk) return s;
    if (const Status s = register_kv_share_buffer(r); s != Status::kOk) return s;
    return register_rewrites(r);
  });
}

}  // namespace
}  // namespace cctx::opsets::onnxruntime

CCTX_DEFINE_PLUGIN("onnxruntime", "0.1.0", cctx::opsets::onnxruntime::register_all)
