// libFuzzer target: bytes -> Model::parse (with its checks) -> the whole pipeline with the ai.onnx
// plugins -> a CSV report. Errors the framework raises on purpose (bad input, strict analysis,
// expression errors) are the expected outcome; anything else (a crash, a sanitizer report, an
// uncaught exception, a hang) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cctx/compute_context.hpp"
#include "cctx/errors.hpp"
#include "cctx/expr.hpp"
#include "cctx/host.hpp"
#include "cctx/model.hpp"
#include "cctx/report.hpp"

namespace {

// One host for the whole run: loading the plugins per input would dominate the time. Never
// destroyed, so the plugins stay mapped until the process exits.
cctx::Host& host() {
  static cctx::Host* instance = [] {
    cctx::Profile profile;
    for (const char* name : {"onnx", "onnx_ml"}) {
      cctx::PluginSpec spec;
      spec.name = name;
      profile.plugins.push_back(spec);
    }
    return new cctx::Host(profile, {CCTX_FUZZ_PLUGIN_DIR});
  }();
  return *instance;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    cctx::Model model = cctx::Model::parse(bytes, "fuzz.onnx");
    cctx::ComputeContext ctx(host());
    ctx.compute(model);
    (void)cctx::csv_report(ctx, cctx::ReportOptions{"fuzz.onnx", {}, {}});
  } catch (const cctx::Error&) {
  } catch (const cctx::ExprError&) {
  }
  return 0;
}
