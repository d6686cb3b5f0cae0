// The com.microsoft.nchwc operators: the graph ONNX Runtime really runs for a CNN at optimisation
// level `all` (its NchwcTransformer; saved with the session option optimized_model_filepath).
// Semantics: onnxruntime's nchwc_schema_defs.cc and contrib_ops/cpu/nchwc_ops.cc. A blocked
// (NCHWc) tensor is [N, C', H, W] with C' the channels padded up to a multiple of MLAS's block
// size (MlasNchwcGetBlockSize). That size depends on the machine: 8 with AVX2, 16 with AVX-512F.
// The rules take 8; a graph saved on an AVX-512 machine carries its padding in the reordered
// weights, which the Conv rule reads, so only ReorderInput's padding can differ (a profile key
// may choose the size later).
//
// Scratch: none registered. MlasNchwcConv and MlasNchwcPool work on the blocked buffers directly
// and the kernels take nothing from the temp-space allocator; linear Upsample keeps two
// interpolation tables of Ho and Wo floats in std::vectors, which is not run scratch.
#include <string>
#include <utility>
#include <vector>

#include "families.hpp"
#include "ms_kit.hpp"
#include "window.hpp"

namespace cctx::opsets::microsoft {

namespace {

/// MLAS's NCHWc block size on AVX2 (see above).
constexpr std::int64_t kBlock = 8;

/// Channels padded up to a multiple of the block size: kBlock, or the node's `nchwc_block`. ONNX
/// Runtime's saved graphs carry no such attribute (their Conv weights are padded already);
/// cctx's own rewrite into NCHWc (the onnxruntime plugin's option nchwc_block) writes it, as the
/// weights it leaves untouched are not.
Dim blocked(const INodeView& node, Dim channels) {
  const std::int64_t block = node.attr_int_or("nchwc_block", kBlock);
  if (block != 8 && block != 16) fail("attribute 'nchwc_block' must be 8 or 16");
  return ceil_div(channels, block) * block;
}

Shape rank_at_least(const INodeView& node, std::uint32_t i, std::size_t rank) {
  Shape x = input_shape(node, i);
  if (x.known && x.rank() < rank) {
    fail("input " + std::to_string(i) + " has rank " + std::to_string(x.rank()) +
         ", expected at least " + std::to_string(rank));
  }
  return x;
}

bool channels_last(const INodeView& node) { return node.attr_int_or("channels_last", 0) != 0; }

/// ReorderInput: NCHW (NHWC with channels_last) -> blocked [N, C', spatial...].
Status reorder_input(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const Shape x = rank_at_least(node, 0, 2);
  if (!x.known) return set_shape(out, 0, node.input_dtype(0), x);
  const bool last = channels_last(node);
  const std::size_t c = last ? x.rank() - 1 : 1, first_spatial = last ? 1 : 2;
  std::vector<Dim> dims{x.dims[0], blocked(node, x.dims[c])};
  dims.insert(dims.end(), x.dims.begin() + static_cast<std::ptrdiff_t>(first_spatial),
              x.dims.begin() + static_cast<std::ptrdiff_t>(first_spatial + x.rank() - 2));
  return set_shape(out, 0, node.input_dtype(0), Shape::of(std::move(dims)));
}

/// ReorderOutput: blocked [N, C', spatial...] -> [N, channels, spatial...] (channels last with
/// channels_last): the padding channels are dropped.
Status reorder_output(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const Shape x = rank_at_least(node, 0, 2);
  if (!x.known) return set_shape(out, 0, node.input_dtype(0), x);
  // ONNX Runtime always writes `channels`; cctx's own rewrite into NCHWc leaves it out after a
  // pool, whose channels are whole blocks (nothing padded: the blocked count stands).
  Dim c = x.dims[1];
  if (node.attribute_type("channels") != AttrType::kNone) {
    std::int64_t channels;
    std::string error;
    if (!positive_attr(node, "channels", &channels, &error)) return fail(error);
    c = node.constant(channels);
    if (x.dims[1].valid() && c.provably_gt(x.dims[1])) {
      return fail("attribute 'channels' " + std::to_string(channels) +
                  " exceeds the blocked channels " + to_string(x.dims[1]));
    }
  }
  const bool last = channels_last(node);
  std::vector<Dim> dims{x.dims[0]};
  if (!last) dims.push_back(c);
  dims.insert(dims.end(), x.dims.begin() + 2, x.dims.end());
  if (last) dims.push_back(c);
  return set_shape(out, 0, node.input_dtype(0), Shape::of(std::move(dims)));
}

/// Conv: X [N, C, spatial...] (blocked, or plain NCHW when C is below the block size: the first
/// layer reads the image directly) and W [M', C / group, k...] -> [N, M'', O...], M'' = M' padded
/// (the transformer already pads the weight's output channels, to its machine's block size).
/// Optional B [M'] and Sum (the fused Add, Y's shape).
Status conv(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const std::int32_t type = node.input_dtype(0);
  Shape x = input_shape(node, 0);
  const Shape w = input_shape(node, 1);
  if (!x.known) return set_shape(out, 0, type, x);
  // A BatchNormalization of a blocked value, which ONNX Runtime runs as a depthwise 1x1 NCHWc
  // Conv: cctx's rewrite passes the scale [C] as the weights (no kernel dims).
  if (w.known && w.rank() == 1 && x.rank() >= 3) {
    std::vector<Dim> dims(x.dims.begin(), x.dims.end());
    dims[1] = blocked(node, w.dims[0]);
    return set_shape(out, 0, type, Shape::of(std::move(dims)));
  }
  // A Conv cctx's rewrite blocked keeps the model's weights [M, C / group, ...], while its input,
  // when blocked, carries C padded to whole blocks: its channels are read as the weights say.
  if (node.attribute_type("nchwc_block") != AttrType::kNone && w.known && x.rank() >= 3) {
    x.dims[1] = w.dims[1] * node.constant(node.attr_int_or("group", 1));
  }
  std::vector<Dim> sizes;
  if (const Status s = conv_spatial_outputs(node, out, x, w, false, &sizes); s != Status::kOk) {
    return s;
  }
  std::vector<Dim> dims{x.dims[0], w.known ? blocked(node, w.dims[0]) : Dim()};
  dims.insert(dims.end(), sizes.begin(), sizes.end());
  return set_shape(out, 0, type, fill_unknown(node, out, 0, std::move(dims)));
}

/// MaxPool, AveragePool: [N, C', O...] with the pool window (kernel_shape required, ceil_mode).
Status pool(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  return pool_output(node, out, input_shape(node, 0), false, node.input_dtype(0));
}

/// GlobalMaxPool, GlobalAveragePool: [N, C', 1...].
Status global_pool(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  return set_shape(out, 0, node.input_dtype(0),
                   global_pool_output(node, rank_at_least(node, 0, 2), false));
}

/// Upsample: every dim times its integer scale (`scales` has one per axis; the kernel scales H
/// and W, the transformer writes 1 for N and C). Without scales the sizes are fresh.
Status upsample(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const std::int32_t type = node.input_dtype(0);
  const Shape x = rank_at_least(node, 0, 2);
  if (!x.known) return set_shape(out, 0, type, x);
  std::vector<std::int64_t> scales;
  std::vector<Dim> dims(x.rank());
  if (attr_ints_vec(node, "scales", &scales)) {
    if (scales.size() != x.rank()) {
      return fail("attribute 'scales' has " + std::to_string(scales.size()) + " values, expected " +
                  std::to_string(x.rank()));
    }
    for (std::size_t a = 0; a < x.rank(); ++a) {
      if (scales[a] < 1) return fail("scale " + std::to_string(scales[a]) + " is not positive");
      dims[a] = x.dims[a] * scales[a];
    }
  }
  return set_shape(out, 0, type, fill_unknown(node, out, 0, std::move(dims)));
}

/// The kernel declares MayInplace(3, 0): Y may take the fused Sum's buffer.
Status conv_inplace(const INodeView& node, IInplaceSink& out) {
  return has_input(node, 3) ? out.may_reuse(0, 3) : Status::kOk;
}

constinit const FnShapeRule kReorderInput{&reorder_input};
constinit const FnShapeRule kReorderOutput{&reorder_output};
constinit const FnShapeRule kConv{&conv};
constinit const FnShapeRule kPool{&pool};
constinit const FnShapeRule kGlobalPool{&global_pool};
constinit const FnShapeRule kUpsample{&upsample};
constinit const FnInplacePolicy kConvInplace{&conv_inplace};

}  // namespace

void register_nchwc(Registration& nchwc) {
  nchwc.shape("ReorderInput", 1, kReorderInput);
  nchwc.shape("ReorderOutput", 1, kReorderOutput);
  nchwc.shape("Conv", 1, kConv);
  nchwc.inplace("Conv", 1, kConvInplace);
  nchwc.shape("MaxPool", 1, kPool);
  nchwc.shape("AveragePool", 1, kPool);
  nchwc.shape("GlobalMaxPool", 1, kGlobalPool);
  nchwc.shape("GlobalAveragePool", 1, kGlobalPool);
  nchwc.shape("Upsample", 1, kUpsample);
}

}  // namespace cctx::opsets::microsoft
