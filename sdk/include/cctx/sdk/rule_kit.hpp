/// @file rule_kit.hpp
/// Kept for plugins written before the kit had its own folder: the rule classes and Registration
/// now live in cctx/sdk/kit/ (rules.hpp, registration.hpp, namespace `cctx::sdk::kit`); these
/// declarations keep their old names in `cctx::sdk`. New code includes <cctx/sdk/kit.hpp>.
#pragma once

#include "cctx/sdk/kit/registration.hpp"
#include "cctx/sdk/kit/rules.hpp"
#include "cctx/sdk/plugin.hpp"

namespace cctx::sdk {
inline namespace v1 {

using kit::FnInplacePolicy;
using kit::FnScratchEstimator;
using kit::FnShapeRule;
using kit::FnTagRule;
using kit::InplaceFn;
using kit::Registration;
using kit::ScratchFn;
using kit::ShapeFn;
using kit::TagFn;

}  // namespace v1
}  // namespace cctx::sdk
