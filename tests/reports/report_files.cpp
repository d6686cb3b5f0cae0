// Helpers of the report tests (see report_files.hpp).
#include "report_files.hpp"

#include <fstream>
#include <sstream>

namespace cctx::test {

std::size_t count(std::string_view text, std::string_view needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string_view::npos;
       at = text.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

std::vector<std::string> attribute_values(std::string_view text, std::string_view attribute) {
  const std::string open = " " + std::string(attribute) + "=\"";
  std::vector<std::string> out;
  for (auto at = text.find(open); at != std::string_view::npos; at = text.find(open, at + 1)) {
    const auto start = at + open.size();
    out.emplace_back(text.substr(start, text.find('"', start) - start));
  }
  return out;
}

std::string between(std::string_view text, std::string_view open, std::string_view close) {
  const auto start = text.find(open);
  if (start == std::string_view::npos) return {};
  const auto from = start + open.size();
  const auto end = text.find(close, from);
  return end == std::string_view::npos ? std::string() : std::string(text.substr(from, end - from));
}

std::vector<double> numbers(const std::string& text) {
  std::istringstream in(text);
  std::vector<double> out;
  for (double v = 0; in >> v;) out.push_back(v);
  return out;
}

}  // namespace cctx::test
