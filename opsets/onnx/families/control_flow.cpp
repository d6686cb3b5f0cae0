// Operators with graph bodies (expressions.md, Symbolic shape inference rules): If, Loop, Scan and
// SequenceMap. The host infers a body on request (IShapeSink::infer_body) with the body input
// types a rule describes. Each operator's rule has its room (if.cpp, loop.cpp, scan.cpp,
// sequence_map.cpp) over the body-value layer they share (body_values.hpp) and the loop fixpoint
// of Loop and Scan (carried_fixpoint.hpp); this file keeps the family's registration, in its order,
// with the plugin option `if_merge` that picks If's rule.
#include "control_flow_rules.hpp"
#include "families.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

void register_control_flow(Registration& reg) {
  // Plugin option `if_merge` (expressions.md, Symbolic shape inference rules: If): `max` (default)
  // or `fresh`.
  StringRef merge("max");
  IRegistrar& r = reg.registrar();
  if (r.accept_option("if_merge",
                      "max (default) or fresh: an If output dim that differs between "
                      "the branches becomes their max, or a fresh symbol") != Status::kOk) {
    reg.fail("cannot declare option 'if_merge'");
    return;
  }
  r.option("if_merge", &merge);
  if (!merge.equals("max") && !merge.equals("fresh")) {
    reg.fail("option 'if_merge' must be 'max' or 'fresh'");
    return;
  }
  // Versions 13, 16, 19, 21 and 23 only widen the value types; the rules cover them unchanged.
  // 24 and 25 only widen the element types of the carried values.
  reg.shape("If", {1, 11, 13, 16, 19, 21, 23, 24, 25}, merge.equals("max") ? kIfMax : kIfFresh);
  reg.shape("Loop", {1, 11, 13, 16, 19, 21, 23, 24, 25}, kLoop);
  reg.shape("Scan", {8, 9, 11, 16, 19, 21, 23, 24, 25}, kScan);
  reg.shape("SequenceMap", 17, kSequenceMap);
}

}  // namespace cctx::opsets::onnx
