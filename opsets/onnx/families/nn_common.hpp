// Helpers shared by the neural-network families (conv/pool, normalization, attention, RNN, Einsum,
// losses): optional outputs, fresh dims, dim unification and element sizes for scratch estimates.
#pragma once

#include <cctx/sdk/kit.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "rule_kit.hpp"

namespace cctx::opsets::onnx::nn {

// The shared helpers (has_input, fresh, unify, split_evenly, element_bytes, ...) come from the
// SDK, so that every operator-set plugin uses the same ones.
using namespace cctx::sdk::kit;

}  // namespace cctx::opsets::onnx::nn
