// The 64-bit finalizer of MurmurHash3: makes every bit of the result depend on every input bit,
// so that the low bits used as a table index are well spread. Shared by the expression pool's
// tables and the graph view's name table.
#pragma once

#include <cstdint>

namespace cctx {

inline std::uint64_t mix64(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ULL;
  h ^= h >> 33;
  return h;
}

}  // namespace cctx
