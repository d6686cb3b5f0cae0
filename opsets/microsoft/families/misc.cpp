// Range and Trilu in their com.microsoft versions (ContribOperators.md), which predate the
// ai.onnx ones. Range: n = max(0, CeilToInt(limit - start, delta)) for integer inputs with a
// literal delta (default 1; start and limit may be symbolic), floating inputs only when all are
// constants, else a fresh length; integer results of at most 64 elements carry their value. Trilu:
// the input's shape.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "families.hpp"
#include "ms_kit.hpp"

namespace cctx::opsets::microsoft {

namespace {

constexpr std::int64_t kMaxValueElements = 64;

/// The single element of input i as a double when it is a small floating constant.
bool scalar_float(const INodeView& node, std::uint32_t i, double* out) {
  Span<double> v;
  if (!has_input(node, i) || !node.input_float_values(i, &v) || v.size != 1) return false;
  *out = v[0];
  return true;
}

Status range(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const std::int32_t type = node.input_dtype(0);
  const bool has_delta = has_input(node, 2);
  const Dim start = scalar_value(node, 0), limit = scalar_value(node, 1);
  const Dim delta = has_delta ? scalar_value(node, 2) : node.constant(1);
  std::int64_t step;
  if (start.valid() && limit.valid() && delta.valid() && delta.get_int(&step)) {
    if (step == 0) return fail("delta is 0");
    const Dim n = max(ceil_div(limit - start, step), node.constant(0));
    check(set_shape(out, 0, type, Shape::of({n})));
    std::int64_t count;
    if (n.get_int(&count) && count <= kMaxValueElements) {
      std::vector<Dim> values;
      for (std::int64_t k = 0; k < count; ++k) values.push_back(start + k * step);
      return set_value(out, 0, values);
    }
    return Status::kOk;
  }
  double fs, fl, fd = 1.0;
  if (scalar_float(node, 0, &fs) && scalar_float(node, 1, &fl) &&
      (!has_delta || scalar_float(node, 2, &fd))) {
    if (fd == 0.0) return fail("delta is 0");
    const double n = std::ceil((fl - fs) / fd);
    if (!std::isfinite(n) || n > 9.0e18) return fail("Range length is not finite");
    const auto count = static_cast<std::int64_t>(std::max(0.0, n));
    return set_shape(out, 0, type, Shape::of({node.constant(count)}));
  }
  return set_shape(out, 0, type, Shape::of({fresh(node, out, 0, 0, 0, kPosInf)}));
}

Status trilu(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const Shape x = input_shape(node, 0);
  if (x.known && x.rank() < 2) {
    return fail("input has rank " + std::to_string(x.rank()) + ", expected >= 2");
  }
  return set_shape(out, 0, node.input_dtype(0), x);
}

constinit const FnShapeRule kRange{&range};
constinit const FnShapeRule kTrilu{&trilu};

}  // namespace

void register_misc(Registration& reg) {
  reg.shape("Range", 1, kRange);
  reg.shape("Trilu", 1, kTrilu);
}

}  // namespace cctx::opsets::microsoft
