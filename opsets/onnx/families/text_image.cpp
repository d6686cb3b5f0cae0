// Text, image and detection operators: StringNormalizer, TfIdfVectorizer, RegexFullMatch,
// StringConcat, StringSplit, ImageDecoder, NonMaxSuppression. Data-dependent sizes are fresh
// symbols bounded by what the inputs allow.
#include <algorithm>

#include "families.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

Dim fresh(const INodeView& node, IShapeSink& out, std::uint32_t o, std::uint32_t axis,
          std::int64_t lo, std::int64_t hi) {
  return Dim(&node.expr(), out.fresh_dim(o, axis, lo, hi));
}

std::int64_t upper_bound(Dim d) {
  std::int64_t lo, hi;
  d.bounds(&lo, &hi);
  return std::max<std::int64_t>(hi, 0);
}

/// StringNormalizer: [C] or [1, C]. Stop words remove an unknown number of strings; when all go,
/// one empty string remains, so the count lies in [1, C].
Status string_normalizer(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  Shape s = input_shape(node, 0);
  if (!s.known) return set_shape(out, 0, dtype::kString, s);
  std::int64_t first;
  if (s.rank() < 1 || s.rank() > 2 || (s.rank() == 2 && s.dims[0].get_int(&first) && first != 1)) {
    return fail("input must be [C] or [1, C]");
  }
  if (node.attr_strings_count("stopwords") > 0) {
    const std::size_t last = s.rank() - 1;
    s.dims[last] = fresh(node, out, 0, static_cast<std::uint32_t>(last), 1,
                         std::max<std::int64_t>(upper_bound(s.dims[last]), 1));
  }
  return set_shape(out, 0, dtype::kString, s);
}

/// TfIdfVectorizer: [C] -> [max(ngram_indexes)+1], [N, C] -> [N, max(ngram_indexes)+1], float.
Status tfidf_vectorizer(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  std::vector<std::int64_t> indexes;
  if (!attr_ints_vec(node, "ngram_indexes", &indexes) || indexes.empty()) {
    return fail("missing 'ngram_indexes'");
  }
  const Dim width = node.constant(*std::max_element(indexes.begin(), indexes.end()) + 1);
  const Shape s = known_input(node, out, 0, dtype::kFloat);
  if (s.rank() == 1) return set_shape(out, 0, dtype::kFloat, Shape::of({width}));
  if (s.rank() == 2) return set_shape(out, 0, dtype::kFloat, Shape::of({s.dims[0], width}));
  return fail("input must be [C] or [N, C]");
}

Status regex_full_match(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  return set_shape(out, 0, dtype::kBool, input_shape(node, 0));
}

Status string_concat(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  Shape result;
  check(broadcast_shapes(out, input_shape(node, 0), input_shape(node, 1), &result));
  return set_shape(out, 0, dtype::kString, result);
}

/// StringSplit: Y = X's shape + [longest split] (at most maxsplit+1 pieces), Z = the piece counts.
Status string_split(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const Shape x = input_shape(node, 0);
  Shape pieces = Shape::unknown();
  if (x.known) {
    std::int64_t maxsplit;
    const std::int64_t hi =
        node.attr_int("maxsplit", &maxsplit) && maxsplit >= 0 ? maxsplit + 1 : kPosInf;
    pieces = x;
    pieces.dims.push_back(fresh(node, out, 0, static_cast<std::uint32_t>(x.rank()), 0, hi));
  }
  check(set_shape(out, 0, dtype::kString, pieces));
  return set_shape(out, 1, dtype::kInt64, x);
}

/// ImageDecoder: an encoded byte stream -> uint8 [H, W, C]; C = 1 for Grayscale, else 3.
Status image_decoder(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const std::string format = attr_string_or(node, "pixel_format", "RGB");
  if (format != "RGB" && format != "BGR" && format != "Grayscale") {
    return fail("unknown pixel_format '" + format + "'");
  }
  const Dim channels = node.constant(format == "Grayscale" ? 1 : 3);
  return set_shape(out, 0, dtype::kUint8,
                   Shape::of({fresh(node, out, 0, 0, 0, kPosInf),
                              fresh(node, out, 0, 1, 0, kPosInf), channels}));
}

/// NonMaxSuppression: boxes [B, S, 4], scores [B, C, S] -> int64 [n, 3] with n fresh in
/// [0, B*C*min(max_output_boxes_per_class, S)]; no max_output_boxes_per_class (or 0) selects none.
Status non_max_suppression(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const Shape boxes = input_shape(node, 0), scores = input_shape(node, 1);
  if ((boxes.known && boxes.rank() != 3) || (scores.known && scores.rank() != 3)) {
    return fail("boxes must be [B, S, 4] and scores [B, C, S]");
  }
  std::vector<Dim> limit;
  const bool limit_known =
      !node.has_input(2) || (input_values(node, 2, &limit) && limit.size() == 1);
  if (limit_known && (limit.empty() || limit[0].is(0))) {
    return set_shape(out, 0, dtype::kInt64, Shape::of({node.constant(0), node.constant(3)}));
  }
  Dim selected;
  if (scores.known) {
    const Dim per_class = limit_known ? min(limit[0], scores.dims[2]) : scores.dims[2];
    selected = fresh_upto(node, out, 0, 0, scores.dims[0] * scores.dims[1] * per_class);
  } else {
    selected = fresh(node, out, 0, 0, 0, kPosInf);
  }
  return set_shape(out, 0, dtype::kInt64, Shape::of({selected, node.constant(3)}));
}

constinit const FnShapeRule kStringNormalizer{&string_normalizer};
constinit const FnShapeRule kTfIdfVectorizer{&tfidf_vectorizer};
constinit const FnShapeRule kRegexFullMatch{&regex_full_match};
constinit const FnShapeRule kStringConcat{&string_concat};
constinit const FnShapeRule kStringSplit{&string_split};
constinit const FnShapeRule kImageDecoder{&image_decoder};
constinit const FnShapeRule kNonMaxSuppression{&non_max_suppression};

}  // namespace

void register_text_image(Registration& reg) {
  reg.shape("StringNormalizer", 10, kStringNormalizer);
  reg.shape("TfIdfVectorizer", 9, kTfIdfVectorizer);
  reg.shape("RegexFullMatch", 20, kRegexFullMatch);
  reg.shape("StringConcat", 20, kStringConcat);
  reg.shape("StringSplit", 20, kStringSplit);
  reg.shape("ImageDecoder", 20, kImageDecoder);
  reg.shape("NonMaxSuppression", {10, 11}, kNonMaxSuppression);
}

}  // namespace cctx::opsets::onnx
