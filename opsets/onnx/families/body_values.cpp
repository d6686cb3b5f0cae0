// The body-value layer (body_values.hpp). BodyInputs and BodyResults, the two sides of the host's
// body inference, are used by infer_body alone and stay in this file.
#include "body_values.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

BodyValue node_input(const INodeView& node, std::uint32_t i) {
  BodyValue v;
  v.kind = node.input_kind(i);
  v.dtype = node.input_dtype(i);
  v.shape = input_shape(node, i);
  v.has_value = input_values(node, i, &v.value);
  if (v.kind == ValueKind::kSequence && node.input_sequence_length_dim(i, &v.length)) {
    // A body sees one shape for every element, so only a sequence whose positions all have that
    // shape keeps its length (a symbolic length already means uniform elements).
    std::vector<Shape> elements;
    v.has_length = !input_elements(node, i, &elements) ||
                   std::all_of(elements.begin(), elements.end(),
                               [&](const Shape& e) { return same_shape(e, v.shape); });
  }
  return v;
}

BodyValue scalar_tensor(std::int32_t dtype) {
  BodyValue v;
  v.kind = ValueKind::kTensor;
  v.dtype = dtype;
  v.shape = Shape::of({});
  return v;
}

BodyValue element_of(BodyValue v) {
  if (v.kind == ValueKind::kSequence) v.kind = ValueKind::kTensor;
  v.has_value = false;
  v.value.clear();
  v.has_length = false;
  return v;
}

Status set_body_value(IShapeSink& out, std::uint32_t o, const BodyValue& v) {
  const ValueKind kind = v.kind == ValueKind::kUnknown ? ValueKind::kTensor : v.kind;
  std::vector<std::uint32_t> h = handles(v.shape.dims);
  const std::int32_t rank = v.shape.known ? static_cast<std::int32_t>(h.size()) : -1;
  check(out.set_output(o, kind, v.dtype, rank, h.data()));
  if (kind == ValueKind::kTensor && v.has_value) return set_value(out, o, v.value);
  if (kind == ValueKind::kSequence && v.has_length) return out.set_output_length(o, v.length);
  if (kind == ValueKind::kTensor && !v.shape.known && v.has_elements) {
    return out.set_output_element_count(o, v.elements);
  }
  return Status::kOk;
}

namespace {

/// Describes body inputs to the host, keeping the handle arrays alive for the call.
class BodyInputs {
 public:
  explicit BodyInputs(const std::vector<BodyValue>& values) {
    dims_.reserve(values.size());
    values_.reserve(values.size());
    for (const BodyValue& v : values) {
      dims_.push_back(handles(v.shape.dims));
      // A sequence's length travels as its one value (ValueDesc).
      const bool sequence_length = v.kind == ValueKind::kSequence && v.has_length;
      values_.push_back(sequence_length ? std::vector<std::uint32_t>{v.length.handle()}
                                        : handles(v.value));
      ValueDesc d;
      d.kind = v.kind;
      d.dtype = v.dtype;
      d.rank = v.shape.known ? static_cast<std::int32_t>(v.shape.rank()) : -1;
      d.dims = dims_.back().data();
      d.value_size =
          v.has_value || sequence_length ? static_cast<std::int32_t>(values_.back().size()) : -1;
      d.values = values_.back().data();
      descs_.push_back(d);
    }
  }
  const ValueDesc* data() const { return descs_.data(); }
  std::uint32_t size() const { return static_cast<std::uint32_t>(descs_.size()); }

 private:
  std::vector<std::vector<std::uint32_t>> dims_, values_;
  std::vector<ValueDesc> descs_;
};

/// Collects what the host reports for each body output.
class BodyResults final : public IBodyOutputs {
 public:
  explicit BodyResults(const ExprApi& api) : api_(api) {}

  void on_output(std::uint32_t index, const ValueDesc& d) noexcept override {
    try {
      if (index >= values.size()) values.resize(index + 1);
      BodyValue& v = values[index];
      v.kind = d.kind;
      v.dtype = d.dtype;
      v.shape = d.rank < 0 ? Shape::unknown() : Shape::of({});
      for (std::int32_t a = 0; a < d.rank; ++a) v.shape.dims.emplace_back(&api_, d.dims[a]);
      if (d.kind == ValueKind::kSequence) {
        v.has_length = d.value_size == 1;
        if (v.has_length) v.length = Dim(&api_, d.values[0]);
        return;
      }
      v.has_value = d.value_size >= 0;
      for (std::int32_t k = 0; k < d.value_size; ++k) v.value.emplace_back(&api_, d.values[k]);
    } catch (...) {
      failed = true;
    }
  }

  std::vector<BodyValue> values;
  bool failed = false;

 private:
  const ExprApi& api_;
};

}  // namespace

Status infer_body(const INodeView& node, IShapeSink& out, const char* attr,
                  const std::vector<BodyValue>& inputs, std::vector<BodyValue>* results) {
  BodyInputs descs(inputs);
  BodyResults collected(node.expr());
  check(out.infer_body(StringRef::from_c_str(attr), descs.size(), descs.data(), collected));
  if (collected.failed) return fail(std::string("could not record the outputs of '") + attr + "'");
  const std::int32_t expected = node.attr_graph_outputs(StringRef::from_c_str(attr));
  collected.values.resize(static_cast<std::size_t>(std::max(expected, 0)));
  // An output of unknown rank may still have a known element count (a nested If).
  for (std::uint32_t k = 0; k < collected.values.size(); ++k) {
    BodyValue& v = collected.values[k];
    std::uint32_t count = 0;
    if (v.kind != ValueKind::kSequence && !v.shape.known &&
        out.body_output_element_count_handle(k, &count) == Status::kOk) {
      v.has_elements = true;
      v.elements = Dim(&node.expr(), count);
    }
  }
  *results = std::move(collected.values);
  return Status::kOk;
}

bool same_values(const BodyValue& a, const BodyValue& b) {
  if (!a.has_value || !b.has_value || a.value.size() != b.value.size()) return false;
  for (std::size_t k = 0; k < a.value.size(); ++k) {
    if (!a.value[k].provably_eq(b.value[k])) return false;
  }
  return true;
}

}  // namespace cctx::opsets::onnx
