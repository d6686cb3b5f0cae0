// Tag vocabulary and the merge rule (semantics.md "Tags: Vocabulary and merge").
#include <cctype>

#include "cctx/tags.hpp"

namespace cctx {

const char* tag_name(Tag tag) {
  switch (tag) {
    case Tag::kWeight:
      return "weight";
    case Tag::kShape:
      return "shape";
    case Tag::kAxes:
      return "axes";
    case Tag::kAmbiguous:
      return "ambiguous";
    case Tag::kNone:
      break;
  }
  return "";
}

std::optional<Tag> parse_tag(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  std::string word;
  for (char c : text) word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (word == "weight") return Tag::kWeight;
  if (word == "shape") return Tag::kShape;
  if (word == "axes") return Tag::kAxes;
  if (word == "ambiguous") return Tag::kAmbiguous;
  return std::nullopt;
}

Tag merge_tag(Tag current, Tag incoming) {
  if (incoming == Tag::kNone) return current;
  if (current == Tag::kNone) return incoming;
  if (current == incoming) return current;
  if (current == Tag::kAmbiguous) return current;
  if ((current == Tag::kShape || current == Tag::kAxes) && incoming == Tag::kWeight) return current;
  if (current == Tag::kWeight && (incoming == Tag::kShape || incoming == Tag::kAxes))
    return incoming;
  return Tag::kAmbiguous;  // shape vs axes, or incoming ambiguous
}

}  // namespace cctx
