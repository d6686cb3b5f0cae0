// Text for a terminal (safe_text.hpp): nothing a terminal would act on gets through.
#include "cctx/safe_text.hpp"
#include "text/utf8_decode.hpp"

namespace cctx::safe_text {

namespace {
/// Printable ASCII (and a newline when kept) needs no decoding: the common case, copied as is.
bool plain(std::string_view text, Lines lines) noexcept {
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if ((b < 0x20 && !(b == '\n' && lines == Lines::kKeep)) || b >= 0x7F) return false;
  }
  return true;
}
}  // namespace

std::string terminal(std::string_view text, Lines lines) {
  if (plain(text, lines)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 16);
  for (std::size_t pos = 0; pos < text.size();) {
    const detail::Decoded d = detail::decode_at(text, pos);
    const bool kept_newline = d.code == '\n' && lines == Lines::kKeep;
    if (d.code < 0 || (detail::needs_display_escape(d.code) && !kept_newline)) {
      detail::append_display_escape(out, d.code, static_cast<unsigned char>(text[pos]));
    } else {
      out.append(text, pos, d.length);
    }
    pos += d.length;
  }
  return out;
}

}  // namespace cctx::safe_text
