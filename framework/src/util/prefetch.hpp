// A cache hint for data about to be read: the one place the compiler builtin is named, so that a
// port to another compiler, or a measurement without hints, changes one line.
#pragma once

namespace cctx {

/// Asks for the cache line holding `address` to be loaded for reading (no fault if invalid).
inline void prefetch_for_read(const void* address) noexcept { __builtin_prefetch(address); }

}  // namespace cctx
