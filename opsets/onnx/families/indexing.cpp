// The indexing and data-movement family's registration (expressions.md, Symbolic shape inference
// rules and Shape-value propagation): Gather, GatherElements, GatherND, Scatter, ScatterElements,
// ScatterND, TensorScatter, Slice, Expand, Tile, Pad, NonZero, Unique, Compress, Trilu, CumSum,
// ReverseSequence, TopK and Det. Their rules live in rooms of one purpose (gather_scatter.cpp,
// slice.cpp, expand_tile_pad.cpp, data_dependent.cpp, shape_preserving.cpp, helpers they share in
// indexing_helpers.hpp); this file keeps the family's one registration list, in its order.
#include "families.hpp"
#include "indexing_rules.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

void register_indexing(Registration& reg) {
  reg.shape("Gather", {1, 11, 13}, kGather);
  reg.shape("GatherElements", {11, 13}, kGatherElements);
  reg.shape("GatherND", {11, 12, 13}, kGatherND);
  reg.shape("Scatter", {9, 11}, kScatter);
  reg.shape("ScatterElements", {11, 13, 16, 18}, kScatter);
  reg.shape("ScatterND", {11, 13, 16, 18}, kScatter);
  reg.shape("TensorScatter", 24, kTensorScatter);
  reg.shape("Slice", {1, 10, 11, 13}, kSlice);
  reg.shape("Expand", {8, 13}, kExpand);
  reg.shape("Tile", {1, 6, 13}, kTile);
  reg.shape("Pad", {1, 2, 11, 13, 18, 19, 21, 23, 24, 25}, kPad);
  reg.shape("NonZero", {9, 13}, kNonZero);
  reg.shape("Unique", 11, kUnique);
  reg.shape("Compress", {9, 11}, kCompress);
  reg.shape("TopK", {1, 10, 11, 24}, kTopK);  // 24: bfloat16
  reg.shape("Trilu", 14, kSameAsData);
  reg.shape("CumSum", {11, 14}, kSameAsData);
  reg.shape("CumProd", 26, kSameAsData);
  reg.shape("ReverseSequence", 10, kSameAsData);
  reg.shape("Det", {11, 22}, kDet);
  reg.scratch("TopK", 1, kTopKScratch);
  for (const char* op : {"Scatter", "ScatterElements", "ScatterND", "TensorScatter"}) {
    reg.inplace(op, 1, kReuseData);
  }
}

}  // namespace cctx::opsets::onnx
