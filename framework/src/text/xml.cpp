// Text for XML 1.0 documents, the SVG figures and the HTML page (safe_text.hpp).
#include "cctx/safe_text.hpp"
#include "text/utf8_decode.hpp"

namespace cctx::safe_text {

std::string xml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    const detail::Decoded d = detail::decode_at(text, pos);
    switch (d.code) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // XML 1.0 has no place for most C0 controls nor for U+FFFE/U+FFFF; the rest of what a
        // display escapes (tab, newline, C1, bidi overrides) is legal but would hide the bytes.
        if (d.code < 0 || detail::needs_display_escape(d.code)) {
          detail::append_display_escape(out, d.code, static_cast<unsigned char>(text[pos]));
        } else if (d.code == 0xFFFE || d.code == 0xFFFF) {
          detail::append_display_escape(out, d.code, 0);
        } else {
          out.append(text, pos, d.length);
        }
    }
    pos += d.length;
  }
  return out;
}

}  // namespace cctx::safe_text
