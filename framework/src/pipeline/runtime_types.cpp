#include "pipeline/runtime_types.hpp"

#include <algorithm>
#include <unordered_set>

#include "pipeline/onnx_library.hpp"

namespace cctx {

namespace {

/// The dim names the graph's declarations (inputs, value_info, outputs) write.
std::unordered_set<std::string> dim_names_in(const onnx::GraphProto& g) {
  std::unordered_set<std::string> names;
  for (const auto* list : {&g.input(), &g.value_info(), &g.output()}) {
    for (const onnx::ValueInfoProto& vi : *list) {
      if (!vi.type().has_tensor_type()) continue;
      for (const onnx::TensorShapeProto::Dimension& d : vi.type().tensor_type().shape().dim()) {
        if (d.has_dim_param()) names.insert(d.dim_param());
      }
    }
  }
  return names;
}

}  // namespace

std::optional<RuntimeTypes> RuntimeTypes::infer(const Model& model) {
  // ONNX's inference runs in cctx's module of libonnx, whose protobuf messages are its own
  // (onnx_library.hpp): the model crosses serialized and the inferred model comes back the same
  // way. Opened outside the try: a missing module is an error of the installation.
  const detail::OnnxLibrary& onnx_library = detail::onnx_library();
  try {
    std::string text;
    if (!model.proto().SerializeToString(&text)) return std::nullopt;
    std::string serialized;
    std::string error;
    if (!onnx_library.infer_model(text, &serialized, &error)) return std::nullopt;
    onnx::ModelProto inferred;
    if (!inferred.ParseFromString(serialized)) return std::nullopt;
    RuntimeTypes out;
    // ONNX's inference names the dims it cannot infer `unk__N`; ONNX Runtime's leaves them
    // unnamed, and unnamed dims never match. A name the file itself writes is a name to ONNX
    // Runtime, `unk__N` too: tools save ONNX's inference in the model (onnxruntime.quantization
    // does), and ONNX Runtime reads those shapes as they are (its SkipLayerNormFusion fuses the
    // residual Adds of a dynamically quantized encoder on them).
    const std::unordered_set<std::string> written = dim_names_in(model.proto().graph());
    const onnx::GraphProto& g = inferred.graph();
    for (const auto* list : {&g.input(), &g.value_info(), &g.output()}) {
      for (const onnx::ValueInfoProto& vi : *list) {
        onnx::TypeProto& type = out.types_[vi.name()] = vi.type();
        if (!type.has_tensor_type() || !type.tensor_type().has_shape()) continue;
        for (onnx::TensorShapeProto::Dimension& d :
             *type.mutable_tensor_type()->mutable_shape()->mutable_dim()) {
          if (d.has_dim_param() && d.dim_param().starts_with("unk__") &&
              written.count(d.dim_param()) == 0) {
            d.clear_dim_param();
          }
        }
      }
    }
    for (const onnx::TensorProto& init : model.proto().graph().initializer()) {
      onnx::TypeProto type;
      type.mutable_tensor_type()->set_elem_type(init.data_type());
      for (const std::int64_t d : init.dims()) {
        type.mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
      }
      out.types_.emplace(init.name(), std::move(type));
    }
    out.carry_ranks(model.proto().graph());
    return out;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

const onnx::TypeProto* RuntimeTypes::find(std::string_view name) const {
  auto it = types_.find(std::string(name));
  return it == types_.end() ? nullptr : &it->second;
}

const onnx::TensorShapeProto* RuntimeTypes::shape(std::string_view name) const {
  const onnx::TypeProto* t = find(name);
  return t != nullptr && t->has_tensor_type() && t->tensor_type().has_shape()
             ? &t->tensor_type().shape()
             : nullptr;
}

std::int32_t RuntimeTypes::elem_type(std::string_view name) const {
  const onnx::TypeProto* t = find(name);
  return t != nullptr && t->has_tensor_type() ? t->tensor_type().elem_type() : 0;
}

std::int32_t RuntimeTypes::rank(std::string_view name) const {
  if (const onnx::TensorShapeProto* s = shape(name)) return s->dim_size();
  auto it = carried_ranks_.find(std::string(name));
  return it == carried_ranks_.end() ? -1 : it->second;
}

std::int32_t RuntimeTypes::known_rank(const std::string& name) const {
  return name.empty() ? -1 : rank(name);
}

std::int32_t RuntimeTypes::shape_length(const std::string& name) const {
  const onnx::TensorShapeProto* s = shape(name);
  return s != nullptr && s->dim_size() == 1 && s->dim(0).has_dim_value()
             ? static_cast<std::int32_t>(s->dim(0).dim_value())
             : -1;
}

namespace {

/// Operators whose output 0 has input 0's rank (a Concat: every input's).
bool keeps_rank(std::string_view op) {
  static const std::unordered_set<std::string_view> kOps = {
      "Abs",         "Cast",
      "Ceil",        "Clip",
      "Dropout",     "Elu",
      "Erf",         "Exp",
      "Floor",       "Gelu",
      "HardSigmoid", "HardSwish",
      "Identity",    "LayerNormalization",
      "LeakyRelu",   "Log",
      "LogSoftmax",  "Neg",
      "Not",         "Reciprocal",
      "Relu",        "Round",
      "Selu",        "Sigmoid",
      "Sign",        "SimplifiedLayerNormalization",
      "Softmax",     "Softplus",
      "Softsign",    "Sqrt",
      "Tanh",        "Slice",
      "Pad",         "Tile",
      "Trilu",       "CumSum",
      "Concat"};
  return kOps.count(op) != 0;
}

/// Broadcasting operators: the largest rank of their inputs.
bool broadcasts(std::string_view op) {
  static const std::unordered_set<std::string_view> kOps = {
      "Add", "And", "Div", "Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "Max",
      "Min", "Mod", "Mul", "Or",    "Pow",     "PRelu",          "Sub",  "Where",       "Xor"};
  return kOps.count(op) != 0;
}

}  // namespace

void RuntimeTypes::carry_ranks(const onnx::GraphProto& g) {
  // In file order (a valid model lists producers first); only the main graph's ONNX operators.
  for (const onnx::NodeProto& n : g.node()) {
    if (n.output_size() < 1 || n.output(0).empty()) continue;
    if (!n.domain().empty() && n.domain() != "ai.onnx") continue;
    if (n.op_type() == "Shape" && n.input_size() == 1 && n.attribute_size() == 0) {
      // The shape of a value of known rank has that many elements (ONNX Runtime's inference
      // knows it where onnx 1.12's leaves the length unknown): its Shape, in turn, folds.
      const std::int32_t r = known_rank(n.input(0));
      const onnx::TensorShapeProto* out = shape(n.output(0));
      if (r >= 0 && (out == nullptr || (out->dim_size() == 1 && !out->dim(0).has_dim_value()))) {
        onnx::TypeProto& type = types_[n.output(0)];
        type.mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
        onnx::TensorShapeProto* dims = type.mutable_tensor_type()->mutable_shape();
        dims->Clear();
        dims->add_dim()->set_dim_value(r);
        carried_ranks_.erase(n.output(0));
      }
      continue;
    }
    if (rank(n.output(0)) >= 0) continue;
    const std::string_view op = n.op_type();
    std::int32_t r = -1;
    if (op == "Reshape" && n.input_size() >= 2) {
      r = shape_length(n.input(1));
    } else if (op == "Transpose") {
      for (const onnx::AttributeProto& a : n.attribute()) {
        if (a.name() == "perm") r = a.ints_size();
      }
      if (r < 0 && n.input_size() >= 1) r = known_rank(n.input(0));
    } else if (op == "MatMul" && n.input_size() >= 2) {
      const std::int32_t a = known_rank(n.input(0));
      const std::int32_t b = known_rank(n.input(1));
      if (a >= 2 && b >= 2) r = std::max(a, b);
    } else if (op == "Expand" && n.input_size() >= 2) {
      const std::int32_t x = known_rank(n.input(0)), length = shape_length(n.input(1));
      if (x >= 0 && length >= 0) r = std::max(x, length);
    } else if (keeps_rank(op) && n.input_size() >= 1) {
      r = known_rank(n.input(0));
    } else if (broadcasts(op)) {
      for (const std::string& in : n.input()) {
        const std::int32_t k = known_rank(in);
        if (k < 0) {
          r = -1;
          break;
        }
        r = std::max(r, k);
      }
    }
    if (r >= 0) carried_ranks_[n.output(0)] = r;
  }
}

}  // namespace cctx
