// Fallback (a) of semantics.md "Shapes: Dispatch and fallbacks": ONNX's own schema inference from
// the linked onnx library, for nodes no cctx shape rule covers.
#pragma once

#include <string>

#include "pipeline/analysis_state.hpp"

namespace cctx {

/// Runs the onnx library's inference function of node `n`'s schema. Inputs are passed with
/// symbolic dims as `dim_param` canonical strings and constant small integer inputs as data;
/// `unk__*` or missing dims of the answer become producer-named fresh symbols. On success writes
/// every present output's ValueShape and returns true; otherwise returns false with `why` set.
bool onnx_schema_inference(Analysis& s, ShapeResult& shapes, NodeId n, std::string* why);

}  // namespace cctx
