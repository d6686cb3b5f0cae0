#include "pipeline/shape_types.hpp"

#include <onnx/onnx_pb.h>

namespace cctx {

std::string sanitize_symbol(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 1);
  for (char c : name) {
    bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    out += ok ? c : '_';
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out.insert(out.begin(), '_');
  return out;
}

namespace {

void read_tensor_type(ExprPool& pool, const onnx::TypeProto::Tensor& t, ValueShape* out,
                      const std::function<Expr(std::size_t)>& fresh, bool onnx_unknowns) {
  out->dtype = t.elem_type();
  if (!t.has_shape()) return;
  out->known_rank = true;
  out->dims.reserve(static_cast<std::size_t>(t.shape().dim_size()));
  for (int k = 0; k < t.shape().dim_size(); ++k) {
    const onnx::TensorShapeProto::Dimension& d = t.shape().dim(k);
    const auto axis = static_cast<std::size_t>(k);
    if (d.has_dim_value() && d.dim_value() >= 0) {
      out->dims.push_back(pool.integer(d.dim_value()));
    } else if (d.has_dim_param() && !d.dim_param().empty() &&
               !(onnx_unknowns && d.dim_param().rfind("unk__", 0) == 0)) {
      out->dims.push_back(pool.parse_dim(d.dim_param()));
    } else {
      out->dims.push_back(fresh(axis));
    }
  }
}

}  // namespace

ValueShape from_type_proto(ExprPool& pool, const onnx::TypeProto& type,
                           const std::function<Expr(std::size_t)>& fresh, bool onnx_unknowns) {
  ValueShape out;
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType:
      out.kind = ValueKind::kTensor;
      read_tensor_type(pool, type.tensor_type(), &out, fresh, onnx_unknowns);
      break;
    case onnx::TypeProto::kSequenceType: {
      out.kind = ValueKind::kSequence;
      const onnx::TypeProto& elem = type.sequence_type().elem_type();
      if (elem.has_tensor_type())
        read_tensor_type(pool, elem.tensor_type(), &out, fresh, onnx_unknowns);
      break;
    }
    case onnx::TypeProto::kOptionalType: {
      out.kind = ValueKind::kOptional;
      const onnx::TypeProto& elem = type.optional_type().elem_type();
      if (elem.has_tensor_type())
        read_tensor_type(pool, elem.tensor_type(), &out, fresh, onnx_unknowns);
      break;
    }
    case onnx::TypeProto::kMapType:
      out.kind = ValueKind::kMap;
      break;
    case onnx::TypeProto::kSparseTensorType: {
      out.kind = ValueKind::kSparseTensor;
      onnx::TypeProto::Tensor t;
      t.set_elem_type(type.sparse_tensor_type().elem_type());
      if (type.sparse_tensor_type().has_shape())
        *t.mutable_shape() = type.sparse_tensor_type().shape();
      read_tensor_type(pool, t, &out, fresh, onnx_unknowns);
      break;
    }
    default:
      break;
  }
  return out;
}

onnx::TypeProto_Tensor* tensor_part(onnx::TypeProto& type, ValueKind kind) {
  switch (kind) {
    case ValueKind::kSequence:
      return type.mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type();
    case ValueKind::kOptional:
      return type.mutable_optional_type()->mutable_elem_type()->mutable_tensor_type();
    default:
      return type.mutable_tensor_type();
  }
}

onnx::TypeProto to_type_proto(ExprPool& pool, const ValueShape& shape) {
  onnx::TypeProto type;
  onnx::TypeProto::Tensor* tensor = tensor_part(type, shape.kind);
  tensor->set_elem_type(shape.dtype);
  if (shape.known_rank) {
    onnx::TensorShapeProto* s = tensor->mutable_shape();
    for (Expr d : shape.dims) {
      auto* dim = s->add_dim();
      if (auto k = pool.as_int(d)) {
        dim->set_dim_value(*k);
      } else {
        dim->set_dim_param(pool.print(d));
      }
    }
  }
  return type;
}

Expr fresh_output_dim(Analysis& s, ShapeResult& shapes, NodeId n, std::uint32_t out,
                      std::uint32_t axis, std::int64_t lo, std::int64_t hi) {
  const NodeEntry& node = s.graph->node(n);
  const GraphEntry& g = s.graph->graphs()[node.graph];
  std::string name = g.symbol_prefix + sanitize_symbol(node.op_type) + "_" +
                     std::to_string(node.index) + "_o" + std::to_string(out) + "_d" +
                     std::to_string(axis);
  // A body inferred several times (Loop, Scan) asks again for the same dim: it gets the same
  // symbol, not name_2, name_3, ...
  auto it = shapes.fresh_dims.find(name);
  if (it != shapes.fresh_dims.end()) return it->second;
  std::string origin = describe_node(*s.graph, n) + " output " + std::to_string(out) + " axis " +
                       std::to_string(axis);
  Expr e = s.pool->fresh_symbol(name, Interval{lo, hi}, origin);
  shapes.fresh_dims.emplace(std::move(name), e);
  return e;
}

Expr fresh_declared_dim(Analysis& s, ValueId v, std::size_t axis) {
  const std::string value(s.graph->value(v).name);
  return s.pool->fresh_symbol(
      "unk_" + sanitize_symbol(value) + "_d" + std::to_string(axis), kDimBounds,
      "'" + value + "' dim " + std::to_string(axis) + " (declared without size)");
}

void set_sequence_length(ExprPool& pool, Expr length, std::size_t max_tracked, ValueShape& shape) {
  shape.elements.reset();
  shape.length.reset();
  const std::optional<std::int64_t> n = pool.as_int(length);
  if (n && *n >= 0 && static_cast<std::uint64_t>(*n) <= max_tracked) {
    ElementShape element;
    element.known_rank = shape.known_rank;
    if (element.known_rank) element.dims = shape.dims;
    shape.elements.emplace(static_cast<std::size_t>(*n), element);
    return;
  }
  shape.length = length;
}

std::optional<Expr> sequence_length(ExprPool& pool, const ValueShape& shape) {
  if (shape.kind != ValueKind::kSequence) return std::nullopt;
  if (shape.elements) return pool.integer(static_cast<std::int64_t>(shape.elements->size()));
  return shape.length;
}

}  // namespace cctx
