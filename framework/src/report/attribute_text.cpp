#include "attribute_text.hpp"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <cctype>

#include "cctx/safe_text.hpp"

namespace cctx {

namespace {

constexpr int kShownItems = 8;  // "short lists": longer ones end with ", ... (N items)"

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return safe_text::terminal(out + "\"");
}

template <class Items, class Show>
std::string list(const Items& items, Show show) {
  std::string out = "[";
  const int n = items.size();
  for (int k = 0; k < n && k < kShownItems; ++k) out += (k ? ", " : "") + show(items.Get(k));
  if (n > kShownItems) out += fmt::format(", ... ({} items)", n);
  return out + "]";
}

std::string dtype(int type) {
  if (!onnx::TensorProto::DataType_IsValid(type)) return fmt::format("dtype{}", type);
  std::string name =
      onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(type));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

std::string tensor(const onnx::TensorProto& t) {
  std::string dims;
  for (std::int64_t d : t.dims()) dims += (dims.empty() ? "" : ",") + std::to_string(d);
  return dtype(t.data_type()) + "[" + dims + "]";
}

std::string graph(const onnx::GraphProto& g) {
  return fmt::format("graph '{}' ({} nodes)", safe_text::terminal(g.name()), g.node_size());
}

std::string value(const onnx::AttributeProto& a) {
  using A = onnx::AttributeProto;
  switch (a.type()) {
    case A::INT:
      return std::to_string(a.i());
    case A::FLOAT:
      return fmt::format("{}", a.f());
    case A::STRING:
      return quoted(a.s());
    case A::TENSOR:
      return tensor(a.t());
    case A::GRAPH:
      return graph(a.g());
    case A::INTS:
      return list(a.ints(), [](std::int64_t v) { return std::to_string(v); });
    case A::FLOATS:
      return list(a.floats(), [](float v) { return fmt::format("{}", v); });
    case A::STRINGS:
      return list(a.strings(), [](const std::string& s) { return quoted(s); });
    case A::TENSORS:
      return list(a.tensors(), [](const onnx::TensorProto& t) { return tensor(t); });
    case A::GRAPHS:
      return list(a.graphs(), [](const onnx::GraphProto& g) { return graph(g); });
    case A::SPARSE_TENSOR:
      return "sparse " + tensor(a.sparse_tensor().values());
    case A::TYPE_PROTO:
    case A::TYPE_PROTOS:
      return "type";
    case A::SPARSE_TENSORS:
      return fmt::format("[{} sparse tensors]", a.sparse_tensors_size());
    default:
      break;
  }
  // No type (an old model): ONNX infers it from the field that is set.
  if (a.has_i()) return std::to_string(a.i());
  if (a.has_f()) return fmt::format("{}", a.f());
  if (a.has_s()) return quoted(a.s());
  return "?";
}

}  // namespace

std::string attribute_text(const onnx::AttributeProto& attribute) {
  if (!attribute.ref_attr_name().empty()) {  // inside a function body: `axis = @axis`
    return safe_text::terminal(attribute.name()) + " = @" +
           safe_text::terminal(attribute.ref_attr_name());
  }
  return safe_text::terminal(attribute.name()) + " = " + value(attribute);
}

}  // namespace cctx
