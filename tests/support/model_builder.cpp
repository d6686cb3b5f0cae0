#include "model_builder.hpp"

#include "test_env.hpp"

namespace cctx::test {

namespace {

void fill_type(onnx::TypeProto* type, int dtype, const ShapeSpec& shape) {
  auto* t = type->mutable_tensor_type();
  t->set_elem_type(dtype);
  if (!shape.has_shape) return;
  auto* s = t->mutable_shape();
  for (const DimSpec& d : shape.dims) {
    auto* dim = s->add_dim();
    if (std::holds_alternative<std::int64_t>(d)) {
      dim->set_dim_value(std::get<std::int64_t>(d));
    } else if (!std::get<std::string>(d).empty()) {
      dim->set_dim_param(std::get<std::string>(d));
    }
  }
}

}  // namespace

onnx::AttributeProto attr(const std::string& name, std::int64_t v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(v);
  return a;
}
onnx::AttributeProto attr(const std::string& name, int v) {
  return attr(name, static_cast<std::int64_t>(v));
}
onnx::AttributeProto attr(const std::string& name, float v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(v);
  return a;
}
onnx::AttributeProto attr(const std::string& name, const std::string& v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::STRING);
  a.set_s(v);
  return a;
}
onnx::AttributeProto attr(const std::string& name, const char* v) {
  return attr(name, std::string(v));
}
onnx::AttributeProto attr(const std::string& name, std::vector<std::int64_t> v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INTS);
  for (std::int64_t x : v) a.add_ints(x);
  return a;
}
onnx::AttributeProto attr(const std::string& name, std::vector<float> v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::FLOATS);
  for (float x : v) a.add_floats(x);
  return a;
}
onnx::AttributeProto attr(const std::string& name, std::vector<std::string> v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::STRINGS);
  for (const std::string& x : v) a.add_strings(x);
  return a;
}
onnx::AttributeProto attr(const std::string& name, const onnx::TensorProto& v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::TENSOR);
  *a.mutable_t() = v;
  return a;
}
onnx::AttributeProto attr(const std::string& name, const onnx::GraphProto& v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::GRAPH);
  *a.mutable_g() = v;
  return a;
}

onnx::TensorProto tensor_ints(const std::string& name, std::vector<std::int64_t> values,
                              std::vector<std::int64_t> dims, int dtype) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(dtype);
  if (dims.size() == 1 && dims[0] == -1) dims[0] = static_cast<std::int64_t>(values.size());
  for (std::int64_t d : dims) t.add_dims(d);
  for (std::int64_t v : values) {
    if (dtype == kInt64) {
      t.add_int64_data(v);
    } else {
      t.add_int32_data(static_cast<std::int32_t>(v));
    }
  }
  return t;
}

onnx::TensorProto tensor_floats(const std::string& name, std::vector<float> values,
                                std::vector<std::int64_t> dims) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(kFloat);
  if (dims.size() == 1 && dims[0] == -1) dims[0] = static_cast<std::int64_t>(values.size());
  for (std::int64_t d : dims) t.add_dims(d);
  for (float v : values) t.add_float_data(v);
  return t;
}

onnx::TensorProto tensor_zeros(const std::string& name, int dtype, std::vector<std::int64_t> dims) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(dtype);
  std::int64_t count = 1;
  for (std::int64_t d : dims) {
    t.add_dims(d);
    count *= d;
  }
  int width = 4;
  switch (dtype) {
    case kInt64:
    case kDouble:
      width = 8;
      break;
    case kFloat16:
      width = 2;
      break;
    case kInt8:
    case kUint8:
    case kBool:
      width = 1;
      break;
    default:
      break;
  }
  t.set_raw_data(std::string(static_cast<std::size_t>(count * width), '\0'));
  return t;
}

ModelBuilder::ModelBuilder(std::int64_t opset, std::int64_t ir_version)
    : model_(std::make_unique<onnx::ModelProto>()) {
  model_->set_ir_version(ir_version);
  auto* op = model_->add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  model_->mutable_graph()->set_name("test");
}

ModelBuilder& ModelBuilder::opset(const std::string& domain, std::int64_t version) {
  for (auto& op : *model_->mutable_opset_import()) {
    if (op.domain() == domain) {
      op.set_version(version);
      return *this;
    }
  }
  auto* op = model_->add_opset_import();
  op->set_domain(domain);
  op->set_version(version);
  return *this;
}

ModelBuilder& ModelBuilder::input(const std::string& name, int dtype, ShapeSpec shape) {
  auto* vi = model_->mutable_graph()->add_input();
  vi->set_name(name);
  fill_type(vi->mutable_type(), dtype, shape);
  return *this;
}

ModelBuilder& ModelBuilder::output(const std::string& name, int dtype, ShapeSpec shape) {
  auto* vi = model_->mutable_graph()->add_output();
  vi->set_name(name);
  if (dtype != 0 || shape.has_shape) fill_type(vi->mutable_type(), dtype, shape);
  return *this;
}

ModelBuilder& ModelBuilder::value_info(const std::string& name, int dtype, ShapeSpec shape) {
  auto* vi = model_->mutable_graph()->add_value_info();
  vi->set_name(name);
  fill_type(vi->mutable_type(), dtype, shape);
  return *this;
}

ModelBuilder& ModelBuilder::initializer(const onnx::TensorProto& t) {
  *model_->mutable_graph()->add_initializer() = t;
  return *this;
}

ModelBuilder& ModelBuilder::initializer_ints(const std::string& name,
                                             std::vector<std::int64_t> values,
                                             std::vector<std::int64_t> dims) {
  return initializer(tensor_ints(name, std::move(values), std::move(dims)));
}

ModelBuilder& ModelBuilder::initializer_floats(const std::string& name, std::vector<float> values,
                                               std::vector<std::int64_t> dims) {
  return initializer(tensor_floats(name, std::move(values), std::move(dims)));
}

ModelBuilder& ModelBuilder::node(const std::string& op, std::vector<std::string> inputs,
                                 std::vector<std::string> outputs,
                                 std::vector<onnx::AttributeProto> attrs, const std::string& domain,
                                 const std::string& name) {
  auto* n = model_->mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_domain(domain);
  n->set_name(name);
  for (auto& i : inputs) n->add_input(i);
  for (auto& o : outputs) n->add_output(o);
  for (auto& a : attrs) *n->add_attribute() = std::move(a);
  return *this;
}

onnx::GraphProto ModelBuilder::graph() const { return model_->graph(); }

Model ModelBuilder::build() const {
  return Model::adopt(std::make_unique<onnx::ModelProto>(*model_), "test-model");
}

ValueId Analysis::id(const std::string& name) const {
  ValueId v = ctx->graph().find(name);
  if (v == kNoValue) throw std::runtime_error("no value named '" + name + "'");
  return v;
}

const ValueShape& Analysis::shape(const std::string& name) const { return ctx->shape(id(name)); }

Dims Analysis::dims(const std::string& name) const {
  const ValueShape& s = shape(name);
  if (!s.known_rank) return {"<unknown rank>"};
  Dims out;
  for (Expr e : s.dims) out.push_back(ctx->pool().print(e));
  return out;
}

Dims Analysis::value(const std::string& name) const {
  Dims out;
  for (Expr e : shape(name).value) out.push_back(ctx->pool().print(e));
  return out;
}

std::int32_t Analysis::dtype(const std::string& name) const { return shape(name).dtype; }
std::string Analysis::scratch(NodeId n) const {
  return ctx->pool().print(ctx->node_peak_memory(n));
}
std::string Analysis::print(Expr e) const { return ctx->pool().print(e); }

std::string Analysis::warnings() const {
  std::string out;
  for (const Diagnostic& d : ctx->diagnostics()) out += d.message + "\n";
  return out;
}

bool Analysis::has_warning(const std::string& needle) const {
  return warnings().find(needle) != std::string::npos;
}

std::int64_t Analysis::run_frame_bytes(const Profile& profile, std::size_t nodes_run) const {
  const GraphEntry& main = ctx->graph().main();
  std::size_t values = main.inputs.size() + main.initializers.size();
  for (NodeId n : main.nodes) {
    for (ValueId v : ctx->graph().node(n).outputs) values += v != kNoValue ? 1 : 0;
  }
  const Profile::Memory& m = profile.memory;
  return m.run_overhead_bytes + m.run_overhead_per_value_bytes * static_cast<std::int64_t>(values) +
         m.run_overhead_per_node_bytes * static_cast<std::int64_t>(nodes_run);
}

Analysis analyze(Model model, const Profile& profile) {
  Analysis a;
  a.model = std::make_unique<Model>(std::move(model));
  a.host = make_host(profile);
  a.ctx = std::make_unique<ComputeContext>(*a.host);
  a.ctx->compute(*a.model);
  return a;
}

Analysis analyze(const ModelBuilder& builder, void (*adjust)(Profile&)) {
  Profile profile = default_profile();
  if (adjust != nullptr) adjust(profile);
  return analyze(builder.build(), profile);
}

}  // namespace cctx::test
