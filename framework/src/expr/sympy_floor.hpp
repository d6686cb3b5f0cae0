// The dim_params sympy writes for a value of a window's size, as ONNX Runtime's symbolic shape
// inference (onnxruntime.quantization's quant_pre_process) leaves them in a model:
// `floor(floor(height/2 - 1/2)/2) + 1`. Rational arguments are read exactly as integer floor
// divisions: `floor(a/2 - 1/2)` is `(a - 1) // 2`, `ceiling(a/3)` is `-((-a) // 3)`.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cctx::detail {

/// `text` with every `floor(...)` and `ceiling(...)` (also `Floor`, `Ceiling`) whose argument is
/// a sum of terms, each an expression or an expression divided by a positive integer, written
/// as one integer division; nullopt when `text` has none, or one that is not of that form.
std::optional<std::string> sympy_floors(std::string_view text);

}  // namespace cctx::detail
