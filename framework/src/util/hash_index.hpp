// The one open-addressing hash table of the framework: under the graph view's name tables, the
// byte-size memo of the buffer plan and the expression pool's intern table. Each user keeps its
// entries (names, shapes, expression nodes) in a vector of its own; this table maps a 32-bit
// hash to the index of the entry that holds the key.
//
// A slot is eight bytes, (hash << 32) | (index + 1), zero when empty: the probed array is the
// part that misses the cache, so it holds no key, and a slot whose hash differs rejects a key
// without reading its entry. The hash alone places a slot (hash & mask), so the table grows
// without reading the entries again. Linear probing; the table doubles once an insertion leaves
// it fuller than its maximum load. Indices are 32-bit: at most 4 billion entries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "util/prefetch.hpp"

namespace cctx {

class HashIndex {
 public:
  static constexpr std::uint32_t kAbsent = 0xFFFFFFFFu;

  /// Where a probe ended: the entry found (kAbsent if none) and, when absent, the empty slot the
  /// key would take. Valid until the next insertion.
  struct Probe {
    std::uint32_t index = kAbsent;
    std::size_t slot = 0;
  };

  /// `initial_slots`: a power of two (0: allocated at the first insertion, 16 slots);
  /// `max_load_percent`: the fill past which an insertion doubles the table.
  explicit HashIndex(std::size_t initial_slots = 0, unsigned max_load_percent = 50)
      : max_load_(max_load_percent) {
    if (initial_slots != 0) rehash(initial_slots);
  }

  std::size_t size() const { return count_; }
  std::size_t slot_count() const { return slots_.size(); }

  /// Room for `entries` entries in all without growing.
  void reserve(std::size_t entries) {
    std::size_t slots = slots_.empty() ? kFirstSlots : slots_.size();
    while (too_full(entries, slots)) slots *= 2;
    if (slots != slots_.size()) rehash(slots);
  }

  /// Starts loading the slot where a probe for `hash` begins: callers that know their next keys
  /// hash them ahead, so that the probes' cache misses overlap.
  void prefetch(std::uint32_t hash) const {
    if (!slots_.empty()) prefetch_for_read(&slots_[hash & mask_]);
  }

  /// Probes for the key of `hash`; `is_key(index)` tells whether entry `index` holds it.
  template <class IsKey>
  Probe probe(std::uint32_t hash, IsKey&& is_key) const {
    if (slots_.empty()) return Probe{kAbsent, kNoSlot};
    for (std::size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const std::uint64_t slot = slots_[i];
      if (slot == 0) return Probe{kAbsent, i};
      if (static_cast<std::uint32_t>(slot >> 32) == hash) {
        const auto index = static_cast<std::uint32_t>(slot) - 1;
        if (is_key(index)) return Probe{index, i};
      }
    }
  }

  template <class IsKey>
  std::uint32_t find(std::uint32_t hash, IsKey&& is_key) const {
    return probe(hash, is_key).index;
  }

  /// Records entry `index` for a key that `probe` (the last call on this table) found absent.
  void insert(const Probe& probe, std::uint32_t hash, std::uint32_t index) {
    std::size_t at = probe.slot;
    if (at == kNoSlot) {
      rehash(kFirstSlots);
      for (at = hash & mask_; slots_[at] != 0; at = (at + 1) & mask_) {
      }
    }
    slots_[at] = std::uint64_t{hash} << 32 | (std::uint64_t{index} + 1);
    ++count_;
    if (too_full(count_, slots_.size())) rehash(2 * slots_.size());
  }

  /// The index of the key's entry, or `next`, recorded for it when it is absent; the bool tells
  /// whether this call recorded it (the caller then appends entry `next`).
  template <class IsKey>
  std::pair<std::uint32_t, bool> find_or_insert(std::uint32_t hash, std::uint32_t next,
                                                IsKey&& is_key) {
    const Probe p = probe(hash, is_key);
    if (p.index != kAbsent) return {p.index, false};
    insert(p, hash, next);
    return {next, true};
  }

 private:
  static constexpr std::size_t kFirstSlots = 16;
  static constexpr std::size_t kNoSlot = ~std::size_t{0};

  bool too_full(std::size_t entries, std::size_t slots) const {
    return entries * 100 > slots * max_load_;
  }

  void rehash(std::size_t slots) {
    std::vector<std::uint64_t> old(slots, 0);
    old.swap(slots_);
    mask_ = slots - 1;
    for (const std::uint64_t slot : old) {
      if (slot == 0) continue;
      std::size_t i = static_cast<std::uint32_t>(slot >> 32) & mask_;
      while (slots_[i] != 0) i = (i + 1) & mask_;
      slots_[i] = slot;
    }
  }

  std::vector<std::uint64_t> slots_;
  std::size_t mask_ = 0;
  std::size_t count_ = 0;
  unsigned max_load_;
};

}  // namespace cctx
