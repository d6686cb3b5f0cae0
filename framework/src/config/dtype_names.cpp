#include "dtype_names.hpp"

#include <cctx/sdk/types.hpp>

#include "cctx/dtypes.hpp"

namespace cctx::detail {

const std::vector<std::pair<std::string, std::int32_t>>& dtype_names() {
  static const std::vector<std::pair<std::string, std::int32_t>> names = [] {
    std::vector<std::pair<std::string, std::int32_t>> out;
    for (std::int32_t code = 1; code <= sdk::dtype::kInt2; ++code) {
      out.emplace_back(dtype_name(code), code);
    }
    out.emplace_back("float", sdk::dtype::kFloat);
    out.emplace_back("double", sdk::dtype::kDouble);
    return out;
  }();
  return names;
}

std::optional<std::int32_t> dtype_by_name(std::string_view name) {
  for (const auto& [text, code] : dtype_names()) {
    if (text == name) return code;
  }
  return std::nullopt;
}

}  // namespace cctx::detail
