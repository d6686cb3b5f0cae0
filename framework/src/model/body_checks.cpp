#include "model/body_checks.hpp"

#include <onnx/onnx_pb.h>

#include "cctx/model.hpp"
#include "model/onnx_attributes.hpp"

namespace cctx {

const std::string* RequiredBodies::missing(const onnx::NodeProto& node, std::uint32_t kind,
                                           std::int64_t opset) {
  if (opset < 1) return nullptr;
  if (kind >= by_kind_.size()) by_kind_.resize(kind + 1);
  std::optional<std::vector<std::string>>& names = by_kind_[kind];
  if (!names) {
    names.emplace();
    const std::string domain(normalize_domain(node.domain()));
    if (const auto declared =
            detail::onnx_schema_attributes(node.op_type(), static_cast<int>(opset), domain)) {
      for (const detail::OnnxAttribute& attr : *declared) {
        const bool graph =
            attr.type == onnx::AttributeProto::GRAPH || attr.type == onnx::AttributeProto::GRAPHS;
        if (graph && attr.required) names->emplace_back(attr.name);
      }
    }
  }
  for (const std::string& name : *names) {
    bool present = false;
    for (const onnx::AttributeProto& a : node.attribute()) {
      present = present || (a.name() == name && (a.has_g() || a.graphs_size() > 0));
    }
    if (!present) return &name;
  }
  return nullptr;
}

}  // namespace cctx
