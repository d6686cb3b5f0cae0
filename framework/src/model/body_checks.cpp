#include "model/body_checks.hpp"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include "cctx/errors.hpp"
#include "cctx/model.hpp"

namespace cctx {

void check_required_bodies(const onnx::NodeProto& node, std::int64_t opset,
                           const std::string& where) {
  if (opset < 1) return;
  const std::string domain(normalize_domain(node.domain()));
  const onnx::OpSchema* schema =
      onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(opset), domain);
  if (schema == nullptr) return;
  for (const auto& [name, attr] : schema->attributes()) {
    const bool graph =
        attr.type == onnx::AttributeProto::GRAPH || attr.type == onnx::AttributeProto::GRAPHS;
    if (!graph || !attr.required) continue;
    bool present = false;
    for (const onnx::AttributeProto& a : node.attribute()) {
      present = present || (a.name() == name && (a.has_g() || a.graphs_size() > 0));
    }
    if (!present) {
      throw ModelError(where + " has no '" + name + "' graph, which " + node.op_type() +
                       " requires");
    }
  }
}

}  // namespace cctx
