// Just enough of PNG to tell whether a browser screenshot shows anything: 8-bit RGB or RGBA,
// non-interlaced (what Chromium writes), decoded with zlib.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace cctx::test {

struct RgbImage {
  std::uint32_t width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  ///< 3 bytes per pixel, row by row
};

/// Decodes the file; throws std::runtime_error on anything it does not support.
RgbImage read_png(const std::filesystem::path& path);

}  // namespace cctx::test
