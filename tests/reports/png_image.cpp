// PNG decoding for the screenshot check (see png_image.hpp): chunks, inflate, row filters.
#include "png_image.hpp"

#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

namespace cctx::test {

namespace {

std::uint32_t big_endian(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         p[3];
}

std::vector<std::uint8_t> inflate_all(const std::vector<std::uint8_t>& in, std::size_t expected) {
  std::vector<std::uint8_t> out(expected);
  uLongf size = static_cast<uLongf>(expected);
  if (uncompress(out.data(), &size, in.data(), static_cast<uLong>(in.size())) != Z_OK ||
      size != expected) {
    throw std::runtime_error("PNG: bad compressed data");
  }
  return out;
}

std::uint8_t paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return static_cast<std::uint8_t>(a);
  return static_cast<std::uint8_t>(pb <= pc ? b : c);
}

}  // namespace

RgbImage read_png(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), {});
  static constexpr std::uint8_t kSignature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kSignature, 8) != 0) {
    throw std::runtime_error(path.string() + ": not a PNG file");
  }
  RgbImage image;
  int channels = 0;
  std::vector<std::uint8_t> compressed;
  for (std::size_t at = 8; at + 12 <= bytes.size();) {
    const std::uint32_t length = big_endian(&bytes[at]);
    const std::string type(reinterpret_cast<const char*>(&bytes[at + 4]), 4);
    const std::uint8_t* data = &bytes[at + 8];
    if (at + 12 + length > bytes.size()) throw std::runtime_error("PNG: truncated chunk");
    if (type == "IHDR") {
      image.width = big_endian(data);
      image.height = big_endian(data + 4);
      if (data[8] != 8 || data[12] != 0 || (data[9] != 2 && data[9] != 6)) {
        throw std::runtime_error("PNG: only 8-bit non-interlaced RGB/RGBA is supported");
      }
      channels = data[9] == 2 ? 3 : 4;
    } else if (type == "IDAT") {
      compressed.insert(compressed.end(), data, data + length);
    }
    at += 12 + length;
  }
  if (channels == 0) throw std::runtime_error("PNG: no header");
  const std::size_t stride = std::size_t{image.width} * static_cast<std::size_t>(channels);
  std::vector<std::uint8_t> raw = inflate_all(compressed, (stride + 1) * image.height);
  std::vector<std::uint8_t> previous(stride, 0), row(stride);
  image.rgb.reserve(std::size_t{image.width} * image.height * 3);
  for (std::uint32_t y = 0; y < image.height; ++y) {
    const std::uint8_t filter = raw[y * (stride + 1)];
    const std::uint8_t* line = &raw[y * (stride + 1) + 1];
    for (std::size_t i = 0; i < stride; ++i) {
      const int a =
          i >= static_cast<std::size_t>(channels) ? row[i - static_cast<std::size_t>(channels)] : 0;
      const int b = previous[i];
      const int c = i >= static_cast<std::size_t>(channels)
                        ? previous[i - static_cast<std::size_t>(channels)]
                        : 0;
      int predicted = 0;
      switch (filter) {
        case 0:
          predicted = 0;
          break;
        case 1:
          predicted = a;
          break;
        case 2:
          predicted = b;
          break;
        case 3:
          predicted = (a + b) / 2;
          break;
        case 4:
          predicted = paeth(a, b, c);
          break;
        default:
          throw std::runtime_error("PNG: bad row filter");
      }
      row[i] = static_cast<std::uint8_t>(line[i] + predicted);
    }
    for (std::uint32_t x = 0; x < image.width; ++x) {
      const std::uint8_t* px = &row[x * static_cast<std::size_t>(channels)];
      image.rgb.insert(image.rgb.end(), px, px + 3);
    }
    previous.swap(row);
    row.assign(stride, 0);
  }
  return image;
}

}  // namespace cctx::test
