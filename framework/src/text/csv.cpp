// Cells of the CSV export (safe_text.hpp): RFC 4180 quoting, and no cell a spreadsheet runs.
#include <cctype>

#include "cctx/safe_text.hpp"
#include "text/utf8_decode.hpp"

namespace cctx::safe_text {

namespace {

/// A decimal number as a spreadsheet reads one: sign, digits, fraction, exponent. Such a cell
/// starting with '-' or '+' is data, not a formula.
bool is_number(std::string_view s) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    return i > from;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  bool any = digits();
  if (i < s.size() && s[i] == '.') {
    ++i;
    any = digits() || any;
  }
  if (!any) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

/// OWASP's list of the first characters that make a spreadsheet evaluate a cell.
bool starts_formula(std::string_view s) {
  if (s.empty()) return false;
  switch (s.front()) {
    case '=':
    case '+':
    case '-':
    case '@':
    case '\t':
    case '\r':
      return !is_number(s);
    default:
      return false;
  }
}

}  // namespace

std::string csv(std::string_view text) {
  std::string cell;
  cell.reserve(text.size() + 2);
  if (starts_formula(text)) cell += '\'';
  bool quote = false;
  for (std::size_t pos = 0; pos < text.size();) {
    const detail::Decoded d = detail::decode_at(text, pos);
    const bool kept = d.code == '\t' || d.code == '\n' || d.code == '\r';
    if (d.code < 0 || ((d.code < 0x20 || d.code == 0x7F) && !kept)) {
      detail::append_replacement(cell);
    } else {
      quote = quote || d.code == ',' || d.code == '"' || d.code == '\n' || d.code == '\r';
      if (d.code == '"') cell += '"';
      cell.append(text, pos, d.length);
    }
    pos += d.length;
  }
  if (!quote) return cell;
  return "\"" + cell + "\"";
}

}  // namespace cctx::safe_text
