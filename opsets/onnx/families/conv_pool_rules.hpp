// The rules of the conv/pool family, each defined in the room of its operators and registered
// together by register_conv_pool (conv_pool.cpp), in the family's one registration order.
#pragma once

#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

// conv.cpp
extern const FnShapeRule kConv;
extern const FnShapeRule kConvTranspose;
extern const FnScratchEstimator kConvScratch;
extern const FnScratchEstimator kConvTransposeScratch;
// pool.cpp
extern const FnShapeRule kPool;
extern const FnShapeRule kGlobalPool;
extern const FnShapeRule kMaxRoiPool;
extern const FnShapeRule kRoiAlign;
extern const FnShapeRule kMaxUnpool;
// sampling.cpp
extern const FnShapeRule kGridSample;
extern const FnShapeRule kAffineGrid;

}  // namespace cctx::opsets::onnx
