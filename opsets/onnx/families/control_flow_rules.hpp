// The rules of the control-flow family, each defined in the room of its operator and registered
// together by register_control_flow (control_flow.cpp), in the family's one registration order.
#pragma once

#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

extern const FnShapeRule kIfMax;        // if.cpp, with the option if_merge: max
extern const FnShapeRule kIfFresh;      // if.cpp, with the option if_merge: fresh
extern const FnShapeRule kLoop;         // loop.cpp
extern const FnShapeRule kScan;         // scan.cpp
extern const FnShapeRule kSequenceMap;  // sequence_map.cpp

}  // namespace cctx::opsets::onnx
