// Byte sizes as people write them (cctx/fit.hpp): one parser for the command line and Python.
#include <cmath>
#include <exception>
#include <string>
#include <string_view>
#include <utility>

#include "cctx/errors.hpp"
#include "cctx/fit.hpp"

namespace cctx {

std::int64_t parse_byte_size(const std::string& text, std::string_view option) {
  auto bad = [&]() {
    return Error(std::string(option) + " '" + text +
                     "': expected a size in bytes such as 2GiB, 512MiB, 1.5G or 3000000000",
                 ExitCode::kUsage);
  };
  std::size_t used = 0;
  double number = 0;
  try {
    number = std::stod(text, &used);
  } catch (const std::exception&) {
    throw bad();
  }
  std::string unit = text.substr(used);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  static const std::pair<std::string_view, double> kUnits[] = {
      {"", 1},     {"B", 1},      {"K", 0x1p10},   {"KiB", 0x1p10}, {"k", 0x1p10}, {"kB", 1e3},
      {"KB", 1e3}, {"M", 0x1p20}, {"MiB", 0x1p20}, {"MB", 1e6},     {"G", 0x1p30}, {"GiB", 0x1p30},
      {"GB", 1e9}, {"T", 0x1p40}, {"TiB", 0x1p40}, {"TB", 1e12}};
  for (const auto& [name, scale] : kUnits) {
    if (unit != name) continue;
    const double bytes = std::floor(number * scale);
    if (!std::isfinite(bytes) || bytes < 0 || bytes >= 0x1p63) throw bad();
    return static_cast<std::int64_t>(bytes);
  }
  throw bad();
}

}  // namespace cctx
