/// @file rule_helpers.hpp
/// Kept for plugins written before the kit had its own folder: the helpers now live in
/// cctx/sdk/kit/ (inputs.hpp, dims.hpp, elements.hpp), in the same namespace `cctx::sdk::kit`.
/// New code includes <cctx/sdk/kit.hpp>.
#pragma once

#include "cctx/sdk/kit/dims.hpp"
#include "cctx/sdk/kit/elements.hpp"
#include "cctx/sdk/kit/inputs.hpp"
