// An open-addressing map from value names to ValueIds, for the graph view's scopes. A graph of a
// million nodes resolves a few million names; a node-based std::unordered_map costs an allocation
// per name and a chain walk per lookup, this table one probe sequence in a flat array of 8-byte
// slots (each keeps half of the hash, so mismatches are rejected without reading the string).
// Keys are views: the strings must outlive the table (they are the model's own). Entry indices
// are 32-bit: at most 4 billion names.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "util/hash_mix.hpp"
#include "util/prefetch.hpp"

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
    std::size_t capacity = 16;
    while (capacity < 2 * count) capacity *= 2;  // load factor at most 1/2
    if (capacity > slots_.size()) rehash(capacity);
  }

  std::size_t size() const { return entries_.size(); }

  /// Starts loading the slot where a probe for hash `h` begins. Callers that know the next few
  /// keys hash them ahead and prefetch, so that the probes, each a likely cache miss in a table
  /// of millions of names, overlap instead of running one after the other.
  void prefetch(std::uint64_t h) const {
    if (!slots_.empty()) prefetch_for_read(&slots_[h & mask_]);
  }

  Id find(std::string_view key) const { return find(key, hash(key)); }
  Id find(std::string_view key, std::uint64_t h) const {
    if (slots_.empty()) return kAbsent;
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const std::uint64_t slot = slots_[i];
      if (slot == 0) return kAbsent;
      if (static_cast<std::uint32_t>(slot >> 32) == tag) {
        const Entry& e = entries_[static_cast<std::uint32_t>(slot) - 1];
        if (e.view() == key) return e.id;
      }
    }
  }

  /// Inserts key -> id unless the key is present. Returns the id stored for the key and whether
  /// this call inserted it.
  std::pair<Id, bool> try_emplace(std::string_view key, std::uint64_t h, Id id) {
    if (2 * (entries_.size() + 1) > slots_.size()) rehash(slots_.empty() ? 16 : 2 * slots_.size());
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      std::uint64_t& slot = slots_[i];
      if (slot == 0) {
        entries_.push_back(Entry{key.data(), static_cast<std::uint32_t>(key.size()), id});
        slot = std::uint64_t{tag} << 32 | entries_.size();
        return {id, true};
      }
      if (static_cast<std::uint32_t>(slot >> 32) == tag) {
        const Entry& e = entries_[static_cast<std::uint32_t>(slot) - 1];
        if (e.view() == key) return {e.id, false};
      }
    }
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
  // Slots hold (upper 32 bits of the hash, entry index + 1), 0 when empty: eight bytes each, so
  // the probed array is a third of what slots carrying the key would be (it is the part that
  // misses the cache). Entries are in insertion order: a node usually reads names defined shortly
  // before it, whose entries and strings are still cached.
  struct Entry {
    const char* data;
    std::uint32_t size;
    Id id;
    std::string_view view() const { return {data, size}; }
  };

  void rehash(std::size_t capacity) {
    slots_.assign(capacity, 0);
    mask_ = capacity - 1;
    for (std::size_t k = 0; k < entries_.size(); ++k) {
      const std::uint64_t h = hash(entries_[k].view());
      std::size_t i = h & mask_;
      while (slots_[i] != 0) i = (i + 1) & mask_;
      slots_[i] = (h >> 32) << 32 | (k + 1);
    }
  }

  std::vector<std::uint64_t> slots_;
  std::vector<Entry> entries_;
  std::size_t mask_ = 0;
};

}  // namespace cctx
