// The 64-bit finalizer of MurmurHash3: makes every bit of the result depend on every input bit,
// so that the low bits used as a table index are well spread. Shared by the expression pool's
// tables and the graph view's name table.
#pragma once

#include <cstdint>

namespace cctx {

/// 2^64 divided by the golden ratio: the multiplier that spreads keys before mix64.
inline constexpr std::uint64_t kGoldenMul = 0x9E3779B97F4A7C15ULL;

inline std::uint64_t mix64(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ULL;
  h ^= h >> 33;
  return h;
}

}  // namespace cctx
