// Helpers shared by the ONNX Runtime scratch estimators: the registration of one estimator over
// every opset an operator exists in, the sliding-window attributes of Conv and ConvTranspose,
// broadcasting without a shape sink, and exact "if a < b" selections in the expression algebra.
// Plugins share code only through the SDK, so the window reading repeats the few lines of the
// ai.onnx plugin's sliding_window.hpp that the estimators need.
#pragma once

#include <cctx/sdk/kit.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cctx::opsets::onnxruntime {

using namespace cctx::sdk;
using namespace cctx::sdk::kit;  // has_input, element_bytes, cannot_estimate, attr_ints_vec, ...

/// Gives a kernel's working memory block by block in the kernel's order (the arena replay places
/// each on its own); the first refusal stops it.
inline Status add_blocks(IScratchSink& out, const std::vector<Dim>& blocks) {
  for (const Dim& block : blocks) {
    if (const Status s = out.add_block(block); s != Status::kOk) return s;
  }
  return Status::kOk;
}

/// The newest ai.onnx opset an estimator is registered at (see register_every_version).
inline constexpr std::int32_t kMaxOpset = 27;

/// Registers `estimator` for `op` at every since_version from `first` (the opset that introduced
/// the operator) to kMaxOpset.
///
/// Why every version: the registry resolves a node to the newest rule with since_version <= the
/// model's opset, kind by kind, and this plugin is loaded after the ai.onnx plugin with
/// `override: true`. A key both plugins register is replaced by ours; but if we registered only at
/// `first`, an ai.onnx estimator at any later since_version (today's or one added later) would be
/// newer than ours for models at or above that opset and would win. With a key at each version
/// from `first` to kMaxOpset, ours is the newest at every opset up to kMaxOpset whatever the
/// ai.onnx plugin registers. Versions before `first` are left out: no valid model has the op
/// there (the key would be harmless, but it would clutter `cctx plugins`).
inline void register_every_version(Registration& reg, const char* op, std::int32_t first,
                                   const IScratchEstimator& estimator) {
  for (std::int32_t v = first; v <= kMaxOpset; ++v) reg.scratch(op, v, estimator);
}

// ---- expressions --------------------------------------------------------------------------------

/// 1 when a < b, else 0, for integer expressions (dims are integers): min(1, max(0, b - a)).
/// Exact for every assignment, and the engine drops it to a constant when the bounds decide it.
inline Dim less_than(Dim a, Dim b) { return min(max(b - a, 0), 1); }

/// `then_value` when a < b, else `else_value`, exactly. Decided at once when the host can prove
/// the relation; otherwise the selection 1[a<b]*then + (1-1[a<b])*else.
inline Dim select_less(Dim a, Dim b, Dim then_value, Dim else_value) {
  const DimRelation r = a.compare(b);
  if (r == DimRelation::kLt) return then_value;
  if (r == DimRelation::kGe || r == DimRelation::kGt || r == DimRelation::kEq) return else_value;
  const Dim lt = less_than(a, b);
  return lt * then_value + (1 - lt) * else_value;
}

/// ONNX Runtime's intra-op threads: the runtime parameter `threads` the profile declares
/// (memory.threads; an assignment gives it, or its default applies). Kernels that take one
/// working buffer per thread of the pool write their scratch in it.
inline Dim intra_op_threads(const INodeView& node) {
  static constexpr char kName[] = "threads";
  const sdk::ExprApi& api = node.expr();
  return Dim(&api, api.parse(api.pool, kName, sizeof kName - 1));
}

/// Product of the dims of a known shape.
inline Dim numel(const INodeView& node, const Shape& s) {
  return product(node, s.dims, 0, s.rank());
}

/// Numpy broadcasting of two known shapes, for an estimator (no sink for constraints): a dim
/// equal to 1 takes the other; equal dims stay; otherwise the larger (a valid model broadcasts
/// only equal dims or 1, and dims are >= 1, so max is exact there).
inline Shape broadcast2(const Shape& a, const Shape& b) {
  const std::size_t rank = a.rank() > b.rank() ? a.rank() : b.rank();
  std::vector<Dim> dims(rank);
  for (std::size_t k = 0; k < rank; ++k) {
    const bool in_a = k + a.rank() >= rank, in_b = k + b.rank() >= rank;
    if (!in_a) {
      dims[k] = b.dims[k + b.rank() - rank];
      continue;
    }
    const Dim da = a.dims[k + a.rank() - rank];
    if (!in_b) {
      dims[k] = da;
      continue;
    }
    const Dim db = b.dims[k + b.rank() - rank];
    if (da.is(1) || da.same(db)) {
      dims[k] = db;
    } else if (db.is(1)) {
      dims[k] = da;
    } else {
      dims[k] = max(da, db);
    }
  }
  return Shape::of(std::move(dims));
}

// ---- sliding windows (Conv, ConvTranspose) ------------------------------------------------------

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

/// The window attributes of one convolution node, per spatial axis.
struct Window {
  std::vector<Dim> kernel;  ///< from kernel_shape, else W's dims [2:]
  std::vector<std::int64_t> strides, dilations;
  std::vector<std::int64_t> pads;  ///< begin values, then end values (0 under auto_pad)
  AutoPad auto_pad = AutoPad::kNotSet;

  std::size_t spatial() const { return strides.size(); }
  std::int64_t pad_begin(std::size_t i) const { return pads[i]; }
  std::int64_t pad_end(std::size_t i) const { return pads[i + spatial()]; }
};

/// Reads X (rank >= 3), W (input `w_input`: 3 for QLinearConv) and the window of a Conv or
/// ConvTranspose node; `why` on failure.
inline bool read_conv(const INodeView& node, Shape* x, Shape* w, Window* win, std::string* why,
                      std::uint32_t w_input = 1) {
  if (!known_shape(node, 0, x) || x->rank() < 3) {
    *why = "rank of X unknown or below 3";
    return false;
  }
  *w = has_input(node, w_input) ? input_shape(node, w_input) : Shape::unknown();
  const std::size_t spatial = x->rank() - 2;
  std::vector<std::int64_t> ks;
  if (attr_ints_vec(node, "kernel_shape", &ks)) {
    if (ks.size() != spatial) {
      *why = "attribute 'kernel_shape' has " + std::to_string(ks.size()) + " values, expected " +
             std::to_string(spatial);
      return false;
    }
    for (std::int64_t k : ks) win->kernel.push_back(node.constant(k));
  } else if (w->known && w->rank() == spatial + 2) {
    win->kernel.assign(w->dims.begin() + 2, w->dims.end());
  } else {
    *why = "kernel size unknown (no kernel_shape and no weight shape)";
    return false;
  }
  if (!ints_attr(node, "strides", spatial, 1, &win->strides, why)) return false;
  if (!ints_attr(node, "dilations", spatial, 1, &win->dilations, why)) return false;
  for (std::size_t i = 0; i < spatial; ++i) {
    if (win->strides[i] < 1 || win->dilations[i] < 1) {
      *why = "strides and dilations must be positive";
      return false;
    }
  }
  const std::string mode = attr_string_or(node, "auto_pad", "NOTSET");
  if (mode == "NOTSET") {
    win->auto_pad = AutoPad::kNotSet;
  } else if (mode == "SAME_UPPER") {
    win->auto_pad = AutoPad::kSameUpper;
  } else if (mode == "SAME_LOWER") {
    win->auto_pad = AutoPad::kSameLower;
  } else if (mode == "VALID") {
    win->auto_pad = AutoPad::kValid;
  } else {
    *why = "unknown auto_pad '" + mode + "'";
    return false;
  }
  if (win->auto_pad == AutoPad::kNotSet)
    return ints_attr(node, "pads", 2 * spatial, 0, &win->pads, why);
  win->pads.assign(2 * spatial, 0);
  return true;
}

/// True when the window provably pads nothing on axis i: explicit pads 0, VALID, or SAME with a
/// window that covers exactly the strided input (kernel 1 and stride 1).
inline bool no_padding(const Window& w, std::size_t i) {
  switch (w.auto_pad) {
    case AutoPad::kNotSet:
      return w.pad_begin(i) == 0 && w.pad_end(i) == 0;
    case AutoPad::kValid:
      return true;
    default:
      return w.kernel[i].is(1) && w.strides[i] == 1;
  }
}

/// Output size of a convolution window over input size x on axis i.
inline Dim conv_output(const Window& w, std::size_t i, Dim x) {
  const std::int64_t s = w.strides[i];
  if (w.auto_pad == AutoPad::kSameUpper || w.auto_pad == AutoPad::kSameLower) {
    return ceil_div(x, s);
  }
  const Dim eff = (w.kernel[i] - 1) * w.dilations[i] + 1;
  if (w.auto_pad == AutoPad::kValid) return floor_div(x - eff, s) + 1;
  return floor_div(x + (w.pad_begin(i) + w.pad_end(i)) - eff, s) + 1;
}

}  // namespace cctx::opsets::onnxruntime
