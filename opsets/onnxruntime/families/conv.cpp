// Conv and ConvTranspose as ONNX Runtime's CPU kernels run them (cpu/nn/conv.cc with MLAS's
// MlasConvPrepare, cpu/nn/conv_transpose.cc): the working buffer each call allocates from the
// temp-space allocator and frees before it returns, one per thread where MLAS splits the work
// (the runtime parameter `threads`, ort_kit.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "families.hpp"
#include "ort_kit.hpp"

namespace cctx::opsets::onnxruntime {
namespace {

/// MLAS's working buffer for the segmented im2col: MLAS_SGEMM_STRIDEN x MLAS_SGEMM_STRIDEK =
/// 128 x 128 floats per thread.
constexpr std::int64_t kMlasWorkingBufferBytes = std::int64_t{128} * 128 * 4;
/// MLAS splits a single image's GEMM into one thread per 64 Ki multiply-adds
/// (MLAS_SGEMM_THREAD_COMPLEXITY), at most 16 threads (MLAS_MAXIMUM_THREAD_COUNT).
constexpr std::int64_t kMlasThreadComplexity = 65536;
constexpr std::int64_t kMlasMaximumThreads = 16;

/// The threads that take a segmented working buffer each, as MlasConvPrepare of ONNX Runtime 1.30
/// counts them (measured: 1x256x64x64 with 16 3x3 filters, stride 2, takes 1, 2, 4, 8 buffers at
/// 1, 2, 4, 8 threads; a batch of 3 takes 2 at 2 threads and 3 at 8):
///   more than one image or group: min(threads, batch x groups);
///   one image of one group: min(threads, 16, F x OutputSize x K / 64 Ki + 1), and 1 when
///   OutputSize is at most 16 (one thread's stride of 16 outputs covers it). MLAS may drop one more
///   thread when the strides, rounded to 16 outputs, cover the output with one fewer; the
///   estimate keeps it (at most one buffer over).
Dim segmented_threads(const INodeView& node, Dim batch_groups, Dim multiply_adds, Dim output_size) {
  const Dim threads = intra_op_threads(node);
  Dim single =
      min(threads, min(floor_div(multiply_adds, kMlasThreadComplexity) + 1, kMlasMaximumThreads));
  std::int64_t outputs = 0;
  if (output_size.get_int(&outputs) && outputs <= 16) single = node.constant(1);
  return select_less(batch_groups, node.constant(2), single, min(threads, batch_groups));
}

/// MLAS's GemmDirect cases, which need no buffer: strides 1, no padding and a 1x1 kernel (any
/// dilation); or, in 2-D, strides 1, no padding, dilations 1, one input channel per group and a
/// kernel as wide as the input (or as high as the input and 1 wide). Symbolic dims that cannot be
/// proven equal make the second case false (the larger answer).
bool mlas_direct(const Window& w, const Shape& x, Dim channels_per_group) {
  bool unit_strides = true, unpadded = true, unit_kernel = true, unit_dilations = true;
  for (std::size_t i = 0; i < w.spatial(); ++i) {
    unit_strides = unit_strides && w.strides[i] == 1;
    unpadded = unpadded && no_padding(w, i);
    unit_kernel = unit_kernel && w.kernel[i].is(1);
    unit_dilations = unit_dilations && w.dilations[i] == 1;
  }
  if (!unit_strides || !unpadded) return false;
  if (unit_kernel) return true;
  if (w.spatial() != 2 || !unit_dilations || !channels_per_group.is(1)) return false;
  return w.kernel[1].provably_eq(x.dims[3]) ||
         (w.kernel[0].provably_eq(x.dims[2]) && w.kernel[1].is(1));
}

/// Conv<float> (kernel rank 1-3), after MlasConvPrepare, with K = (C/group) * prod(kernel),
/// OutputSize = prod(output spatial dims), F = M/group:
///   GemmDirect (mlas_direct)  -> 0;
///   F > OutputSize            -> full im2col, OutputSize * K * 4;
///   otherwise                 -> the segmented working buffer, 65536 per thread
///                                (segmented_threads).
/// The choice between the last two is exact for symbolic dims (select_less). Kernel rank > 3 and
/// other element types take the generic path: a K * OutputSize * e column buffer, none for 1x1
/// kernels with strides 1 and no padding.
Status conv_scratch(const INodeView& node, IScratchSink& out) {
  Shape x, w;
  Window win;
  std::string why;
  if (!read_conv(node, &x, &w, &win, &why)) return unsupported(why);
  std::int64_t e;
  if (!input_element_bytes(node, 0, &e, &why)) return unsupported(why);
  const std::int64_t group = node.attr_int_or("group", 1);
  if (group < 1) return unsupported("group is not positive");
  const bool w_known = w.known && w.rank() == x.rank();
  const Dim channels_per_group = w_known ? w.dims[1] : exact_div(x.dims[1], group);
  Dim kernel_size = node.constant(1), output_size = node.constant(1);
  bool pointwise = true;
  for (std::size_t i = 0; i < win.spatial(); ++i) {
    kernel_size = kernel_size * win.kernel[i];
    output_size = output_size * conv_output(win, i, x.dims[i + 2]);
    pointwise = pointwise && win.kernel[i].is(1) && win.strides[i] == 1 && no_padding(win, i);
  }
  const Dim im2col = output_size * channels_per_group * kernel_size * e;
  const bool mlas = node.input_dtype(0) == dtype::kFloat && win.spatial() <= 3;
  if (!mlas) return out.set_bytes(pointwise ? node.constant(0) : im2col);
  if (mlas_direct(win, x, channels_per_group)) return out.set_bytes(node.constant(0));
  const Dim batch_groups = x.dims[0] * group;
  const Dim k = channels_per_group * kernel_size;
  if (!w_known) {
    // Without W's shape, M (hence F) is unknown: the larger of the two buffers, with as many
    // threads as the work could take.
    const Dim most = node.constant(kMlasThreadComplexity * kMlasMaximumThreads);
    const Dim segmented =
        segmented_threads(node, batch_groups, most, output_size) * kMlasWorkingBufferBytes;
    return out.set_bytes(max(im2col, segmented));
  }
  const Dim filters_per_group = exact_div(w.dims[0], group);
  const Dim segmented =
      segmented_threads(node, batch_groups, filters_per_group * output_size * k, output_size) *
      kMlasWorkingBufferBytes;
  return out.set_bytes(select_less(output_size, filters_per_group, im2col, segmented));
}

/// ConvTranspose: the column buffer before col2im, (M/group) * prod(kernel) * prod(input spatial)
/// * e (W is [C, M/group, k...]), allocated for every call, 1x1 kernels included (measured).
Status conv_transpose_scratch(const INodeView& node, IScratchSink& out) {
  Shape x, w;
  Window win;
  std::string why;
  if (!read_conv(node, &x, &w, &win, &why)) return unsupported(why);
  if (!w.known || w.rank() < 2) return unsupported("weight shape unknown");
  std::int64_t e;
  if (!input_element_bytes(node, 0, &e, &why)) return unsupported(why);
  Dim bytes = w.dims[1] * e;
  for (std::size_t i = 0; i < win.spatial(); ++i) bytes = bytes * win.kernel[i] * x.dims[i + 2];
  return out.set_bytes(bytes);
}

/// Whether QLinearConv runs MLAS's symmetric kernels (MlasConvSymPackWSize, x86): uint8 data
/// (the u8s8 kernels; int8 data has none on this machine class, measured), int8 weights whose
/// zero points are all 0, and one group of input channels a multiple of 4 and at least 16
/// output channels, a multiple of 8, or depthwise over a multiple of 16 channels.
bool symmetric_qlinear_conv(const INodeView& node, const Dim& in_channels, const Dim& maps,
                            bool depthwise, std::int64_t group) {
  if (node.input_dtype(0) != dtype::kUint8 || node.input_dtype(3) != dtype::kInt8) return false;
  std::vector<Dim> zero_points;
  if (!node.has_input(5) || !node.input_is_constant(5) || !input_values(node, 5, &zero_points) ||
      zero_points.empty()) {
    return false;
  }
  for (const Dim& z : zero_points) {
    if (!z.is(0)) return false;
  }
  if (depthwise) return group % 16 == 0;
  std::int64_t c = 0;
  std::int64_t m = 0;
  return group == 1 && in_channels.get_int(&c) && maps.get_int(&m) && c % 4 == 0 && m >= 16 &&
         m % 8 == 0;
}

/// QLinearConv (cpu/quantization/qlinearconv.cc), ai.onnx's (NCHW) and com.microsoft's
/// (`channels_last`), per image (the loop over the batch reuses them) unless noted, e = 1
/// (8-bit data), OutputSize = prod(output spatial dims), M output channels:
///   the int32 GEMM output, 4 * M * OutputSize, except on the symmetric kernels (requantized
///     as they go);
///   NCHW only: the input and output transposed to NHWC, C * InputSize + M * OutputSize;
///   depthwise (one input and one output channel per group), and on the symmetric kernels
///     unless pointwise (1x1, strides 1, no padding): the indirection buffer,
///     8 * prod(kernel) * OutputSize (pointers), for the whole batch at once on the symmetric
///     kernels channels-last;
///   otherwise, unless pointwise: the im2col column buffer, (C/group) * prod(kernel) *
///     OutputSize.
/// Measured alone under ONNX Runtime 1.30 (3x3, 1x1, 7x7 stride 2, depthwise; int8 and uint8
/// activations): every byte but MLAS's few bytes of overrun.
Status qlinear_conv_scratch(const INodeView& node, IScratchSink& out) {
  Shape x, w;
  Window win;
  std::string why;
  if (!read_conv(node, &x, &w, &win, &why, 3)) return unsupported(why);
  if (!w.known || w.rank() != x.rank()) return unsupported("weight shape unknown");
  const bool last = node.attr_int_or("channels_last", 0) != 0;
  const std::int64_t group = node.attr_int_or("group", 1);
  if (group < 1) return unsupported("group is not positive");
  const std::size_t first = last ? 1 : 2;
  const Dim channels = last ? x.dims.back() : x.dims[1];
  Dim kernel_size = node.constant(1), input_size = node.constant(1), output_size = node.constant(1);
  bool pointwise = true;
  for (std::size_t i = 0; i < win.spatial(); ++i) {
    kernel_size = kernel_size * win.kernel[i];
    input_size = input_size * x.dims[first + i];
    output_size = output_size * conv_output(win, i, x.dims[first + i]);
    pointwise = pointwise && win.kernel[i].is(1) && win.strides[i] == 1 && no_padding(win, i);
  }
  const Dim maps = w.dims[0];
  const bool depthwise = w.dims[1].is(1) && maps.provably_eq(node.constant(group));
  const bool symmetric = symmetric_qlinear_conv(node, w.dims[1], maps, depthwise, group);
  std::vector<Dim> blocks;
  if (!symmetric) blocks.push_back(maps * output_size * 4);
  if (!last) {
    blocks.push_back(channels * input_size);
    blocks.push_back(maps * output_size);
  }
  if (depthwise || (symmetric && !pointwise)) {
    const Dim indirection = kernel_size * output_size * 8;
    blocks.push_back(symmetric && last ? indirection * x.dims[0] : indirection);
  } else if (!pointwise) {
    blocks.push_back(w.dims[1] * kernel_size * output_size);
  }
  if (blocks.empty()) return out.set_constant_bytes(0);
  return add_blocks(out, blocks);
}

constinit const FnScratchEstimator kConvScratch{&conv_scratch};
constinit const FnScratchEstimator kQLinearConvScratch{&qlinear_conv_scratch};
constinit const FnScratchEstimator kConvTransposeScratch{&conv_transpose_scratch};

}  // namespace

void register_conv(Registration& reg) {
  register_every_version(reg, "Conv", 1, kConvScratch);
  register_every_version(reg, "ConvTranspose", 1, kConvTransposeScratch);
  register_every_version(reg, "QLinearConv", 10, kQLinearConvScratch);
}

const sdk::IScratchEstimator& qlinear_conv_scratch_estimator() { return kQLinearConvScratch; }

const sdk::IScratchEstimator& conv_scratch_estimator() { return kConvScratch; }

}  // namespace cctx::opsets::onnxruntime
