// Byte counts in the units people read: binary prefixes (what `free -h`, ONNX Runtime's logs and
// GPU tools print), three significant digits.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <string>

#include "cctx/report.hpp"

namespace cctx {

std::string byte_units(std::int64_t bytes) {
  static constexpr std::array<const char*, 7> kUnits = {"B",   "KiB", "MiB", "GiB",
                                                        "TiB", "PiB", "EiB"};
  if (bytes < 0) return "-" + byte_units(bytes == INT64_MIN ? INT64_MAX : -bytes);
  if (bytes < 1024) return fmt::format("{} B", bytes);
  auto value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < kUnits.size()) {
    value /= 1024;
    ++unit;
  }
  // 3 significant digits, never rounded up past the unit (1023.9 KiB prints as 1023 KiB, not
  // 1024 KiB); truncation, so a figure never reads larger than the unit allows.
  const int decimals = value < 10 ? 2 : value < 100 ? 1 : 0;
  const double scale = std::pow(10.0, decimals);
  const double shown = std::floor(value * scale) / scale;
  return fmt::format("{:.{}f} {}", shown, decimals, kUnits[unit]);
}

}  // namespace cctx
