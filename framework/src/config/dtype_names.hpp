// The element type names a profile may write (`ops:` outputs and inputs, memory.arena.prepacked):
// cctx's own, as reports print them, plus ONNX's `float` and `double`. Private to
// framework/src/config.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cctx::detail {

/// Every accepted name with its ONNX code, in code order (the aliases last).
const std::vector<std::pair<std::string, std::int32_t>>& dtype_names();

/// The code of an accepted name; nullopt for any other text.
std::optional<std::int32_t> dtype_by_name(std::string_view name);

}  // namespace cctx::detail
