// Models of a runtime's allocator, run at evaluation time on concrete byte counts: a best-fit
// arena that grows by regions and never returns them (ONNX Runtime's BFC arena), and the
// offsets of its memory pattern (one block laid out from a traced run). The rules are in
// docs/design/onnxruntime-memory.md, "BFC arena" and "Memory pattern", as read from ONNX
// Runtime's source and measured; the code is ours. Both are O(log n) per request.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "cctx/profile.hpp"

namespace cctx {

/// A best-fit arena of regions. A request is rounded up; the smallest free chunk that fits
/// serves it (the lowest address among equals), split when it is much larger; when nothing
/// fits, a new region is reserved: the current region size, doubled after each extension up to
/// a cap, or the next power-of-two multiple that fits the request. Freed chunks merge with free
/// neighbours of the same region; regions stay reserved.
class RegionArena {
 public:
  using Handle = std::uint32_t;
  static constexpr Handle kNone = ~Handle{0};

  explicit RegionArena(const Profile::Memory::Arena& config);

  /// A chunk for `bytes` (kNone for 0 bytes: the runtime allocates nothing).
  Handle alloc(std::int64_t bytes);
  void free(Handle h);
  /// Bytes of all regions reserved so far.
  std::int64_t reserved() const { return reserved_; }
  /// `bytes` rounded up as a request is.
  std::int64_t rounded(std::int64_t bytes) const;

 private:
  struct Chunk {
    std::int64_t address;
    std::int64_t size;
    Handle prev, next;  // neighbours in the same region (kNone at its ends)
    bool in_use;
  };
  void extend(std::int64_t bytes);
  void absorb_next(Handle h);
  Handle new_chunk(const Chunk& c);
  void insert_free(Handle h) { free_.emplace(chunks_[h].size, chunks_[h].address, h); }
  void erase_free(Handle h) { free_.erase({chunks_[h].size, chunks_[h].address, h}); }

  Profile::Memory::Arena config_;
  std::int64_t next_region_ = 0;
  std::int64_t reserved_ = 0;
  std::vector<Chunk> chunks_;
  std::vector<Handle> spare_;  // slots of chunks merged away
  /// Free chunks by (size, address): best fit is the first at or above (bytes, lowest).
  std::set<std::tuple<std::int64_t, std::int64_t, Handle>> free_;
};

/// Offsets of the memory pattern: each traced buffer goes into the gap between live blocks
/// (or after the last one, below the block's current end) that it fits with the least waste,
/// the lowest such gap among equals, else right after the highest live block, which may grow
/// the block. peak() is the block's size.
class PatternTracer {
 public:
  void alloc(std::uint32_t key, std::int64_t bytes);
  void free(std::uint32_t key);
  std::int64_t peak() const { return size_; }

 private:
  void add_gap(std::int64_t from, std::int64_t to) {
    if (to > from) gaps_.emplace(to - from, from);
  }
  void erase_gap(std::int64_t from, std::int64_t to) {
    if (to > from) gaps_.erase({to - from, from});
  }
  std::int64_t size_ = 0;
  std::map<std::int64_t, std::int64_t> live_;  // offset -> bytes
  std::vector<std::int64_t> where_;            // key -> offset (-1: not live)
  /// Gaps by (bytes, offset): between live blocks, before the first, and the tail gap from the
  /// highest live block to the block's end.
  std::set<std::pair<std::int64_t, std::int64_t>> gaps_;
};

}  // namespace cctx
