// Map operators: CastMap and DictVectorizer turn a map into a [1, C] tensor; ZipMap turns a
// [N, C] score tensor into a sequence of maps.
#include "families.hpp"
#include "ml_kit.hpp"

namespace cctx::opsets::onnx_ml {

namespace {

// Y [1, C] of the `cast_to` type. DENSE packs the map's entries, so C is the map's size, which no
// attribute gives (a fresh symbol); SPARSE places each key at its index, so C is `max_map`.
// onnxruntime allocates the leading 1 that the spec's "1-D tensor" leaves out.
Status cast_map(const INodeView& node, IShapeSink& out) {
  require_x(node);
  const std::string cast_to = attr_string_or(node, "cast_to", "TO_FLOAT");
  std::int32_t type;
  if (cast_to == "TO_FLOAT") {
    type = dtype::kFloat;
  } else if (cast_to == "TO_INT64") {
    type = dtype::kInt64;
  } else if (cast_to == "TO_STRING") {
    type = dtype::kString;
  } else {
    return fail("'cast_to' must be TO_FLOAT, TO_INT64 or TO_STRING, got '" + cast_to + "'");
  }
  const std::string form = attr_string_or(node, "map_form", "DENSE");
  Dim columns;
  if (form == "DENSE") {
    columns = Dim(&node.expr(), out.fresh_dim(0, 1, 0, kPosInf));
  } else if (form == "SPARSE") {
    const std::int64_t max_map = node.attr_int_or("max_map", 1);
    if (max_map <= 0)
      return fail("'max_map' must be > 0 with SPARSE, got " + std::to_string(max_map));
    columns = node.constant(max_map);
  } else {
    return fail("'map_form' must be DENSE or SPARSE, got '" + form + "'");
  }
  return set_tensor_output(node, out, 0, type, {node.constant(1), columns});
}

// Y [1, V], V = the vocabulary's length (absent keys give zeros). The element type is the map's
// value type, which the host reports as the map input's dtype when it knows it; otherwise it stays
// undefined and a declared output type fills it in.
Status dict_vectorizer(const INodeView& node, IShapeSink& out) {
  require_x(node);
  const std::int64_t strings = attr_length(node, "string_vocabulary");
  const std::int64_t ints = attr_length(node, "int64_vocabulary");
  if ((strings >= 0) == (ints >= 0)) {
    return fail("exactly one of 'string_vocabulary', 'int64_vocabulary' must be set");
  }
  const std::int64_t size = strings >= 0 ? strings : ints;
  return set_tensor_output(node, out, 0, node.input_dtype(0),
                           {node.constant(1), node.constant(size)});
}

// Z = seq(map(label, float)), one map per row: a sequence of maps, whose size this analysis does
// not model (kind kSequence, unknown rank). Its element type is left undefined on purpose: for a
// sequence, dtype describes a tensor element, and a map is none (writing the model back would
// otherwise declare seq(tensor(float))). X must be [N, C] or [C] with C = the label count.
Status zip_map(const INodeView& node, IShapeSink& out) {
  require_x(node);
  Shape x = input_shape(node, 0);
  if (x.known && x.rank() != 1 && x.rank() != 2) {
    return fail("expects X of shape [N,C] or [C], got rank " + std::to_string(x.rank()));
  }
  const std::int64_t labels = class_labels(node, "classlabels_int64s").count;
  if (x.known && labels > 0) {
    const Dim columns = x.dims.back();
    std::int64_t c;
    if (columns.get_int(&c)) {
      if (c != labels) {
        return fail("X has " + std::to_string(c) + " columns for " + std::to_string(labels) +
                    " class labels");
      }
    } else {
      out.constraint(ConstraintKind::kEq, columns.handle(), node.constant(labels).handle(), 0);
    }
  }
  return out.set_output(0, ValueKind::kSequence, dtype::kUndefined, -1, nullptr);
}

constinit const FnShapeRule kCastMap{&cast_map};
constinit const FnShapeRule kDictVectorizer{&dict_vectorizer};
constinit const FnShapeRule kZipMap{&zip_map};

}  // namespace

void register_maps(Registration& reg) {
  reg.shape("CastMap", 1, kCastMap);
  reg.shape("DictVectorizer", 1, kDictVectorizer);
  reg.shape("ZipMap", 1, kZipMap);
}

}  // namespace cctx::opsets::onnx_ml
