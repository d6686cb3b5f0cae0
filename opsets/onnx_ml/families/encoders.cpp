// Encoders: LabelEncoder and CategoryMapper map each element (same shape, another element type);
// OneHotEncoder appends one axis of the category count.
#include "families.hpp"
#include "ml_kit.hpp"

namespace cctx::opsets::onnx_ml {

namespace {

// The string <-> int64 direction of CategoryMapper and LabelEncoder-1: the input type decides.
// When it is unknown, the spec's other hint is which default the node sets ("if the string default
// value is set, it will convert integers to strings"); with neither, the type stays undefined for
// a declared output type to fill in.
std::int32_t swapped_string_int(const INodeView& node) {
  const std::int32_t in = node.input_dtype(0);
  if (in == dtype::kString) return dtype::kInt64;
  if (in == dtype::kInt64) return dtype::kString;
  const bool default_string = node.attribute_type(StringRef("default_string")) != AttrType::kNone;
  const bool default_int = node.attribute_type(StringRef("default_int64")) != AttrType::kNone;
  if (default_string && !default_int) return dtype::kString;
  if (default_int && !default_string) return dtype::kInt64;
  return dtype::kUndefined;
}

Status string_int_map(const INodeView& node, IShapeSink& out) {
  require_x(node);
  return set_shape(out, 0, swapped_string_int(node), input_shape(node, 0));
}

// LabelEncoder-2 and -4: the output type is the type of the `values_*` attribute that is set
// (`values_tensor` exists from opset 4 and may hold int16/int32/double as well).
Status label_encoder(const INodeView& node, IShapeSink& out) {
  require_x(node);
  std::int32_t type = attr_tensor_dtype(node, "values_tensor");
  if (type == dtype::kUndefined) {
    if (attr_set(node, "values_strings")) {
      type = dtype::kString;
    } else if (attr_set(node, "values_int64s")) {
      type = dtype::kInt64;
    } else if (attr_set(node, "values_floats")) {
      type = dtype::kFloat;
    } else {
      return fail(
          "LabelEncoder needs one of 'values_tensor', 'values_strings', "
          "'values_int64s', 'values_floats'");
    }
  }
  return set_shape(out, 0, type, input_shape(node, 0));
}

// Y = X's shape + [C], float, C = the category count of the one `cats_*` list that is set.
Status one_hot_encoder(const INodeView& node, IShapeSink& out) {
  require_x(node);
  const std::int64_t ints = attr_length(node, "cats_int64s");
  const std::int64_t strings = attr_length(node, "cats_strings");
  if ((ints >= 0) == (strings >= 0)) {
    return fail("exactly one of 'cats_int64s', 'cats_strings' must be set");
  }
  Shape x = known_input(node, out, 0, dtype::kFloat);
  x.dims.push_back(node.constant(ints >= 0 ? ints : strings));
  return set_shape(out, 0, dtype::kFloat, x);
}

constinit const FnShapeRule kStringIntMap{&string_int_map};
constinit const FnShapeRule kLabelEncoder{&label_encoder};
constinit const FnShapeRule kOneHotEncoder{&one_hot_encoder};

}  // namespace

void register_encoders(Registration& reg) {
  reg.shape("CategoryMapper", 1, kStringIntMap);
  reg.shape("LabelEncoder", 1, kStringIntMap);
  reg.shape("LabelEncoder", {2, 4}, kLabelEncoder);
  reg.shape("OneHotEncoder", 1, kOneHotEncoder);
}

}  // namespace cctx::opsets::onnx_ml
