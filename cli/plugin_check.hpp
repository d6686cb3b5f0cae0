// `cctx plugins --check MODEL`: runs every rule of a profile on a model and lists what a plugin's
// author should fix (sdk/README.md, "Checking a plugin on a model").
#pragma once

#include <string>

#include "cctx/host.hpp"

namespace cctx::cli {

/// Prints the findings and notes (`format`: table or json) and returns how many findings there
/// are (notes, to review, do not count). `only`, when set, keeps those about that plugin's rules
/// and domains.
std::size_t run_plugin_check(const Host& host, const std::string& model_path,
                             const PluginInfo* only, const std::string& format);

}  // namespace cctx::cli
