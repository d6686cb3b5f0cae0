// Valid UTF-8 for the data outputs (safe_text.hpp), and the escapes of the display outputs.
#include "cctx/safe_text.hpp"
#include "text/utf8_decode.hpp"

namespace cctx::safe_text {

namespace detail {
void append_display_escape(std::string& out, std::int32_t code, unsigned char byte) {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::uint32_t v = code < 0 ? byte : static_cast<std::uint32_t>(code);
  if (v < 0x80 || code < 0) {
    out += "\\x";
    out += kHex[(v >> 4) & 0xF];
    out += kHex[v & 0xF];
    return;
  }
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(v >> shift) & 0xF];
}
}  // namespace detail

bool is_utf8(std::string_view text) noexcept {
  for (std::size_t pos = 0; pos < text.size();) {
    if (static_cast<unsigned char>(text[pos]) < 0x80) {
      ++pos;
      continue;
    }
    const detail::Decoded d = detail::decode_at(text, pos);
    if (d.code < 0) return false;
    pos += d.length;
  }
  return true;
}

std::string utf8(std::string_view text) {
  if (is_utf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  for (std::size_t pos = 0; pos < text.size();) {
    const detail::Decoded d = detail::decode_at(text, pos);
    if (d.code < 0) {
      detail::append_replacement(out);
    } else {
      out.append(text, pos, d.length);
    }
    pos += d.length;
  }
  return out;
}

}  // namespace cctx::safe_text
