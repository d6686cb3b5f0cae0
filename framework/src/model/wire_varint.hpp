// Varints of protobuf's wire format, written into a string (the walkers of wire_schema.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace cctx::detail {

/// The most bytes a varint takes (a 64-bit value).
inline constexpr std::size_t kMaxVarintBytes = 10;

/// Writes `v` as a varint at `at` (room for kMaxVarintBytes); returns the bytes written.
inline std::size_t write_varint(char* at, std::uint64_t v) {
  std::size_t n = 0;
  while (v >= 0x80) {
    at[n++] = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  at[n++] = static_cast<char>(v);
  return n;
}

inline void append_varint(std::string& out, std::uint64_t v) {
  char bytes[kMaxVarintBytes];
  out.append(bytes, write_varint(bytes, v));
}

inline std::size_t varint_size(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

/// A length written before its message is: five bytes, enough for any 32-bit value, the unused
/// high groups written as continuation bytes of zero (non-minimal, and valid wire format).
inline constexpr std::size_t kPaddedVarintBytes = 5;

inline void write_padded_varint(char* at, std::uint32_t v) {
  for (std::size_t k = 0; k < kPaddedVarintBytes - 1; ++k) {
    at[k] = static_cast<char>(((v >> (7 * k)) & 0x7f) | 0x80);
  }
  at[kPaddedVarintBytes - 1] = static_cast<char>(v >> 28);
}

}  // namespace cctx::detail
