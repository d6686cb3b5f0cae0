// The rules of the indexing family, each defined in the room of its operators and registered
// together by register_indexing (indexing.cpp), in the family's one registration order.
#pragma once

#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

// gather_scatter.cpp
extern const FnShapeRule kGather;
extern const FnShapeRule kGatherElements;
extern const FnShapeRule kGatherND;
extern const FnShapeRule kScatter;
extern const FnShapeRule kTensorScatter;
extern const FnInplacePolicy kReuseData;
// slice.cpp
extern const FnShapeRule kSlice;
// expand_tile_pad.cpp
extern const FnShapeRule kExpand;
extern const FnShapeRule kTile;
extern const FnShapeRule kPad;
// data_dependent.cpp
extern const FnShapeRule kNonZero;
extern const FnShapeRule kUnique;
extern const FnShapeRule kCompress;
extern const FnShapeRule kTopK;
extern const FnScratchEstimator kTopKScratch;
// shape_preserving.cpp
extern const FnShapeRule kSameAsData;
extern const FnShapeRule kDet;

}  // namespace cctx::opsets::onnx
