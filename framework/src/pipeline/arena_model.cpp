#include "pipeline/arena_model.hpp"

#include <algorithm>
#include <limits>

#include "cctx/expr.hpp"

namespace cctx {

RegionArena::RegionArena(const Profile::Memory::Arena& config)
    : config_(config), next_region_(rounded(config.initial_region_bytes)) {}

namespace {
[[noreturn]] void too_large() {
  throw ExprError(ExprError::Kind::kOverflow,
                  "integer overflow: the arena's regions add up to more than 2^63 - 1 bytes");
}
}  // namespace

std::int64_t RegionArena::rounded(std::int64_t bytes) const {
  const std::int64_t unit = config_.rounding_bytes;
  std::int64_t up = 0;
  if (__builtin_add_overflow(bytes, unit - 1, &up)) too_large();
  return up / unit * unit;
}

RegionArena::Handle RegionArena::new_chunk(const Chunk& c) {
  if (!spare_.empty()) {
    const Handle h = spare_.back();
    spare_.pop_back();
    chunks_[h] = c;
    return h;
  }
  chunks_.push_back(c);
  return static_cast<Handle>(chunks_.size() - 1);
}

void RegionArena::extend(std::int64_t bytes) {
  // Doubling inside the loop fits an oversized request and is not capped; after an extension
  // that needed none the size doubles up to the cap, and falls back to the cap when above it.
  bool grew = false;
  while (bytes > next_region_) {
    if (__builtin_mul_overflow(next_region_, 2, &next_region_)) too_large();
    grew = true;
  }
  const std::int64_t region = next_region_;
  if (!grew) {
    const std::int64_t cap = config_.max_doubling_bytes;
    next_region_ = next_region_ <= cap / 2 && next_region_ * 2 < cap ? next_region_ * 2 : cap;
  }
  // Later regions sit below earlier ones, as large blocks from mmap do; only ties between
  // equal free chunks of different regions depend on it.
  if (__builtin_add_overflow(reserved_, region, &reserved_)) too_large();
  insert_free(new_chunk(Chunk{-reserved_, region, kNone, kNone, false}));
}

RegionArena::Handle RegionArena::alloc(std::int64_t bytes) {
  if (bytes <= 0) return kNone;
  const std::int64_t want = rounded(bytes);
  const auto lowest = std::numeric_limits<std::int64_t>::min();
  auto it = free_.lower_bound({want, lowest, 0});
  if (it == free_.end()) {
    extend(want);
    it = free_.lower_bound({want, lowest, 0});
  }
  const Handle h = std::get<2>(*it);
  free_.erase(it);
  const Chunk c = chunks_[h];
  if (c.size >= 2 * want || c.size - want >= config_.max_dead_bytes_per_chunk) {
    const Handle rest = new_chunk(Chunk{c.address + want, c.size - want, h, c.next, false});
    if (c.next != kNone) chunks_[c.next].prev = rest;
    chunks_[h].size = want;
    chunks_[h].next = rest;
    insert_free(rest);
  }
  chunks_[h].in_use = true;
  return h;
}

// Chunk h takes over its free right neighbour (out of the free set by then).
void RegionArena::absorb_next(Handle h) {
  const Handle next = chunks_[h].next;
  chunks_[h].size += chunks_[next].size;
  chunks_[h].next = chunks_[next].next;
  if (chunks_[h].next != kNone) chunks_[chunks_[h].next].prev = h;
  spare_.push_back(next);
}

void RegionArena::free(Handle h) {
  if (h == kNone) return;
  chunks_[h].in_use = false;
  const Handle next = chunks_[h].next;
  if (next != kNone && !chunks_[next].in_use) {
    erase_free(next);
    absorb_next(h);
  }
  const Handle prev = chunks_[h].prev;
  if (prev != kNone && !chunks_[prev].in_use) {
    erase_free(prev);
    absorb_next(prev);
    h = prev;
  }
  insert_free(h);
}

void PatternTracer::alloc(std::uint32_t key, std::int64_t bytes) {
  if (bytes <= 0) return;  // an empty block takes no room
  // The live block right below the placement and the one right above, to mend the gaps.
  std::int64_t offset;
  auto fit = gaps_.lower_bound({bytes, std::numeric_limits<std::int64_t>::min()});
  if (fit != gaps_.end()) {
    offset = fit->second;
    const std::int64_t gap_end = offset + fit->first;
    gaps_.erase(fit);
    add_gap(offset + bytes, gap_end);
  } else {
    // After the highest live block; the tail gap (too small) is swallowed.
    offset = live_.empty() ? 0 : live_.rbegin()->first + live_.rbegin()->second;
    erase_gap(offset, size_);
    size_ = std::max(size_, offset + bytes);
  }
  live_.emplace(offset, bytes);
  if (key >= where_.size()) where_.resize(key + 1, -1);
  where_[key] = offset;
}

void PatternTracer::free(std::uint32_t key) {
  if (key >= where_.size() || where_[key] < 0) return;
  const std::int64_t offset = where_[key];
  where_[key] = -1;
  auto it = live_.find(offset);
  const std::int64_t end = offset + it->second;
  const std::int64_t below = it == live_.begin() ? 0 : std::prev(it)->first + std::prev(it)->second;
  const auto after = std::next(it);
  const std::int64_t above = after == live_.end() ? size_ : after->first;
  live_.erase(it);
  erase_gap(below, offset);
  erase_gap(end, above);
  add_gap(below, above);
}

}  // namespace cctx
