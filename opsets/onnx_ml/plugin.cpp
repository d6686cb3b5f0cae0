// The ai.onnx.ml operator set plugin (the traditional-ML operators that the sklearn, LightGBM and
// XGBoost converters emit): its one exported symbol and the registration of every family.
#include <cctx/sdk/kit.hpp>

#include "families.hpp"
#include "ml_kit.hpp"

namespace cctx::opsets::onnx_ml {
namespace {

// The newest ai.onnx.ml opset whose operators this plugin knows (5: TreeEnsemble).
constexpr std::int32_t kMaxOpset = 5;

// Every family, in registration order. Add a family here and declare it in families.hpp.
using Family = void (*)(Registration&);
constexpr Family kFamilies[] = {
    register_preprocessing, register_encoders, register_maps, register_linear, register_trees,
};

Status register_all(IRegistrar& r) noexcept {
  return guarded(r, [&] {
    Registration reg = register_domain(r, kDomain, 1, kMaxOpset);
    for (Family family : kFamilies) {
      family(reg);
      if (!reg.ok()) return reg.status();
    }
    return Status::kOk;
  });
}

}  // namespace
}  // namespace cctx::opsets::onnx_ml

CCTX_DEFINE_PLUGIN("onnx_ml", "0.1.0", cctx::opsets::onnx_ml::register_all)
