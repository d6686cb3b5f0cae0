// The passes of the onnxruntime plugin's graph rewrites (docs/design/rewrites.md): each runs to
// a fixpoint before the next, in ONNX Runtime's order: its levels, the quantized-operator
// transformers inside them, then the layout transformers of level all.
#pragma once

#include <cstdint>

#include "families.hpp"

namespace cctx::opsets::onnxruntime {

enum RewritePass : std::int32_t {
  kBasic = 0,
  kQdqPrepare =
      1,  ///< level basic's QDQ transformers: one DequantizeLinear per reader, int8 to uint8
  kQdqSelect = 2,  ///< level extended's QDQSelectorActionTransformer: QLinear operators
  kExtended = 3,
  kNchwcConvert = 4,
  kNchwcFuse = 5,
  kReorder = 6,
  kNhwc = 7,  ///< level all's NhwcTransformer: quantized convolutions channels-last
};

/// ONNX Runtime's QDQ transformers (qdq_rewrites.cpp) of the levels up to `level` (1 basic,
/// 2 extended, 3 all).
void register_qdq_rewrites(Registration& reg, int level);

}  // namespace cctx::opsets::onnxruntime
