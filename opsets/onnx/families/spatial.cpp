// Spatial rearrangement operators (expressions.md "Symbolic shape inference rules (ai.onnx
// plugin)"): Resize, Upsample, DepthToSpace, SpaceToDepth, CenterCropPad and Col2Im, with Resize's
// scratch estimate (0: the kernels write straight into the output, semantics.md "Peak scratch
// memory").
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "families.hpp"
#include "integral_floats.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

/// A float32 scale is exactly p/2^e with p < 2^24: `(p*x)//2^e` is exact for every such scale
/// with e <= 40 (expressions.md "Symbolic shape inference rules (ai.onnx plugin)"); the engine
/// evaluates the product in 128 bits.
constexpr int kMaxScaleExponent = 40;
constexpr double kMaxScaleNumerator = 16777216.0;

Dim fresh(const INodeView& node, IShapeSink& out, std::uint32_t o, std::size_t axis,
          std::int64_t lo, std::int64_t hi) {
  return Dim(&node.expr(), out.fresh_dim(o, static_cast<std::uint32_t>(axis), lo, hi));
}

/// floor(v) as an int64 bound: +inf saturates, negatives become 0 (a dim is never negative).
std::int64_t floor_bound(double v) {
  if (!(v > 0)) return 0;
  if (v >= 9.0e18) return kPosInf;
  return static_cast<std::int64_t>(std::floor(v));
}

/// floor(x * scale) for one axis: concrete x -> the number; integral m -> m*x; p/2^e in lowest
/// terms -> (p*x)//2^e (0.5 -> x//2, 1.5 -> (3*x)//2, 0.6f -> (5033165*x)//8388608);
/// otherwise (a tiny scale, e > 40) a fresh dim bounded by the scaled bounds.
Dim scaled_dim(const INodeView& node, IShapeSink& out, Dim x, double scale, std::size_t axis) {
  std::int64_t xv;
  if (x.get_int(&xv)) return node.constant(floor_bound(static_cast<double>(xv) * scale));
  if (scale == std::floor(scale) && scale <= 2147483647.0) {
    return x * static_cast<std::int64_t>(scale);
  }
  for (int e = 1; e <= kMaxScaleExponent; ++e) {
    const double p = std::ldexp(scale, e);
    if (p > kMaxScaleNumerator) break;
    if (p == std::floor(p)) {
      return floor_div(x * static_cast<std::int64_t>(p), std::int64_t{1} << e);
    }
  }
  std::int64_t lo, hi;
  x.bounds(&lo, &hi);
  const std::int64_t slo = floor_bound(static_cast<double>(lo) * scale);
  const std::int64_t shi = hi == kPosInf ? kPosInf : floor_bound(static_cast<double>(hi) * scale);
  return fresh(node, out, 0, axis, slo, shi < slo ? slo : shi);
}

/// Applies per-axis scales; every scale must be a positive finite number.
Status apply_scales(const INodeView& node, IShapeSink& out, std::int32_t dtype, Shape in,
                    const std::vector<std::int64_t>& axes, const double* scales,
                    std::size_t count) {
  if (count != axes.size()) {
    return fail(std::to_string(count) + " scales for " + std::to_string(axes.size()) + " axes");
  }
  for (std::size_t k = 0; k < count; ++k) {
    if (!(scales[k] > 0) || !std::isfinite(scales[k])) {
      return fail("scale " + std::to_string(scales[k]) + " is not a positive number");
    }
    const auto a = static_cast<std::size_t>(axes[k]);
    in.dims[a] = scaled_dim(node, out, in.dims[a], scales[k], a);
  }
  return set_shape(out, 0, dtype, in);
}

/// Every listed axis gets a fresh, unbounded dim (scales or sizes unknown).
Status fresh_axes(const INodeView& node, IShapeSink& out, std::int32_t dtype, Shape in,
                  const std::vector<std::int64_t>& axes) {
  for (std::int64_t a : axes) {
    in.dims[static_cast<std::size_t>(a)] =
        fresh(node, out, 0, static_cast<std::size_t>(a), 0, kPosInf);
  }
  return set_shape(out, 0, dtype, in);
}

/// Axes from the `axes` attribute (normalised, no repeats), else every axis.
std::vector<std::int64_t> read_axes(const INodeView& node, std::int64_t rank, bool use_attr) {
  std::vector<std::int64_t> axes;
  if (!use_attr || !attr_ints_vec(node, "axes", &axes)) {
    for (std::int64_t k = 0; k < rank; ++k) axes.push_back(k);
    return axes;
  }
  std::vector<bool> seen(static_cast<std::size_t>(rank), false);
  for (std::int64_t& a : axes) {
    std::int64_t n;
    if (!normalize_axis(a, rank, &n) || seen[static_cast<std::size_t>(n)]) {
      fail("bad or repeated axis " + std::to_string(a));
    }
    seen[static_cast<std::size_t>(n)] = true;
    a = n;
  }
  return axes;
}

/// Resize with `sizes`: the sizes themselves (stretch), or with keep_aspect_ratio_policy
/// (>= 18) one common scale, which is computed only when every involved dim is concrete.
Status apply_sizes(const INodeView& node, IShapeSink& out, std::int32_t dtype, Shape in,
                   const std::vector<std::int64_t>& axes, const std::vector<Dim>& sizes) {
  if (sizes.size() != axes.size()) {
    return fail(std::to_string(sizes.size()) + " sizes for " + std::to_string(axes.size()) +
                " axes");
  }
  for (Dim s : sizes) {
    std::int64_t v;
    if (s.get_int(&v) && v < 0) return fail("size " + std::to_string(v) + " is negative");
  }
  const std::string policy = node.opset_version() >= 18
                                 ? attr_string_or(node, "keep_aspect_ratio_policy", "stretch")
                                 : "stretch";
  if (policy == "stretch") {
    for (std::size_t k = 0; k < axes.size(); ++k)
      in.dims[static_cast<std::size_t>(axes[k])] = sizes[k];
    return set_shape(out, 0, dtype, in);
  }
  if (policy != "not_larger" && policy != "not_smaller") {
    return fail("unknown keep_aspect_ratio_policy '" + policy + "'");
  }
  std::vector<double> x(axes.size()), s(axes.size());
  for (std::size_t k = 0; k < axes.size(); ++k) {
    std::int64_t xv, sv;
    if (!in.dims[static_cast<std::size_t>(axes[k])].get_int(&xv) || !sizes[k].get_int(&sv) ||
        xv == 0) {
      return fresh_axes(node, out, dtype, in, axes);
    }
    x[k] = static_cast<double>(xv);
    s[k] = static_cast<double>(sv);
  }
  double scale = s[0] / x[0];
  for (std::size_t k = 1; k < axes.size(); ++k) {
    scale = policy == "not_larger" ? std::min(scale, s[k] / x[k]) : std::max(scale, s[k] / x[k]);
  }
  // round_int(scale * x): ties round up.
  for (std::size_t k = 0; k < axes.size(); ++k) {
    in.dims[static_cast<std::size_t>(axes[k])] = node.constant(floor_bound(scale * x[k] + 0.5));
  }
  return set_shape(out, 0, dtype, in);
}

/// Resize 10 (X, scales), 11/13 (X, roi, scales, sizes), 18/19 (+ `axes`,
/// `keep_aspect_ratio_policy`): sizes win when present and non-empty, else the constant scales.
/// Scales as doubles: a small floating constant, or a computed floating value whose elements are
/// concrete exact integers (Concat of [1.0, 1.0] and Cast(2) to float).
bool read_scales(const INodeView& node, std::uint32_t i, std::vector<double>* scales) {
  if (!node.has_input(i)) return false;
  Span<double> floats;
  if (node.input_float_values(i, &floats)) {
    scales->assign(floats.begin(), floats.end());
    return true;
  }
  std::vector<std::int64_t> ints;
  if (!input_ints(node, i, &ints)) return false;
  scales->assign(ints.begin(), ints.end());
  return true;
}

Status resize(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = known_input(node, out, 0, dtype);
  const auto rank = static_cast<std::int64_t>(in.rank());
  std::vector<std::int64_t> axes;
  axes = read_axes(node, rank, node.opset_version() >= 18);
  const bool v10 = node.opset_version() < 11;
  if (!v10 && node.has_input(3)) {
    std::vector<Dim> sizes;
    if (input_values(node, 3, &sizes)) {
      if (!sizes.empty()) return apply_sizes(node, out, dtype, in, axes, sizes);
    } else {
      Shape s = input_shape(node, 3);
      if (!(s.known && s.rank() == 1 && s.dims[0].is(0)))
        return fresh_axes(node, out, dtype, in, axes);
    }
  }
  const std::uint32_t scales_input = v10 ? 1 : 2;
  std::vector<double> scales;
  if (read_scales(node, scales_input, &scales) && !scales.empty()) {
    return apply_scales(node, out, dtype, in, axes, scales.data(), scales.size());
  }
  return fresh_axes(node, out, dtype, in, axes);
}

/// Upsample 1 (height_scale/width_scale on NCHW), 7 (`scales` attribute), 9/10 (scales input).
Status upsample(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = known_input(node, out, 0, dtype);
  const auto rank = static_cast<std::int64_t>(in.rank());
  std::vector<std::int64_t> axes;
  for (std::int64_t k = 0; k < rank; ++k) axes.push_back(k);
  std::vector<double> scales;
  if (node.opset_version() < 7) {
    if (rank != 4) return fail("Upsample-1 expects a 4-D input");
    scales = {1.0, 1.0, node.attr_float_or("height_scale", 1.0f),
              node.attr_float_or("width_scale", 1.0f)};
  } else if (node.opset_version() < 9) {
    Span<float> attr;
    if (!node.attr_floats(StringRef("scales"), &attr)) return fail("missing 'scales' attribute");
    scales.assign(attr.begin(), attr.end());
  } else {
    require_inputs(node, 2);
    if (!read_scales(node, 1, &scales)) return fresh_axes(node, out, dtype, in, axes);
  }
  return apply_scales(node, out, dtype, in, axes, scales.data(), scales.size());
}

/// The `blocksize` attribute (required, >= 1).
std::int64_t blocksize(const INodeView& node) {
  std::int64_t b;
  if (!node.attr_int(StringRef("blocksize"), &b)) fail("missing 'blocksize' attribute");
  if (b < 1) fail("blocksize " + std::to_string(b) + " must be >= 1");
  return b;
}

/// d /: k with `divides(k, d)` (a concrete remainder is an error).
Dim divide_exactly(const INodeView& node, IShapeSink& out, Dim d, std::int64_t k,
                   const char* what) {
  std::int64_t v;
  if (d.get_int(&v)) {
    if (v % k != 0) {
      fail(std::string(what) + " " + std::to_string(v) + " is not a multiple of " +
           std::to_string(k));
    }
  } else if (k != 1) {
    out.constraint(ConstraintKind::kDivides, node.constant(k).handle(), d.handle(), 0);
  }
  return exact_div(d, k);
}

/// DepthToSpace: `[N, C, H, W]` -> `[N, C/:(b*b), H*b, W*b]`.
Status depth_to_space(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const std::int32_t dtype = node.input_dtype(0);
  const std::int64_t b = blocksize(node);
  Shape in = known_input(node, out, 0, dtype);
  if (in.rank() != 4) return fail("input must be 4-D");
  Dim c;
  c = divide_exactly(node, out, in.dims[1], b * b, "channels");
  return set_shape(out, 0, dtype, Shape::of({in.dims[0], c, in.dims[2] * b, in.dims[3] * b}));
}

/// SpaceToDepth: `[N, C, H, W]` -> `[N, C*b*b, H/:b, W/:b]`.
Status space_to_depth(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const std::int32_t dtype = node.input_dtype(0);
  const std::int64_t b = blocksize(node);
  Shape in = known_input(node, out, 0, dtype);
  if (in.rank() != 4) return fail("input must be 4-D");
  Dim h, w;
  h = divide_exactly(node, out, in.dims[2], b, "height");
  w = divide_exactly(node, out, in.dims[3], b, "width");
  return set_shape(out, 0, dtype, Shape::of({in.dims[0], in.dims[1] * (b * b), h, w}));
}

/// CenterCropPad (18): the listed axes (attribute `axes`, default all) take the `shape` input's
/// values; unknown values give fresh dims.
Status center_crop_pad(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = known_input(node, out, 0, dtype);
  std::vector<std::int64_t> axes;
  axes = read_axes(node, static_cast<std::int64_t>(in.rank()), true);
  std::vector<Dim> sizes;
  if (!input_values(node, 1, &sizes)) return fresh_axes(node, out, dtype, in, axes);
  if (sizes.size() != axes.size()) {
    return fail(std::to_string(sizes.size()) + " sizes for " + std::to_string(axes.size()) +
                " axes");
  }
  for (std::size_t k = 0; k < axes.size(); ++k) {
    std::int64_t v;
    if (sizes[k].get_int(&v) && v < 0) return fail("size " + std::to_string(v) + " is negative");
    in.dims[static_cast<std::size_t>(axes[k])] = sizes[k];
  }
  return set_shape(out, 0, dtype, in);
}

/// Col2Im (18): input `[N, C*prod(block_shape), L]` -> `[N, C, image_shape...]`.
Status col2im(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 3);
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = input_shape(node, 0);
  if (in.known && in.rank() != 3) return fail("input must be 3-D");
  std::vector<Dim> image, block;
  const bool image_known = input_values(node, 1, &image);
  if (!image_known) {
    Shape s = input_shape(node, 1);
    std::int64_t len;
    if (!s.known || s.rank() != 1 || !s.dims[0].get_int(&len) || len < 0) {
      return set_shape(out, 0, dtype, Shape::unknown());
    }
    for (std::int64_t k = 0; k < len; ++k) {
      image.push_back(fresh(node, out, 0, static_cast<std::size_t>(k + 2), 0, kPosInf));
    }
  }
  Dim n = in.known ? in.dims[0] : fresh(node, out, 0, 0, 0, kPosInf);
  Dim c;
  std::vector<std::int64_t> block_values;
  if (in.known && input_ints(node, 2, &block_values)) {
    if (block_values.size() != image.size())
      return fail("block_shape and image_shape differ in length");
    std::int64_t k = 1;
    for (std::int64_t v : block_values) {
      if (v < 1) return fail("block_shape entry " + std::to_string(v) + " must be >= 1");
      if (k > INT32_MAX / v) return fail("block_shape is too large");
      k *= v;
    }
    c = divide_exactly(node, out, in.dims[1], k, "channels");
  } else {
    c = fresh(node, out, 0, 1, 0, kPosInf);
  }
  std::vector<Dim> dims = {n, c};
  dims.insert(dims.end(), image.begin(), image.end());
  return set_shape(out, 0, dtype, Shape::of(dims));
}

Status zero_scratch(const INodeView& node, IScratchSink& out) {
  return out.set_bytes(node.constant(0));
}

constinit const FnShapeRule kResize{&resize};
constinit const FnShapeRule kUpsample{&upsample};
constinit const FnShapeRule kDepthToSpace{&depth_to_space};
constinit const FnShapeRule kSpaceToDepth{&space_to_depth};
constinit const FnShapeRule kCenterCropPad{&center_crop_pad};
constinit const FnShapeRule kCol2Im{&col2im};
constinit const FnScratchEstimator kZeroScratch{&zero_scratch};

}  // namespace

void register_spatial(Registration& reg) {
  reg.shape("Resize", {10, 11, 13, 18, 19}, kResize);
  reg.shape("Upsample", {1, 7, 9, 10}, kUpsample);
  reg.shape("DepthToSpace", {1, 11, 13}, kDepthToSpace);
  reg.shape("SpaceToDepth", {1, 13}, kSpaceToDepth);
  reg.shape("CenterCropPad", 18, kCenterCropPad);
  reg.shape("Col2Im", 18, kCol2Im);
  reg.scratch("Resize", 10, kZeroScratch);
}

}  // namespace cctx::opsets::onnx
