#include "pipeline/host_node_view.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>

#include "model/tensor_data.hpp"
#include "pipeline/shape_types.hpp"
#include "text/nearest_word.hpp"

namespace cctx {

namespace {
constexpr std::size_t kMaxValueElements = 64;

sdk::StringRef ref(const std::string& s) { return sdk::StringRef(s.data(), s.size()); }
sdk::StringRef ref(std::string_view s) { return sdk::StringRef(s.data(), s.size()); }
}  // namespace

HostNodeView::HostNodeView(const Analysis& analysis, const ShapeResult& shapes, ExprBridge& bridge,
                           NodeId node)
    : state_(analysis),
      shapes_(shapes),
      bridge_(bridge),
      node_(node),
      entry_(analysis.graph->node(node)),
      schema_(analysis.rules_of(node).schema) {}

HostNodeView::~HostNodeView() {
  if (node_ < state_.attributes_read.size()) state_.attributes_read[node_] |= attributes_read_;
}

sdk::StringRef HostNodeView::op_type() const noexcept { return ref(entry_.op_type); }
sdk::StringRef HostNodeView::domain() const noexcept { return ref(entry_.domain); }
sdk::StringRef HostNodeView::name() const noexcept { return ref(entry_.proto->name()); }
std::int64_t HostNodeView::opset_version() const noexcept { return entry_.opset; }
std::int64_t HostNodeView::node_index() const noexcept { return entry_.index; }
const sdk::ExprApi& HostNodeView::expr() const noexcept { return bridge_.api(); }

std::uint32_t HostNodeView::input_count() const noexcept {
  return static_cast<std::uint32_t>(entry_.inputs.size());
}
std::uint32_t HostNodeView::output_count() const noexcept {
  return static_cast<std::uint32_t>(entry_.outputs.size());
}
ValueId HostNodeView::input_value_id(std::uint32_t i) const noexcept {
  return i < entry_.inputs.size() ? entry_.inputs[i] : kNoValue;
}
bool HostNodeView::has_input(std::uint32_t i) const noexcept {
  return input_value_id(i) != kNoValue;
}
bool HostNodeView::has_output(std::uint32_t i) const noexcept {
  return i < entry_.outputs.size() && entry_.outputs[i] != kNoValue;
}
sdk::StringRef HostNodeView::input_name(std::uint32_t i) const noexcept {
  ValueId v = input_value_id(i);
  return v == kNoValue ? sdk::StringRef() : ref(state_.graph->value(v).name);
}
sdk::StringRef HostNodeView::output_name(std::uint32_t i) const noexcept {
  return has_output(i) ? ref(state_.graph->value(entry_.outputs[i]).name) : sdk::StringRef();
}
sdk::ValueKind HostNodeView::input_kind(std::uint32_t i) const noexcept {
  ValueId v = input_value_id(i);
  return v == kNoValue ? sdk::ValueKind::kUnknown : shapes_.values[v].kind;
}
std::int32_t HostNodeView::input_dtype(std::uint32_t i) const noexcept {
  ValueId v = input_value_id(i);
  return v == kNoValue ? 0 : shapes_.values[v].dtype;
}
std::int32_t HostNodeView::input_rank(std::uint32_t i) const noexcept {
  ValueId v = input_value_id(i);
  if (v == kNoValue || !shapes_.values[v].known_rank) return -1;
  return static_cast<std::int32_t>(shapes_.values[v].dims.size());
}
std::string HostNodeView::describe_input(std::uint32_t i) const {
  const ValueId v = input_value_id(i);
  std::string text = "input " + std::to_string(i);
  if (v == kNoValue) return text + ", which the node does not have";
  text += " '" + std::string(state_.graph->value(v).name) + "'";
  return text;
}

// A read the node cannot answer fails the rule (sdk README "Loud, not silent"): before SDK 1.8's
// host it gave the dim 0, and an output quietly became [B, S, 0].
std::uint32_t HostNodeView::input_dim_handle(std::uint32_t i, std::uint32_t axis) const noexcept {
  ValueId v = input_value_id(i);
  if (v != kNoValue && axis < shapes_.values[v].dims.size() && shapes_.values[v].known_rank)
      [[likely]] {
    return shapes_.values[v].dims[axis].id;
  }
  try {
    std::string what = "dim " + std::to_string(axis) + " of " + describe_input(i);
    if (v != kNoValue) {
      what += shapes_.values[v].known_rank
                  ? ", whose rank is " + std::to_string(shapes_.values[v].dims.size())
                  : ", whose rank is unknown";
    }
    return bridge_.misread("INodeView::input_dim_handle", std::move(what));
  } catch (...) {
    return bridge_.misread("INodeView::input_dim_handle", {});
  }
}
std::int32_t HostNodeView::input_value_size(std::uint32_t i) const noexcept {
  ValueId v = input_value_id(i);
  if (v == kNoValue || !shapes_.values[v].has_value) return -1;
  return static_cast<std::int32_t>(shapes_.values[v].value.size());
}
std::uint32_t HostNodeView::input_value_handle(std::uint32_t i, std::uint32_t k) const noexcept {
  ValueId v = input_value_id(i);
  if (v != kNoValue && shapes_.values[v].has_value && k < shapes_.values[v].value.size())
      [[likely]] {
    return shapes_.values[v].value[k].id;
  }
  try {
    std::string what = "element " + std::to_string(k) + " of the value of " + describe_input(i);
    if (v != kNoValue) {
      what += shapes_.values[v].has_value
                  ? ", which has " + std::to_string(shapes_.values[v].value.size()) + " elements"
                  : ", which is not known";
    }
    return bridge_.misread("INodeView::input_value_handle", std::move(what));
  } catch (...) {
    return bridge_.misread("INodeView::input_value_handle", {});
  }
}
bool HostNodeView::input_float_values(std::uint32_t i, sdk::Span<double>* out) const noexcept {
  ValueId v = input_value_id(i);
  auto it = shapes_.float_values.find(v);
  if (v == kNoValue || it == shapes_.float_values.end()) return false;
  *out = sdk::Span<double>{it->second.data(), it->second.size()};
  return true;
}
namespace {

/// `f` as an exact binary fraction num / 2^shift (num odd unless shift is 0), when both fit well
/// inside int64; false for NaN, infinities and magnitudes outside [2^-40, 2^52].
bool binary_fraction(double f, std::int64_t* num, std::int64_t* den) {
  if (!std::isfinite(f)) return false;
  if (f == 0) {
    *num = 0;
    *den = 1;
    return true;
  }
  int exponent = 0;
  const double mantissa = std::frexp(f, &exponent);  // f = mantissa * 2^exponent, |m| in [0.5, 1)
  if (exponent > 52 || exponent < -40) return false;
  auto m = static_cast<std::int64_t>(std::ldexp(mantissa, 53));  // exact: 53 significant bits
  int shift = 53 - exponent;                                     // f = m / 2^shift
  while (shift > 0 && m % 2 == 0) {
    m /= 2;
    --shift;
  }
  if (shift > 62) return false;
  *num = m;
  *den = std::int64_t{1} << shift;
  return true;
}

}  // namespace

bool HostNodeView::input_fraction_handles(std::uint32_t i, std::uint32_t* count,
                                          const std::uint32_t** nums,
                                          const std::uint32_t** dens) const noexcept {
  try {
    const ValueId v = input_value_id(i);
    if (v == kNoValue) return false;
    std::vector<std::uint32_t> n, d;
    const ValueShape& shape = shapes_.values[v];
    if (shape.has_value && shape.kind == sdk::ValueKind::kTensor) {
      const std::uint32_t one = state_.pool->integer(1).id;
      for (Expr e : shape.value) n.push_back(e.id);
      d.assign(n.size(), one);
    } else if (auto it = shapes_.fraction_values.find(v); it != shapes_.fraction_values.end()) {
      for (Expr e : it->second.nums) n.push_back(e.id);
      for (Expr e : it->second.dens) d.push_back(e.id);
    } else if (auto floats = shapes_.float_values.find(v); floats != shapes_.float_values.end()) {
      for (double f : floats->second) {
        std::int64_t num = 0, den = 1;
        if (!binary_fraction(f, &num, &den)) return false;
        n.push_back(state_.pool->integer(num).id);
        d.push_back(state_.pool->integer(den).id);
      }
    } else {
      return false;
    }
    *count = static_cast<std::uint32_t>(n.size());
    fraction_handles_.push_back(std::move(n));
    *nums = fraction_handles_.back().data();
    fraction_handles_.push_back(std::move(d));
    *dens = fraction_handles_.back().data();
    return true;
  } catch (...) {
    return false;
  }
}

bool HostNodeView::input_float_handles(std::uint32_t i, std::uint32_t* count,
                                       const std::uint32_t** terms) const noexcept {
  try {
    const ValueId v = input_value_id(i);
    if (v == kNoValue) return false;
    const ValueShape& shape = shapes_.values[v];
    FloatType type;
    if (shape.dtype == sdk::dtype::kFloat) {
      type = FloatType::kFloat32;
    } else if (shape.dtype == sdk::dtype::kDouble) {
      type = FloatType::kFloat64;
    } else {
      return false;
    }
    ExprPool& pool = *state_.pool;
    std::vector<std::uint32_t> out;
    if (auto it = shapes_.float_terms.find(v); it != shapes_.float_terms.end()) {
      for (FloatTerm t : it->second) out.push_back(t.id);
    } else if (shape.has_value && shape.kind == sdk::ValueKind::kTensor) {
      // Integers a floating tensor holds exactly (the rules that set them made sure).
      for (Expr e : shape.value) out.push_back(pool.float_of(e, type).id);
    } else if (auto f = shapes_.fraction_values.find(v); f != shapes_.fraction_values.end()) {
      // A fraction is a true division of integers the type holds: the runtime's quotient.
      for (std::size_t k = 0; k < f->second.nums.size(); ++k) {
        const std::optional<FloatTerm> q =
            pool.float_binary(FloatOp::kDiv, pool.float_of(f->second.nums[k], type),
                              pool.float_of(f->second.dens[k], type));
        if (!q) return false;
        out.push_back(q->id);
      }
    } else if (auto c = shapes_.float_values.find(v); c != shapes_.float_values.end()) {
      for (double x : c->second) {
        const std::optional<FloatTerm> t = pool.float_constant(x, type);
        if (!t) return false;  // NaN, an infinity
        out.push_back(t->id);
      }
    } else {
      return false;
    }
    *count = static_cast<std::uint32_t>(out.size());
    float_handles_.push_back(std::move(out));
    *terms = float_handles_.back().data();
    return true;
  } catch (...) {
    return false;
  }
}

bool HostNodeView::input_is_constant(std::uint32_t i) const noexcept {
  ValueId v = input_value_id(i);
  if (v == kNoValue) return false;
  const ValueEntry& e = state_.graph->value(v);
  if (e.is_initializer()) return true;
  return e.producer != kInvalidId && state_.graph->node(e.producer).op_type == "Constant" &&
         state_.graph->node(e.producer).domain.empty();
}

const AttributeKey* HostNodeView::find_key(sdk::StringRef name) const noexcept {
  const std::string_view wanted(name.size == 0 ? "" : name.data, name.size);
  const std::span<const AttributeKey> keys = state_.graph->index().attributes(node_);
  for (std::size_t k = 0; k < keys.size(); ++k) {
    if (keys[k].named(wanted)) {
      if (k < 64) attributes_read_ |= std::uint64_t{1} << k;
      return &keys[k];
    }
  }
  // Kept for attribute_slips(): only when the node has attributes a slip could have meant, and
  // a few (a rule probing a dozen optional names is not slipping a dozen times). Copied: the
  // plugin's text lives only as long as the call.
  if (!keys.empty() && attributes_missed_.size() < 16 &&
      std::find(attributes_missed_.begin(), attributes_missed_.end(), wanted) ==
          attributes_missed_.end()) {
    try {
      attributes_missed_.emplace_back(wanted);
    } catch (...) {
    }
  }
  return nullptr;
}

std::string HostNodeView::attribute_slips() const {
  if (attributes_missed_.empty()) return {};
  const std::span<const AttributeKey> keys = state_.graph->index().attributes(node_);
  std::vector<std::string_view> unread;
  for (std::size_t k = 0; k < keys.size() && k < 64; ++k) {
    if ((attributes_read_ >> k & 1U) == 0) unread.emplace_back(keys[k].proto->name());
  }
  std::string text;
  for (const std::string& missed : attributes_missed_) {
    // A name the operator's schema declares is no slip: the rule asked for an attribute the
    // operator has, which this node omits.
    if (schema_ != nullptr && schema_->attribute(missed) != nullptr) continue;
    const std::string_view near = detail::closest(missed, unread);
    if (near.empty()) continue;
    text += (text.empty() ? "" : "; ") + std::string("attribute '") + missed +
            "', which the node does not have (did you mean '" + std::string(near) + "'?)";
  }
  return text;
}

std::span<const AttributeKey> HostNodeView::attribute_keys() const {
  return state_.graph->index().attributes(node_);
}

const SchemaAttribute* HostNodeView::declared_default(sdk::StringRef name,
                                                      sdk::AttrType type) const noexcept {
  if (schema_ == nullptr) return nullptr;
  const SchemaAttribute* a =
      schema_->attribute(std::string_view(name.size == 0 ? "" : name.data, name.size));
  return a != nullptr && a->has_default && a->type == type ? a : nullptr;
}

const onnx::AttributeProto* HostNodeView::find(sdk::StringRef name) const noexcept {
  const AttributeKey* key = find_key(name);
  return key ? key->proto : nullptr;
}

// The type checks read the graph view's keys; the proto is read only for a value to return.
sdk::AttrType HostNodeView::attribute_type(sdk::StringRef name) const noexcept {
  const AttributeKey* key = find_key(name);
  return key ? static_cast<sdk::AttrType>(key->type) : sdk::AttrType::kNone;
}
bool HostNodeView::attr_int(sdk::StringRef name, std::int64_t* out) const noexcept {
  // From the graph view's key: the proto itself is not read.
  const AttributeKey* key = find_key(name);
  if (key == nullptr) {
    const SchemaAttribute* d = declared_default(name, sdk::AttrType::kInt);
    if (d != nullptr) *out = d->int_default;
    return d != nullptr;
  }
  if (key->type != AttributeKey::kInt) return false;
  *out = key->int_value;
  return true;
}
bool HostNodeView::attr_float(sdk::StringRef name, float* out) const noexcept {
  const AttributeKey* key = find_key(name);
  if (key == nullptr) {
    const SchemaAttribute* d = declared_default(name, sdk::AttrType::kFloat);
    if (d != nullptr) *out = d->float_default;
    return d != nullptr;
  }
  if (static_cast<sdk::AttrType>(key->type) != sdk::AttrType::kFloat) return false;
  *out = key->proto->f();
  return true;
}
bool HostNodeView::attr_string(sdk::StringRef name, sdk::StringRef* out) const noexcept {
  const AttributeKey* key = find_key(name);
  if (key == nullptr) {
    const SchemaAttribute* d = declared_default(name, sdk::AttrType::kString);
    if (d != nullptr) *out = ref(d->string_default);
    return d != nullptr;
  }
  if (static_cast<sdk::AttrType>(key->type) != sdk::AttrType::kString) return false;
  *out = ref(key->proto->s());
  return true;
}
bool HostNodeView::attr_ints(sdk::StringRef name, sdk::Span<std::int64_t>* out) const noexcept {
  const AttributeKey* key = find_key(name);
  if (key == nullptr) {
    const SchemaAttribute* d = declared_default(name, sdk::AttrType::kInts);
    if (d != nullptr)
      *out = sdk::Span<std::int64_t>{d->ints_default.data(), d->ints_default.size()};
    return d != nullptr;
  }
  if (key->ints_inline) {  // short lists (perm, axes, pads) from the graph view's copy
    const std::span<const std::int64_t> ints = state_.graph->index().attribute_ints(*key);
    *out = sdk::Span<std::int64_t>{ints.data(), ints.size()};
    return true;
  }
  // An attribute without any payload reads as an empty list (its type is then undefined).
  const auto t = static_cast<sdk::AttrType>(key->type);
  if (t != sdk::AttrType::kInts && t != sdk::AttrType::kNone) return false;
  const onnx::AttributeProto& a = *key->proto;
  *out = sdk::Span<std::int64_t>{a.ints().data(), static_cast<std::size_t>(a.ints_size())};
  return true;
}
bool HostNodeView::attr_floats(sdk::StringRef name, sdk::Span<float>* out) const noexcept {
  const AttributeKey* key = find_key(name);
  if (key == nullptr) {
    const SchemaAttribute* d = declared_default(name, sdk::AttrType::kFloats);
    if (d != nullptr) *out = sdk::Span<float>{d->floats_default.data(), d->floats_default.size()};
    return d != nullptr;
  }
  // As for attr_ints, an attribute without any payload reads as an empty list.
  const auto t = static_cast<sdk::AttrType>(key->type);
  if (t != sdk::AttrType::kFloats && t != sdk::AttrType::kNone) return false;
  const onnx::AttributeProto& a = *key->proto;
  *out = sdk::Span<float>{a.floats().data(), static_cast<std::size_t>(a.floats_size())};
  return true;
}
std::uint32_t HostNodeView::attr_strings_count(sdk::StringRef name) const noexcept {
  const onnx::AttributeProto* a = find(name);
  return a ? static_cast<std::uint32_t>(a->strings_size()) : 0;
}
bool HostNodeView::attr_string_at(sdk::StringRef name, std::uint32_t k,
                                  sdk::StringRef* out) const noexcept {
  const onnx::AttributeProto* a = find(name);
  if (!a || k >= static_cast<std::uint32_t>(a->strings_size())) return false;
  *out = ref(a->strings(static_cast<int>(k)));
  return true;
}
bool HostNodeView::attr_tensor(sdk::StringRef name, sdk::TensorAttr* out) const noexcept {
  const onnx::AttributeProto* a = find(name);
  if (!a || !a->has_t()) return false;
  try {
    const onnx::TensorProto& t = a->t();
    tensor_dims_.assign(t.dims().begin(), t.dims().end());
    *out = sdk::TensorAttr{};
    out->dtype = t.data_type();
    out->dims = {tensor_dims_.data(), tensor_dims_.size()};
    if (tensor_int_values(t, kMaxValueElements, &tensor_ints_)) {
      out->int_values = {tensor_ints_.data(), tensor_ints_.size()};
    }
    if (tensor_float_values(t, kMaxValueElements, &tensor_floats_)) {
      out->float_values = {tensor_floats_.data(), tensor_floats_.size()};
    }
    return true;
  } catch (...) {
    return false;
  }
}
std::int32_t HostNodeView::attr_graph_inputs(sdk::StringRef name) const noexcept {
  const onnx::AttributeProto* a = find(name);
  return a && a->has_g() ? a->g().input_size() : -1;
}
std::int32_t HostNodeView::attr_graph_outputs(sdk::StringRef name) const noexcept {
  const onnx::AttributeProto* a = find(name);
  return a && a->has_g() ? a->g().output_size() : -1;
}

std::int32_t HostNodeView::input_sequence_length(std::uint32_t i) const noexcept {
  ValueId v = input_value_id(i);
  if (v == kNoValue) return -1;
  const ValueShape& shape = shapes_.values[v];
  if (shape.kind != sdk::ValueKind::kSequence || !shape.elements) return -1;
  return static_cast<std::int32_t>(shape.elements->size());
}
bool HostNodeView::input_sequence_length_handle(std::uint32_t i,
                                                std::uint32_t* out) const noexcept {
  ValueId v = input_value_id(i);
  if (v == kNoValue) return false;
  try {
    const std::optional<Expr> length = sequence_length(*state_.pool, shapes_.values[v]);
    if (!length) return false;
    *out = length->id;
    return true;
  } catch (...) {
    return false;
  }
}
const ElementShape* HostNodeView::input_element(std::uint32_t i, std::uint32_t k) const noexcept {
  const std::int32_t length = input_sequence_length(i);
  if (length < 0 || k >= static_cast<std::uint32_t>(length)) return nullptr;
  return &(*shapes_.values[input_value_id(i)].elements)[k];
}
std::int32_t HostNodeView::input_element_rank(std::uint32_t i, std::uint32_t k) const noexcept {
  const ElementShape* e = input_element(i, k);
  return e != nullptr && e->known_rank ? static_cast<std::int32_t>(e->dims.size()) : -1;
}
std::uint32_t HostNodeView::input_element_dim_handle(std::uint32_t i, std::uint32_t k,
                                                     std::uint32_t axis) const noexcept {
  const ElementShape* e = input_element(i, k);
  if (e == nullptr || axis >= e->dims.size()) return state_.pool->integer(0).id;
  return e->dims[axis].id;
}

}  // namespace cctx
