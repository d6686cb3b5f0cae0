// The com.microsoft operator set plugin (ONNX Runtime's contrib operators that optimized
// transformer exports use): its one exported symbol and the registration of every family.
#include <cctx/sdk/kit.hpp>

#include "families.hpp"
#include "ms_kit.hpp"

namespace cctx::opsets::microsoft {
namespace {

// ONNX Runtime has only ever defined version 1 of its contrib domain.
constexpr std::int32_t kMaxOpset = 1;

// Every family, in registration order. Add a family here and declare it in families.hpp.
using Family = void (*)(Registration&);
constexpr Family kFamilies[] = {
    register_activations,
    register_normalization,
    register_embed_layer_norm,
    register_attention,
    register_multi_head_attention,
    register_group_query_attention,
    register_rotary_embedding,
    register_matmul,
    register_quantization,
    register_conv,
    register_qlinear,
    register_misc,
    register_recurrent,
    register_beam_search,
};

Status register_all(IRegistrar& r) noexcept {
  return guarded(r, [&] {
    // Option `inplace: off` registers no in-place policy, as for the ai.onnx plugin.
    StringRef inplace("on");
    check(r.accept_option("inplace",
                          "on (default) or off: off registers no in-place "
                          "policy"));
    r.option("inplace", &inplace);
    if (!inplace.equals("on") && !inplace.equals("off")) {
      return r.fail(Status::kInvalidArgument, "option 'inplace' must be 'on' or 'off'");
    }
    Registration reg = register_domain(r, kDomain, 1, kMaxOpset, inplace.equals("on"));
    for (Family family : kFamilies) {
      family(reg);
      if (!reg.ok()) return reg.status();
    }
    // The ONNX-domain operators of ONNX Runtime (its kOnnxDomain registrations, version 1).
    Registration onnx = register_domain(r, StringRef(""), 1, 1, inplace.equals("on"));
    register_onnx_domain_normalization(onnx);
    if (!onnx.ok()) return onnx.status();
    // The blocked-layout operators of ONNX Runtime's NCHWc transformer (its only version, 1).
    Registration nchwc =
        register_domain(r, StringRef("com.microsoft.nchwc"), 1, 1, inplace.equals("on"));
    register_nchwc(nchwc);
    return nchwc.status();
  });
}

}  // namespace
}  // namespace cctx::opsets::microsoft

CCTX_DEFINE_PLUGIN("microsoft", "0.1.0", cctx::opsets::microsoft::register_all)
