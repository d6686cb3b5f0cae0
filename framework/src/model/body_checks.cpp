#include "model/body_checks.hpp"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include "cctx/errors.hpp"
#include "cctx/model.hpp"

namespace cctx {

const std::vector<std::string>& RequiredBodies::required(const onnx::NodeProto& node,
                                                         std::int64_t opset) {
  key_.assign(node.domain());
  key_ += '\n';
  key_ += node.op_type();
  key_ += '\n';
  key_ += std::to_string(opset);
  if (const auto it = cache_.find(key_); it != cache_.end()) return it->second;
  std::vector<std::string> names;
  const std::string domain(normalize_domain(node.domain()));
  const onnx::OpSchema* schema =
      onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(opset), domain);
  if (schema != nullptr) {
    for (const auto& [name, attr] : schema->attributes()) {
      const bool graph =
          attr.type == onnx::AttributeProto::GRAPH || attr.type == onnx::AttributeProto::GRAPHS;
      if (graph && attr.required) names.push_back(name);
    }
  }
  return cache_.emplace(key_, std::move(names)).first->second;
}

void RequiredBodies::check(const onnx::NodeProto& node, std::int64_t opset,
                           const std::function<std::string()>& where) {
  if (opset < 1) return;
  for (const std::string& name : required(node, opset)) {
    bool present = false;
    for (const onnx::AttributeProto& a : node.attribute()) {
      present = present || (a.name() == name && (a.has_g() || a.graphs_size() > 0));
    }
    if (!present) {
      throw ModelError(where() + " has no '" + name + "' graph, which " + node.op_type() +
                       " requires");
    }
  }
}

}  // namespace cctx
