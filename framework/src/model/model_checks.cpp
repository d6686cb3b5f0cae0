// Rejects models that are malformed or too large before the graph view and the pipeline see them:
// every later stage may then assume sane ranks, non-negative dims and a bounded nesting depth.
#include "model/model_checks.hpp"

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cctx/dtypes.hpp"
#include "cctx/errors.hpp"
#include "cctx/model.hpp"
#include "model/onnx_attributes.hpp"

namespace cctx::detail {

namespace {

std::string name_of(const onnx::NodeProto& n) {
  return (n.name().empty() ? std::string("(unnamed)") : "'" + n.name() + "'") + " (" + n.op_type() +
         ")";
}

/// What a check is about, as an error names it ("initializer 'W'", "attribute 'value' of node
/// 'c' (Constant)"): its text is built only when a check fails. A 10k-node export has thousands
/// of tensors and values, and building each one's text up front was a tenth of the checks.
struct Subject {
  const char* kind;                       ///< "value", "initializer" or "attribute"
  const std::string& name;                ///< the value's, tensor's or attribute's
  const onnx::NodeProto* node = nullptr;  ///< an attribute's node
  std::string text() const {
    std::string out = std::string(kind) + " '" + name + "'";
    if (node != nullptr) out += " of node " + name_of(*node);
    return out;
  }
};

class Checker {
 public:
  Checker(const onnx::ModelProto& model, const std::string& source, const Limits& limits)
      : model_(model), source_(source), limits_(limits) {
    for (const auto& op : model.opset_import()) {
      domains_.insert(std::string(normalize_domain(op.domain())));
    }
  }

  void run() {
    // (graph, depth): explicit stack instead of recursion.
    std::vector<std::pair<const onnx::GraphProto*, std::int64_t>> stack{{&model_.graph(), 0}};
    while (!stack.empty()) {
      auto [g, depth] = stack.back();
      stack.pop_back();
      if (depth > limits_.subgraph_depth) {
        fail("subgraphs are nested more than " + std::to_string(limits_.subgraph_depth) +
             " levels deep (limits.subgraph_depth)");
      }
      check_graph(*g);
      for (const onnx::NodeProto& n : g->node()) {
        for (const onnx::AttributeProto& a : n.attribute()) {
          if (a.has_g()) stack.emplace_back(&a.g(), depth + 1);
          for (const onnx::GraphProto& sub : a.graphs()) stack.emplace_back(&sub, depth + 1);
          if (a.has_t()) check_tensor(a.t(), Subject{"attribute", a.name(), &n});
          for (const onnx::TensorProto& t : a.tensors()) {
            check_tensor(t, Subject{"attribute", a.name(), &n});
          }
        }
      }
    }
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw ModelError(source_ + ": " + problem);
  }

  void check_graph(const onnx::GraphProto& g) {
    nodes_ += g.node_size();
    if (nodes_ > limits_.nodes) {
      fail("more than " + std::to_string(limits_.nodes) + " nodes (limits.nodes)");
    }
    for (const onnx::NodeProto& n : g.node()) {
      const std::string domain(normalize_domain(n.domain()));
      if (domains_.count(domain) == 0) {
        fail("node " + name_of(n) + " uses domain '" + (domain.empty() ? "ai.onnx" : domain) +
             "', which the model does not import (no opset_import entry)");
      }
      if (n.attribute_size() > 0) check_attribute_types(n, domain);
    }
    for (const auto* list : {&g.input(), &g.output(), &g.value_info()}) {
      for (const onnx::ValueInfoProto& vi : *list)
        check_type(vi.type(), Subject{"value", vi.name()});
    }
    for (const onnx::TensorProto& t : g.initializer()) {
      check_tensor(t, Subject{"initializer", t.name()});
    }
  }

  // A rule asking for `perm` as ints would read a float `perm` as absent and silently use the
  // default: ONNX's own schemas say which type each attribute must have.
  void check_attribute_types(const onnx::NodeProto& n, const std::string& domain) {
    const auto declared = schema_attributes(n.op_type(), domain);
    if (!declared) return;  // a custom op, or one ONNX does not know: its plugin checks
    for (const onnx::AttributeProto& a : n.attribute()) {
      if (a.type() == onnx::AttributeProto::UNDEFINED || !a.ref_attr_name().empty()) continue;
      const OnnxAttribute* want = find_attribute(*declared, a.name());
      if (want == nullptr || want->type == a.type()) continue;
      fail("attribute '" + a.name() + "' of node " + name_of(n) + " is " +
           onnx::AttributeProto::AttributeType_Name(a.type()) + ", but " + n.op_type() + " wants " +
           onnx::AttributeProto::AttributeType_Name(
               static_cast<onnx::AttributeProto::AttributeType>(want->type)));
    }
  }

  /// onnx_schema_attributes for an operator of `domain` at the model's opset, looked up once per
  /// operator: a graph repeats a few dozen operators thousands of times, and each search of the
  /// schema table compared strings a dozen times (a tenth of the load of a 10k-node export).
  std::optional<std::span<const OnnxAttribute>> schema_attributes(const std::string& op_type,
                                                                  const std::string& domain) {
    schema_key_.assign(domain);
    schema_key_ += '\0';
    schema_key_ += op_type;
    if (const auto it = schemas_.find(std::string_view(schema_key_)); it != schemas_.end()) {
      return it->second;
    }
    const std::int64_t opset = opset_of(domain);
    const auto declared = onnx_schema_attributes(
        op_type, std::min<std::int64_t>(opset, std::numeric_limits<int>::max()), domain);
    schemas_.emplace(schema_key_, declared);
    return declared;
  }

  std::int64_t opset_of(const std::string& domain) const {
    for (const auto& op : model_.opset_import()) {
      if (normalize_domain(op.domain()) == domain) return op.version();
    }
    return -1;
  }

  // dims: concrete values (negative ones rejected) and the product of the concrete ones.
  void check_dims(std::int64_t rank, const Subject& what) const {
    if (rank > limits_.rank) {
      fail(what.text() + " has rank " + std::to_string(rank) + ", above " +
           std::to_string(limits_.rank) + " (limits.rank)");
    }
  }

  void check_dim_value(std::int64_t v, std::int64_t& elements, bool& overflow,
                       const Subject& what) const {
    if (v < 0) fail(what.text() + " has a negative dim " + std::to_string(v));
    if (!overflow && __builtin_mul_overflow(elements, v, &elements)) overflow = true;
  }

  // The size in bytes, ceil(elements * bits / 8), must fit int64 (elements*bits need not: a
  // 2^61-byte uint8 tensor is fine, and so is a 2^62-byte int4 one). A type whose width is
  // unknown here (a plugin's) counts a byte per element; the pipeline checks its real width.
  void check_bytes(std::int64_t elements, bool overflow, std::int32_t dtype,
                   const Subject& what) const {
    if (overflow) {
      fail(what.text() +
           " has more bytes than a 64-bit size can hold (its dims multiply past 2^63)");
    }
    const std::uint32_t known_bits = dtype_bits(dtype, nullptr);
    __extension__ typedef unsigned __int128 Wide;
    const auto bits = static_cast<Wide>(known_bits == 0 ? 8 : known_bits);
    // At most (2^63 - 1) * 128 + 7: no overflow in 128 bits.
    const Wide bytes = (static_cast<Wide>(elements) * bits + 7) / 8;
    if (bytes > static_cast<Wide>(std::numeric_limits<std::int64_t>::max())) {
      fail(what.text() + " has more bytes than a 64-bit size can hold (" +
           std::to_string(elements) + " elements of " + std::to_string(known_bits) +
           " bits, more than 2^63 - 1 bytes)");
    }
  }

  void check_type(const onnx::TypeProto& type, const Subject& what) const {
    // Sequence/optional/map types wrap one another as a chain: follow it with a loop.
    const onnx::TypeProto* t = &type;
    for (int hops = 0; t != nullptr && hops < 64; ++hops) {
      switch (t->value_case()) {
        case onnx::TypeProto::kTensorType:
          check_tensor_type(t->tensor_type().elem_type(), t->tensor_type().shape(),
                            t->tensor_type().has_shape(), what);
          return;
        case onnx::TypeProto::kSparseTensorType:
          check_tensor_type(t->sparse_tensor_type().elem_type(), t->sparse_tensor_type().shape(),
                            t->sparse_tensor_type().has_shape(), what);
          return;
        case onnx::TypeProto::kSequenceType:
          t = &t->sequence_type().elem_type();
          break;
        case onnx::TypeProto::kOptionalType:
          t = &t->optional_type().elem_type();
          break;
        case onnx::TypeProto::kMapType:
          t = &t->map_type().value_type();
          break;
        default:
          return;
      }
    }
  }

  void check_tensor_type(std::int32_t dtype, const onnx::TensorShapeProto& shape, bool has_shape,
                         const Subject& what) const {
    if (!has_shape) return;
    check_dims(shape.dim_size(), what);
    std::int64_t elements = 1;
    bool overflow = false;
    for (const auto& d : shape.dim()) {
      if (d.has_dim_value()) {
        check_dim_value(d.dim_value(), elements, overflow, what);
      } else if (d.has_dim_param() &&
                 static_cast<std::int64_t>(d.dim_param().size()) > limits_.expression_chars) {
        fail(what.text() + " has a dim_param of " + std::to_string(d.dim_param().size()) +
             " characters, above " + std::to_string(limits_.expression_chars) +
             " (limits.expression_chars)");
      }
    }
    check_bytes(elements, overflow, dtype, what);
  }

  void check_tensor(const onnx::TensorProto& t, const Subject& what) const {
    check_dims(t.dims_size(), what);
    std::int64_t elements = 1;
    bool overflow = false;
    for (std::int64_t d : t.dims()) check_dim_value(d, elements, overflow, what);
    check_bytes(elements, overflow, t.data_type(), what);
    if (t.data_location() == onnx::TensorProto::EXTERNAL) check_external(t, what);
  }

  // cctx never reads external data (sizes come from dims), but a location that leaves the
  // model's folder is a sign of a hostile file: refuse it rather than carry it into outputs.
  void check_external(const onnx::TensorProto& t, const Subject& what) const {
    for (const onnx::StringStringEntryProto& e : t.external_data()) {
      if (e.key() != "location") continue;
      const std::filesystem::path location(e.value());
      const std::filesystem::path normal = location.lexically_normal();
      const bool escapes = e.value().empty() || location.has_root_path() ||
                           (!normal.empty() && *normal.begin() == "..");
      if (escapes) {
        fail(what.text() + " has external data at '" + e.value() +
             "', outside the model's folder (refused; external data is never read)");
      }
    }
  }

  const onnx::ModelProto& model_;
  const std::string& source_;
  const Limits& limits_;
  std::set<std::string> domains_;
  /// Keyed by domain, '\0', operator: how transparent lookups find a string_view.
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view k) const { return std::hash<std::string_view>{}(k); }
  };
  std::unordered_map<std::string, std::optional<std::span<const OnnxAttribute>>, KeyHash,
                     std::equal_to<>>
      schemas_;
  std::string schema_key_;  ///< the key being looked up, its buffer reused
  std::int64_t nodes_ = 0;
};

}  // namespace

void check_model(const onnx::ModelProto& model, const std::string& source, const Limits& limits) {
  Checker(model, source, limits).run();
}

}  // namespace cctx::detail
