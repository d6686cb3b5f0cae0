// Scan (the control-flow family): the layout of states and scan inputs (Scan 8 prepends a batch
// axis), the trip count and batch shared by the inputs, the states through the loop fixpoint
// (carried_fixpoint.hpp), and the scan outputs stacked along their axes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "body_values.hpp"
#include "carried_fixpoint.hpp"
#include "control_flow_rules.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

// ---- Scan ---------------------------------------------------------------------------------------

/// Unifies a dim shared by several inputs (Scan's trip count, Scan 8's batch): the first known
/// one wins, the others are recorded equal; concrete conflicts are errors.
class SharedDim {
 public:
  explicit SharedDim(const char* what) : what_(what) {}

  Status add(IShapeSink& out, Dim d) {
    if (!known_) {
      dim_ = d;
      known_ = true;
      return Status::kOk;
    }
    if (d.provably_eq(dim_)) return Status::kOk;
    std::int64_t a, b;
    if ((d.get_int(&a) && dim_.get_int(&b)) || d.provably_ne(dim_)) {
      return fail(std::string(what_) + " differs between inputs: " + to_string(dim_) + " vs " +
                  to_string(d));
    }
    out.constraint(ConstraintKind::kEq, dim_.handle(), d.handle(), 0);
    return Status::kOk;
  }

  bool known() const { return known_; }

  /// True when an input gave the dim and it is provably >= 1.
  bool provably_positive() const { return known_ && dim_.provably_ge(dim_.lift(1)); }

  /// The shared dim, or a fresh one named after (output, axis) when no input knows it.
  Dim get(const INodeView& node, IShapeSink& out, std::uint32_t o, std::uint32_t axis) {
    if (!known_) {
      dim_ = fresh(node, out, o, axis, 0, kPosInf);
      known_ = true;
    }
    return dim_;
  }

 private:
  const char* what_;
  Dim dim_;
  bool known_ = false;
};

/// Axes attribute with one entry per item (default 0); false when the length is wrong.
bool per_item_axes(const INodeView& node, const char* name, std::uint32_t count,
                   std::vector<std::int64_t>* axes) {
  if (!attr_ints_vec(node, name, axes)) axes->assign(count, 0);
  return axes->size() == count;
}

Shape without_axes(const Shape& s, std::size_t first, std::size_t count) {
  Shape r = s;
  r.dims.erase(r.dims.begin() + static_cast<std::ptrdiff_t>(first),
               r.dims.begin() + static_cast<std::ptrdiff_t>(first + count));
  return r;
}

struct ScanLayout {
  bool batched = false;  ///< Scan 8: inputs [batch, seq, ...], states [batch, ...]
  std::uint32_t first_state = 0, states = 0, scan_inputs = 0, scan_outputs = 0;
  std::vector<std::int64_t> input_axes, output_axes;
};

Status read_scan_layout(const INodeView& node, ScanLayout* l) {
  std::int64_t m;
  if (!node.attr_int("num_scan_inputs", &m) || m < 0) return fail("missing 'num_scan_inputs'");
  l->batched = node.opset_version() < 9;
  l->first_state = l->batched ? 1 : 0;
  const auto inputs = static_cast<std::int64_t>(node.input_count()) - l->first_state;
  if (inputs < m) return fail("fewer inputs than num_scan_inputs");
  l->scan_inputs = static_cast<std::uint32_t>(m);
  l->states = static_cast<std::uint32_t>(inputs - m);
  if (node.output_count() < l->states) return fail("fewer outputs than state variables");
  l->scan_outputs = node.output_count() - l->states;
  if (node.attr_graph_outputs("body") != static_cast<std::int32_t>(node.output_count())) {
    return fail("body outputs do not match the node outputs");
  }
  if (l->batched) return Status::kOk;
  if (!per_item_axes(node, "scan_input_axes", l->scan_inputs, &l->input_axes) ||
      !per_item_axes(node, "scan_output_axes", l->scan_outputs, &l->output_axes)) {
    return fail("scan_input_axes/scan_output_axes do not have one entry per scan input/output");
  }
  return Status::kOk;
}

/// The scan elements the body sees, unifying the trip count (and Scan 8's batch) on the way.
Status scan_elements(const INodeView& node, IShapeSink& out, const ScanLayout& l, SharedDim* trip,
                     SharedDim* batch, std::vector<BodyValue>* elements) {
  for (std::uint32_t i = 0; i < l.scan_inputs; ++i) {
    BodyValue v = element_of(node_input(node, l.first_state + l.states + i));
    if (v.shape.known) {
      const auto rank = static_cast<std::int64_t>(v.shape.rank());
      std::int64_t axis = 1;
      if (!l.batched && !normalize_axis(l.input_axes[i], rank, &axis)) {
        return fail("scan input " + std::to_string(i) + " axis out of range");
      }
      if (axis >= rank) return fail("scan input " + std::to_string(i) + " has no sequence axis");
      check(trip->add(out, v.shape.dims[static_cast<std::size_t>(axis)]));
      if (l.batched) {
        check(batch->add(out, v.shape.dims[0]));
        v.shape = without_axes(v.shape, 0, 2);
      } else {
        v.shape = without_axes(v.shape, static_cast<std::size_t>(axis), 1);
      }
    }
    elements->push_back(std::move(v));
  }
  return Status::kOk;
}

Status scan_op(const INodeView& node, IShapeSink& out) {
  ScanLayout l;
  check(read_scan_layout(node, &l));
  SharedDim trip("sequence length"), batch("batch size");
  std::vector<BodyValue> initial, elements;
  for (std::uint32_t k = 0; k < l.states; ++k) {
    BodyValue v = node_input(node, l.first_state + k);
    if (l.batched && v.shape.known) {
      if (v.shape.rank() == 0) return fail("state " + std::to_string(k) + " has no batch axis");
      check(batch.add(out, v.shape.dims[0]));
      v.shape = without_axes(v.shape, 0, 1);
    }
    initial.push_back(std::move(v));
  }
  check(scan_elements(node, out, l, &trip, &batch, &elements));
  const std::uint32_t offset = l.batched ? 1 : 0;
  CarriedFixpoint scan(node, out, std::move(initial), offset);
  check(scan.run("body", {}, elements, 0, trip.provably_positive()));
  for (std::uint32_t k = 0; k < l.states; ++k) {
    if (!node.has_output(k)) continue;
    BodyValue final_state = scan.carried()[k];
    if (final_state.kind == ValueKind::kSequence) {
      final_state.has_length = false;
      if (trip.known()) final_state = scan.final_value(k, 0, trip.get(node, out, k, 0));
    }
    if (l.batched && final_state.shape.known) {
      final_state.shape.dims.insert(final_state.shape.dims.begin(), batch.get(node, out, k, 0));
    }
    check(set_body_value(out, k, final_state));
  }
  for (std::uint32_t j = 0; j < l.scan_outputs; ++j) {
    const std::uint32_t o = l.states + j;
    if (!node.has_output(o)) continue;
    Shape element = scan.per_iteration_shape(o, o, offset + 1);
    if (element.known) {
      std::int64_t axis = 0;
      const auto rank = static_cast<std::int64_t>(element.rank()) + 1;
      if (!l.batched && !normalize_axis(l.output_axes[j], rank, &axis)) {
        return fail("scan output " + std::to_string(j) + " axis out of range");
      }
      const auto at = static_cast<std::uint32_t>(axis) + offset;
      element.dims.insert(element.dims.begin() + static_cast<std::ptrdiff_t>(axis),
                          trip.get(node, out, o, at));
      if (l.batched) element.dims.insert(element.dims.begin(), batch.get(node, out, o, 0));
    }
    check(set_shape(out, o, scan.results()[o].dtype, element));
  }
  return Status::kOk;
}

}  // namespace

constinit const FnShapeRule kScan{&scan_op};

}  // namespace cctx::opsets::onnx
