/// @file kit.hpp
/// The rule kit: everything a plugin's rules are written with, in namespace `cctx::sdk::kit`.
///   kit/rule_error.hpp    fail(), unsupported(), check(), finish(): a rule ends early by throwing,
///                         and the kit's rule classes turn it into a Status inside the plugin
///   kit/rules.hpp         FnShapeRule & co. (rules from plain functions), kSameAsInput0,
///                         kReuseInput0
///   kit/registration.hpp  Registration, register_domain()
///   kit/schema.hpp        Schema: an operator's contract (inputs, dtypes, ranks, attributes
///                         with defaults and ranges), declared once (SDK 1.9)
///   kit/inputs.hpp        has_input(), require_inputs(), known_input(), attributes
///   kit/dims.hpp          fresh(), unify(), split_evenly()
///   kit/elements.hpp      element_bytes(), input_element_bytes()
///   kit/fractions.hpp     input_fractions(), set_fractions(), floor_of(), ceil_of(), trunc_of()
///   kit/float_terms.hpp   input_float_terms(), float_term(), float_constant(),
///                         round_float_term(), set_float_terms(): floating-point sizes
/// Header-only and inline: nothing of it is part of the ABI. Bring it in with
/// `using namespace cctx::sdk; using namespace cctx::sdk::kit;`. The kit lives in a nested
/// namespace on purpose: argument-dependent lookup only looks in `cctx::sdk` (where INodeView and
/// IShapeSink are), so a plugin's own helper of the same name is never made ambiguous by the kit's.
#pragma once

#include "cctx/sdk/kit/attention.hpp"
#include "cctx/sdk/kit/dims.hpp"
#include "cctx/sdk/kit/elements.hpp"
#include "cctx/sdk/kit/float_terms.hpp"
#include "cctx/sdk/kit/fractions.hpp"
#include "cctx/sdk/kit/inputs.hpp"
#include "cctx/sdk/kit/registration.hpp"
#include "cctx/sdk/kit/rule_error.hpp"
#include "cctx/sdk/kit/rules.hpp"
#include "cctx/sdk/kit/schema.hpp"
#include "cctx/sdk/plugin.hpp"
#include "cctx/sdk/shape_helpers.hpp"
