// One step of UTF-8 decoding, shared by the sanitisers of every output kind (safe_text.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace cctx::safe_text::detail {

/// A decoded character: `code` is its code point, or -1 when the byte at the position does not
/// begin a well-formed sequence (then `length` is 1: the next byte is tried on its own).
struct Decoded {
  std::int32_t code;
  std::size_t length;
};

/// Decodes the character at `text[pos]` (pos < text.size()) by Unicode's table of well-formed
/// byte sequences: no overlong forms, no surrogates, nothing above U+10FFFF.
inline Decoded decode_at(std::string_view text, std::size_t pos) noexcept {
  const auto byte = [&](std::size_t k) -> std::uint32_t {
    return pos + k < text.size() ? static_cast<unsigned char>(text[pos + k]) : 0x100;
  };
  const std::uint32_t b0 = byte(0);
  if (b0 < 0x80) return {static_cast<std::int32_t>(b0), 1};
  const auto cont = [&](std::size_t k, std::uint32_t lo = 0x80, std::uint32_t hi = 0xBF) {
    const std::uint32_t b = byte(k);
    return b >= lo && b <= hi;
  };
  constexpr Decoded kBad{-1, 1};
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    if (!cont(1)) return kBad;
    return {static_cast<std::int32_t>(((b0 & 0x1F) << 6) | (byte(1) & 0x3F)), 2};
  }
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    const std::uint32_t lo = b0 == 0xE0 ? 0xA0 : 0x80, hi = b0 == 0xED ? 0x9F : 0xBF;
    if (!cont(1, lo, hi) || !cont(2)) return kBad;
    return {
        static_cast<std::int32_t>(((b0 & 0x0F) << 12) | ((byte(1) & 0x3F) << 6) | (byte(2) & 0x3F)),
        3};
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    const std::uint32_t lo = b0 == 0xF0 ? 0x90 : 0x80, hi = b0 == 0xF4 ? 0x8F : 0xBF;
    if (!cont(1, lo, hi) || !cont(2) || !cont(3)) return kBad;
    return {static_cast<std::int32_t>(((b0 & 0x07) << 18) | ((byte(1) & 0x3F) << 12) |
                                      ((byte(2) & 0x3F) << 6) | (byte(3) & 0x3F)),
            4};
  }
  return kBad;
}

/// True when a display output must spell the character out: C0 controls and DEL, C1 controls,
/// and the bidi formatting characters that reorder what is shown (a name must not be able to
/// make the text around it read differently).
inline bool needs_display_escape(std::int32_t code) noexcept {
  return code < 0x20 || (code >= 0x7F && code <= 0x9F) || code == 0x061C || code == 0x200E ||
         code == 0x200F || (code >= 0x202A && code <= 0x202E) || (code >= 0x2066 && code <= 0x2069);
}

/// Appends the escape of a character that needs_display_escape(): `\xNN` below U+0080, else
/// `\uNNNN`; a malformed byte (code -1) as `\xNN` of the byte itself.
void append_display_escape(std::string& out, std::int32_t code, unsigned char byte);

/// Appends U+FFFD (REPLACEMENT CHARACTER).
inline void append_replacement(std::string& out) { out += "\xEF\xBF\xBD"; }

}  // namespace cctx::safe_text::detail
