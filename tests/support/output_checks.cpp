#include "output_checks.hpp"

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace cctx::test {

namespace {

/// Code points of `text`, or -1 at the first malformed byte (then decoding stops).
std::vector<std::int32_t> code_points(std::string_view text) {
  std::vector<std::int32_t> out;
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    std::size_t n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > text.size()) return out.push_back(-1), out;
    std::int32_t c = n == 1 ? b : b & (0x7F >> n);
    for (std::size_t k = 1; k < n; ++k) {
      const auto cb = static_cast<unsigned char>(text[i + k]);
      if ((cb & 0xC0) != 0x80) return out.push_back(-1), out;
      c = (c << 6) | (cb & 0x3F);
    }
    static constexpr std::int32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < kMin[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
      return out.push_back(-1), out;
    }
    out.push_back(c);
    i += n;
  }
  return out;
}

std::string at(std::size_t index) { return " (character " + std::to_string(index) + ")"; }

/// libxml2 reports errors through a global callback: collected per parse.
struct XmlErrors {
  std::string first;
  static void collect(void* self, const char* message, ...) {
    auto* errors = static_cast<XmlErrors*>(self);
    if (errors->first.empty()) errors->first = message;
  }
};

}  // namespace

std::string json_problem(std::string_view text) {
  try {
    const nlohmann::json doc = nlohmann::json::parse(text);
    (void)doc;
  } catch (const nlohmann::json::exception& e) {
    return e.what();
  }
  return {};
}

std::string xml_problem(std::string_view text) {
  XmlErrors errors;
  xmlSetGenericErrorFunc(&errors, &XmlErrors::collect);
  xmlDocPtr doc = xmlReadMemory(text.data(), static_cast<int>(text.size()), "output.svg", "UTF-8",
                                XML_PARSE_NONET | XML_PARSE_NOWARNING);
  xmlSetGenericErrorFunc(nullptr, nullptr);
  if (doc == nullptr) return "not well-formed XML: " + errors.first;
  xmlFreeDoc(doc);
  return {};
}

std::string html_problem(std::string_view text) {
  const std::vector<std::int32_t> chars = code_points(text);
  for (std::size_t i = 0; i < chars.size(); ++i) {
    const std::int32_t c = chars[i];
    const bool allowed = c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
                         (c >= 0xE000 && c <= 0xFFFD) || c >= 0x10000;
    if (!allowed) return "a character XML 1.0 does not allow: " + std::to_string(c) + at(i);
  }
  htmlDocPtr doc =
      htmlReadMemory(text.data(), static_cast<int>(text.size()), "report.html", "UTF-8",
                     HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING);
  if (doc == nullptr) return "HTML that libxml2 cannot read";
  xmlFreeDoc(doc);
  const std::string_view open = "<script type=\"application/json\" id=\"cctx-data\">";
  const std::size_t from = text.find(open);
  if (from == std::string_view::npos) return "no embedded table data";
  const std::size_t begin = from + open.size(), end = text.find("</script>", begin);
  if (end == std::string_view::npos) return "unterminated table data";
  if (std::string p = json_problem(text.substr(begin, end - begin)); !p.empty()) {
    return "table data: " + p;
  }
  return {};
}

std::string csv_problem(std::string_view text, std::size_t columns) {
  const std::vector<std::int32_t> chars = code_points(text);
  if (!chars.empty() && chars.back() < 0) return "invalid UTF-8";
  std::size_t record = 0;
  std::vector<std::string> fields(1);
  bool quoted = false, field_start = true;
  const auto check_field = [&]() -> std::string {
    // Quoted or not: quoting does not stop a spreadsheet from evaluating a cell.
    const std::string& f = fields.back();
    if (!f.empty() && (f[0] == '=' || f[0] == '+' || f[0] == '-' || f[0] == '@' || f[0] == '\t' ||
                       f[0] == '\r')) {
      bool number = f.size() > 1;
      for (std::size_t k = 1; k < f.size(); ++k) {
        const char c = f[k];
        number = number && ((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' ||
                            c == '+' || c == '-');
      }
      if (!number) return "record " + std::to_string(record) + ": a formula cell '" + f + "'";
    }
    return {};
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\0') return "a NUL byte" + at(i);
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
      continue;
    }
    if (c == '"' && field_start) {
      quoted = true;
      field_start = false;
      continue;
    }
    if (c == '"') return "record " + std::to_string(record) + ": a quote inside a bare field";
    if (c == ',' || c == '\n') {
      if (std::string p = check_field(); !p.empty()) return p;
      if (c == ',') {
        fields.emplace_back();
      } else {
        if (fields.size() != columns) {
          return "record " + std::to_string(record) + " has " + std::to_string(fields.size()) +
                 " fields, not " + std::to_string(columns);
        }
        ++record;
        fields.assign(1, std::string());
      }
      field_start = true;
      continue;
    }
    fields.back() += c;
    field_start = false;
  }
  if (quoted) return "an unterminated quoted field";
  if (fields.size() != 1 || !fields.back().empty()) return "the last record has no newline";
  return {};
}

std::string terminal_problem(std::string_view text) {
  const std::vector<std::int32_t> chars = code_points(text);
  for (std::size_t i = 0; i < chars.size(); ++i) {
    const std::int32_t c = chars[i];
    if (c < 0) return "invalid UTF-8" + at(i);
    if ((c < 0x20 && c != '\n') || (c >= 0x7F && c <= 0x9F)) {
      return "a control character " + std::to_string(c) + at(i);
    }
    if (c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
        (c >= 0x2066 && c <= 0x2069)) {
      return "a bidi formatting character " + std::to_string(c) + at(i);
    }
  }
  return {};
}

}  // namespace cctx::test
