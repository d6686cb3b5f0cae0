// The tag vocabulary (semantics.md "Tags") and Bucket, the tag -> amount map of a memory
// profile: the types layer below the pipeline, which the profile reader (declarative ops) and the
// storage of a profile use without the ComputeContext façade.
#pragma once

#include <algorithm>
#include <array>
#include <cctx/sdk/types.hpp>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>

#include "cctx/expr.hpp"

namespace cctx {

using sdk::Tag;

/// "weight", "shape", "axes", "ambiguous" or "" (untagged).
const char* tag_name(Tag tag);
/// Trims, lowercases and maps a word to a tag; nullopt for anything else.
std::optional<Tag> parse_tag(std::string_view text);
/// semantics.md "Tags: Vocabulary and merge": tags only rise.
Tag merge_tag(Tag current, Tag incoming);

/// Tag -> amount, sorted by tag name ("" first), at most one entry per tag. A value type that
/// allocates nothing (a profile per node of a million-node graph); entries are read by value.
class Bucket {
 public:
  using value_type = std::pair<Tag, Expr>;
  static constexpr std::size_t kCapacity = 5;  ///< untagged, ambiguous, axes, shape, weight

  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using iterator_concept = std::forward_iterator_tag;
    using value_type = Bucket::value_type;
    using difference_type = std::ptrdiff_t;
    using reference = value_type;
    using pointer = void;

    const_iterator() = default;
    value_type operator*() const { return (*bucket_)[index_]; }
    const_iterator& operator++() {
      ++index_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator before = *this;
      ++index_;
      return before;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) {
      return a.bucket_ == b.bucket_ && a.index_ == b.index_;
    }

   private:
    friend class Bucket;
    const_iterator(const Bucket* bucket, std::size_t index) : bucket_(bucket), index_(index) {}
    const Bucket* bucket_ = nullptr;
    std::size_t index_ = 0;
  };

  Bucket() = default;
  Bucket(std::initializer_list<value_type> items);

  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }
  std::size_t size() const;
  bool empty() const { return size() == 0; }
  value_type operator[](std::size_t k) const;
  value_type front() const { return (*this)[0]; }
  value_type back() const { return (*this)[size() - 1]; }

  /// Throws std::length_error past kCapacity (one entry per tag), std::invalid_argument for a
  /// value outside the Tag enumeration.
  void push_back(const value_type& item);
  void emplace_back(Tag tag, Expr amount) { push_back(value_type{tag, amount}); }

  friend bool operator==(const Bucket& a, const Bucket& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  std::array<Expr, kCapacity> amounts_{};
  std::uint32_t tags_ = 0;  ///< the entries' tags and their count (types/bucket.cpp)
};

}  // namespace cctx
