// Convolutions and pooling (expressions.md, Symbolic shape inference rules): Conv, ConvInteger,
// QLinearConv, ConvTranspose, DeformConv, AveragePool, MaxPool, LpPool, the Global pools,
// MaxRoiPool, MaxUnpool, RoiAlign, and the sampling ops GridSample and AffineGrid. Their rules live
// in rooms of one purpose (conv.cpp, pool.cpp, sampling.cpp; the sliding window that conv.cpp and
// pool.cpp share in sliding_window.hpp); this file keeps the family's registration list, in its
// order.
#include "conv_pool_rules.hpp"
#include "families.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

void register_conv_pool(Registration& reg) {
  reg.shape("Conv", {1, 11, 22}, kConv);
  reg.shape("ConvInteger", 10, kConv);
  reg.shape("QLinearConv", 10, kConv);
  reg.shape("DeformConv", {19, 22}, kConv);
  reg.shape("ConvTranspose", {1, 11, 22}, kConvTranspose);
  reg.shape("AveragePool", {1, 7, 10, 11, 19, 22}, kPool);
  reg.shape("MaxPool", {1, 8, 10, 11, 12, 22}, kPool);
  reg.shape("LpPool", {1, 2, 11, 18, 22}, kPool);
  reg.shape("GlobalAveragePool", {1, 22}, kGlobalPool);
  reg.shape("GlobalMaxPool", {1, 22}, kGlobalPool);
  reg.shape("GlobalLpPool", {1, 2, 22}, kGlobalPool);
  reg.shape("MaxRoiPool", {1, 22}, kMaxRoiPool);
  reg.shape("RoiAlign", {10, 16, 22}, kRoiAlign);
  reg.shape("MaxUnpool", {9, 11, 22}, kMaxUnpool);
  reg.shape("GridSample", {16, 20, 22}, kGridSample);
  reg.shape("AffineGrid", 20, kAffineGrid);
  // The same column buffer serves the integer and deformable variants (one image, one group).
  reg.scratch("Conv", 1, kConvScratch);
  reg.scratch("ConvInteger", 10, kConvScratch);
  reg.scratch("QLinearConv", 10, kConvScratch);
  reg.scratch("DeformConv", 19, kConvScratch);
  reg.scratch("ConvTranspose", 1, kConvTransposeScratch);
}

}  // namespace cctx::opsets::onnx
