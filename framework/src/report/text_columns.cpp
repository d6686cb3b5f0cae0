// Text columns (see text_columns.hpp).
#include "report/text_columns.hpp"

#include <algorithm>

#include "cctx/safe_text.hpp"

namespace cctx::report_detail {

std::string text_columns(const std::vector<std::string>& headers,
                         std::vector<std::vector<std::string>> rows) {
  // Cells hold model text (names, symbols in formulas): spelled out before they are measured.
  for (auto& row : rows) {
    for (std::string& cell : row) cell = safe_text::terminal(cell);
  }
  std::vector<std::size_t> widths;
  for (const std::string& h : headers) widths.push_back(h.size());
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = " ";
    for (std::size_t i = 0; i < widths.size(); ++i) {
      const std::string& cell = i < cells.size() ? cells[i] : std::string();
      out += " " + cell;
      out.append(widths[i] - cell.size() + 1, ' ');
    }
    while (out.back() == ' ') out.pop_back();  // no trailing blanks
    return out + "\n";
  };
  std::vector<std::string> dashes;
  for (std::size_t w : widths) dashes.emplace_back(w, '-');
  const std::string rule = line(dashes);
  std::string out = rule + line(headers) + rule;
  for (const auto& row : rows) out += line(row);
  return out + rule;
}

}  // namespace cctx::report_detail
