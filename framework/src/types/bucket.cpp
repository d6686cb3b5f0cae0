// Bucket's storage. The amounts and the tags are kept apart, the tags packed three bits each
// with the entry count above them, so that a bucket takes 24 bytes, not 44: four of them make
// most of a memory profile, and a profile is written per node.
#include <stdexcept>

#include "cctx/tags.hpp"

namespace cctx {

namespace {
constexpr unsigned kTagBits = 3;
constexpr std::uint32_t kTagMask = (1U << kTagBits) - 1;
constexpr unsigned kSizeShift = kTagBits * Bucket::kCapacity;
static_assert(kSizeShift + 3 <= 32, "the tags and the count share 32 bits");
}  // namespace

Bucket::Bucket(std::initializer_list<value_type> items) {
  for (const value_type& item : items) push_back(item);
}

std::size_t Bucket::size() const { return tags_ >> kSizeShift; }

Bucket::value_type Bucket::operator[](std::size_t k) const {
  return {static_cast<Tag>((tags_ >> (kTagBits * k)) & kTagMask), amounts_[k]};
}

void Bucket::push_back(const value_type& item) {
  const std::size_t k = size();
  if (k == kCapacity) throw std::length_error("Bucket: more entries than tags");
  const auto tag = static_cast<std::uint32_t>(item.first);
  if (tag > kTagMask) throw std::invalid_argument("Bucket: not a tag");
  amounts_[k] = item.second;
  // Entries are only appended, so tag slot k is still zero: replace the count, add the tag.
  const std::uint32_t tags = tags_ & ((1U << kSizeShift) - 1);
  tags_ = tags | (tag << (kTagBits * k)) | (static_cast<std::uint32_t>(k + 1) << kSizeShift);
}

}  // namespace cctx
