// Feature preprocessing: element-wise transforms (Binarizer, Imputer keep X's type; Normalizer,
// Scaler produce float), column selection (ArrayFeatureExtractor) and column concatenation
// (FeatureVectorizer).
#include "families.hpp"
#include "ml_kit.hpp"

namespace cctx::opsets::onnx_ml {

namespace {

// ---- element-wise ------------------------------------------------------------------------------

Status same_shape_same_type(const INodeView& node, IShapeSink& out) {
  require_x(node);
  return set_shape(out, 0, node.input_dtype(0), input_shape(node, 0));
}

// Normalizer and Scaler compute in float whatever the input type (the spec's output is
// tensor(float)), so an int64 or double X gives a narrower or equal-width result.
Status same_shape_float(const INodeView& node, IShapeSink& out) {
  require_x(node);
  return set_shape(out, 0, dtype::kFloat, input_shape(node, 0));
}

// ---- ArrayFeatureExtractor ---------------------------------------------------------------------

// Z = X[..., Y]: the indices select along the last axis, so Z keeps X's leading dims and its last
// dim is the number of indices (numel(Y), symbolic when Y's shape is). A 1-D X gives [1, K]: the
// spec's inference leaves that case open and onnxruntime returns one row.
Status array_feature_extractor(const INodeView& node, IShapeSink& out) {
  require_x(node);
  if (node.input_count() < 2 || !node.has_input(1)) return fail("expects the indices input Y");
  const std::int32_t type = node.input_dtype(0);
  Shape x = known_input(node, out, 0, type);
  if (x.rank() == 0) return fail("expects X with at least one dimension, got a scalar");
  const std::uint32_t last = x.rank() == 1 ? 1 : static_cast<std::uint32_t>(x.rank() - 1);
  Shape y = input_shape(node, 1);
  // At least one index: onnxruntime rejects an empty Y.
  Dim k = y.known ? product(node, y.dims, 0, y.rank())
                  : Dim(&node.expr(), out.fresh_dim(0, last, 1, kPosInf));
  std::vector<Dim> dims;
  if (x.rank() == 1) {
    dims = {node.constant(1), k};
  } else {
    dims.assign(x.dims.begin(), x.dims.end() - 1);
    dims.push_back(k);
  }
  return set_shape(out, 0, type, Shape::of(std::move(dims)));
}

// ---- FeatureVectorizer -------------------------------------------------------------------------

// Columns of one input: F of [N, F] (the product of the trailing dims for a higher rank, which
// onnxruntime flattens) or C of [C].
bool feature_columns(const INodeView& node, std::uint32_t i, Dim* columns) {
  Shape s = input_shape(node, i);
  if (!s.known || s.rank() == 0) return false;
  *columns = s.rank() == 1 ? s.dims[0] : product(node, s.dims, 1, s.rank());
  return true;
}

// Y [N, sum of the inputs' widths], float. `inputdimensions` gives the widths when set: the kernel
// crops or zero-pads each input to its entry, so the attribute, not the input shapes, sizes Y.
// Without it, the widths are the inputs' own column counts.
Status feature_vectorizer(const INodeView& node, IShapeSink& out) {
  require_x(node);
  Dim n;
  if (node.input_rank(0) == 0) return fail("expects inputs of shape [N,C] or [C], got a scalar");
  if (node.input_rank(0) > 2) {
    n = node.input_dim(0, 0);  // the rows of a higher-rank input; its other dims are columns
  } else {
    check(batch_rows(node, out, 0, &n));
  }
  std::vector<std::int64_t> widths;
  Dim total = node.constant(0);
  if (attr_ints_vec(node, "inputdimensions", &widths) && !widths.empty()) {
    if (widths.size() != node.input_count()) {
      return fail("'inputdimensions' has " + std::to_string(widths.size()) + " entries for " +
                  std::to_string(node.input_count()) + " inputs");
    }
    for (std::int64_t w : widths) {
      if (w < 0) return fail("'inputdimensions' has a negative entry " + std::to_string(w));
      total += node.constant(w);
    }
  } else {
    for (std::uint32_t i = 0; i < node.input_count(); ++i) {
      Dim columns;
      if (!node.has_input(i)) continue;
      if (!feature_columns(node, i, &columns)) {
        total = Dim(&node.expr(), out.fresh_dim(0, 1, 0, kPosInf));
        break;
      }
      total += columns;
    }
  }
  return set_tensor_output(node, out, 0, dtype::kFloat, {n, total});
}

constinit const FnShapeRule kSameShapeSameType{&same_shape_same_type};
constinit const FnShapeRule kSameShapeFloat{&same_shape_float};
constinit const FnShapeRule kArrayFeatureExtractor{&array_feature_extractor};
constinit const FnShapeRule kFeatureVectorizer{&feature_vectorizer};

}  // namespace

void register_preprocessing(Registration& reg) {
  reg.shape("Binarizer", 1, kSameShapeSameType);
  reg.shape("Imputer", 1, kSameShapeSameType);
  reg.shape("Normalizer", 1, kSameShapeFloat);
  reg.shape("Scaler", 1, kSameShapeFloat);
  reg.shape("ArrayFeatureExtractor", 1, kArrayFeatureExtractor);
  reg.shape("FeatureVectorizer", 1, kFeatureVectorizer);
}

}  // namespace cctx::opsets::onnx_ml
