// Text from a model (names, op types, dim_params: any bytes at all) made safe for each kind of
// output. Every report, listing and message goes through exactly one of these at the point where
// model text meets its output, so no output can be broken or hijacked by a name:
// - data outputs (JSON, CSV, the Python module) carry valid UTF-8: a byte that does not begin a
//   well-formed UTF-8 sequence becomes U+FFFD;
// - display outputs (the terminal, SVG, HTML) show what the bytes are: control characters, bidi
//   overrides and malformed bytes are spelled as `\x1b`, `\u202e`, `\xff`.
// The rules per kind are in docs/design/architecture.md ("Text from the model").
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace cctx::safe_text {

/// True when `text` is well-formed UTF-8 (no overlong forms, no surrogates, at most U+10FFFF).
bool is_utf8(std::string_view text) noexcept;

/// `text` with every byte that does not begin a well-formed UTF-8 sequence replaced by U+FFFD
/// (one U+FFFD per such byte, as nlohmann::json's `replace` handler does).
std::string utf8(std::string_view text);

/// Whether a terminal line may hold newlines: a one-line message escapes them too.
enum class Lines { kOne, kKeep };

/// For a terminal: C0 controls and DEL as `\xNN` (a newline too, unless `lines` is kKeep), C1
/// controls and bidi formatting characters as `\uNNNN`, malformed UTF-8 bytes as `\xNN`;
/// everything else as it is. No NUL and no escape sequence can reach the terminal.
std::string terminal(std::string_view text, Lines lines = Lines::kOne);

/// Character data or an attribute value of XML 1.0 (SVG, HTML): `& < > " '` as entities, and
/// the characters terminal() escapes shown the same way, so that only characters XML 1.0
/// allows remain and the reader sees what the bytes were.
std::string xml(std::string_view text);

/// One CSV cell (RFC 4180): valid UTF-8, controls other than tab, LF and CR as U+FFFD, quoted
/// when it holds a comma, quote, CR or LF; a cell that a spreadsheet would read as a formula
/// (it starts with `=`, `+`, `-`, `@`, tab or CR, and is not a number) gets a leading `'`.
std::string csv(std::string_view text);

/// `value` as JSON text (nlohmann's dump with `indent`), invalid UTF-8 in its strings replaced
/// by U+FFFD instead of throwing.
template <class BasicJson>
std::string json(const BasicJson& value, int indent = -1) {
  return value.dump(indent, ' ', false, BasicJson::error_handler_t::replace);
}

}  // namespace cctx::safe_text
