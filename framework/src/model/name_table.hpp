// A map from value names to ValueIds, for the graph view's scopes. A graph of a million nodes
// resolves a few million names; a node-based std::unordered_map costs an allocation per name and
// a chain walk per lookup, this table one probe sequence in a HashIndex (util/hash_index.hpp).
// Keys are views: the strings must outlive the table (they are the model's own). Entry indices
// are 32-bit: at most 4 billion names.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "util/hash_index.hpp"
#include "util/hash_mix.hpp"

namespace cctx {

class NameTable {
 public:
  using Id = std::uint32_t;
  static constexpr Id kAbsent = 0xFFFFFFFFu;

  /// A 64-bit hash of a name, eight bytes at a time. Names are hashed once and the hash is
  /// passed down a chain of scopes.
  static std::uint64_t hash(std::string_view key) {
    std::uint64_t h = key.size() * kGoldenMul;
    const char* p = key.data();
    std::size_t n = key.size();
    for (; n >= 8; p += 8, n -= 8) {
      std::uint64_t word;
      std::memcpy(&word, p, 8);
      h = (h ^ word) * kGoldenMul;
      h ^= h >> 32;
    }
    if (n > 0) {
      // The last 1-7 bytes. A copy of variable length is a library call; fixed-size loads that
      // may overlap are not (the length is already in h, so overlapping bytes are harmless).
      std::uint64_t word = 0;
      if (key.size() >= 8) {
        std::memcpy(&word, p + n - 8, 8);
      } else if (n >= 4) {
        std::uint32_t lo, hi;
        std::memcpy(&lo, p, 4);
        std::memcpy(&hi, p + n - 4, 4);
        word = std::uint64_t{hi} << 32 | lo;
      } else {
        word = std::uint64_t{static_cast<unsigned char>(p[0])} << 16 |
               std::uint64_t{static_cast<unsigned char>(p[n / 2])} << 8 |
               static_cast<unsigned char>(p[n - 1]);
      }
      h = (h ^ word) * kGoldenMul;
    }
    return mix64(h);  // the low bits, used as the slot index, depend on every byte
  }

  NameTable() = default;
  explicit NameTable(std::size_t expected) { reserve(expected); }

  /// Room for `count` names without rehashing.
  void reserve(std::size_t count) {
    entries_.reserve(count);
    index_.reserve(count);
  }

  std::size_t size() const { return entries_.size(); }

  /// Starts loading the slot where a probe for hash `h` begins. Callers that know the next few
  /// keys hash them ahead and prefetch, so that the probes, each a likely cache miss in a table
  /// of millions of names, overlap instead of running one after the other.
  void prefetch(std::uint64_t h) const { index_.prefetch(slot_hash(h)); }

  Id find(std::string_view key) const { return find(key, hash(key)); }
  Id find(std::string_view key, std::uint64_t h) const {
    const std::uint32_t at =
        index_.find(slot_hash(h), [&](std::uint32_t k) { return entries_[k].view() == key; });
    return at == HashIndex::kAbsent ? kAbsent : entries_[at].id;
  }

  /// Inserts key -> id unless the key is present. Returns the id stored for the key and whether
  /// this call inserted it.
  std::pair<Id, bool> try_emplace(std::string_view key, std::uint64_t h, Id id) {
    const auto next = static_cast<std::uint32_t>(entries_.size());
    const auto [at, inserted] = index_.find_or_insert(
        slot_hash(h), next, [&](std::uint32_t k) { return entries_[k].view() == key; });
    if (!inserted) return {entries_[at].id, false};
    entries_.push_back(Entry{key.data(), static_cast<std::uint32_t>(key.size()), id});
    return {id, true};
  }
  std::pair<Id, bool> try_emplace(std::string_view key, Id id) {
    return try_emplace(key, hash(key), id);
  }

  /// Calls fn(name, id) for every entry, in insertion order.
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const Entry& e : entries_) fn(e.view(), e.id);
  }

 private:
  /// Entries are in insertion order: a node usually reads names defined shortly before it,
  /// whose entries and strings are still cached.
  struct Entry {
    const char* data;
    std::uint32_t size;
    Id id;
    std::string_view view() const { return {data, size}; }
  };

  /// The table's 32-bit hash: the upper half of the name's (mix64 spreads every byte there).
  static std::uint32_t slot_hash(std::uint64_t h) { return static_cast<std::uint32_t>(h >> 32); }

  HashIndex index_;  ///< at most half full
  std::vector<Entry> entries_;
};

}  // namespace cctx
