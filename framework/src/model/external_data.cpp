// Finding external tensor data (see external_data.hpp).
#include "model/external_data.hpp"

#include <onnx/onnx_pb.h>

#include <vector>

namespace cctx::detail {

namespace {

std::optional<std::string> location_of(const onnx::TensorProto& t) {
  if (t.data_location() != onnx::TensorProto::EXTERNAL) return std::nullopt;
  for (const onnx::StringStringEntryProto& e : t.external_data()) {
    if (e.key() == "location") return e.value();
  }
  return std::string();  // external, with no location: still not held by the model
}

std::optional<std::string> location_of(const onnx::SparseTensorProto& t) {
  if (auto l = location_of(t.values())) return l;
  return location_of(t.indices());
}

}  // namespace

std::optional<std::string> first_external_location(const onnx::ModelProto& model) {
  std::vector<const onnx::GraphProto*> graphs{&model.graph()};
  std::vector<const onnx::NodeProto*> nodes;
  for (const onnx::FunctionProto& f : model.functions()) {
    for (const onnx::NodeProto& n : f.node()) nodes.push_back(&n);
  }
  while (!graphs.empty() || !nodes.empty()) {
    if (!nodes.empty()) {
      const onnx::NodeProto& n = *nodes.back();
      nodes.pop_back();
      for (const onnx::AttributeProto& a : n.attribute()) {
        if (a.has_t()) {
          if (auto l = location_of(a.t())) return l;
        }
        for (const onnx::TensorProto& t : a.tensors()) {
          if (auto l = location_of(t)) return l;
        }
        if (a.has_sparse_tensor()) {
          if (auto l = location_of(a.sparse_tensor())) return l;
        }
        for (const onnx::SparseTensorProto& t : a.sparse_tensors()) {
          if (auto l = location_of(t)) return l;
        }
        if (a.has_g()) graphs.push_back(&a.g());
        for (const onnx::GraphProto& g : a.graphs()) graphs.push_back(&g);
      }
      continue;
    }
    const onnx::GraphProto& g = *graphs.back();
    graphs.pop_back();
    for (const onnx::TensorProto& t : g.initializer()) {
      if (auto l = location_of(t)) return l;
    }
    for (const onnx::SparseTensorProto& t : g.sparse_initializer()) {
      if (auto l = location_of(t)) return l;
    }
    for (const onnx::NodeProto& n : g.node()) nodes.push_back(&n);
  }
  return std::nullopt;
}

}  // namespace cctx::detail
