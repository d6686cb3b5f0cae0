// The check of a plugin entry's `options:` against what the plugin accepts (the keys it declared
// with IRegistrar::accept_option or read with IRegistrar::option while registering).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cctx/profile.hpp"

namespace cctx {

/// Throws ConfigError at the profile position of the first key of `spec.options` (in document
/// order) that is not among `accepted`, naming the plugin (`plugin`, its library `path`) and the
/// keys it accepts.
void check_plugin_options(const PluginSpec& spec,
                          const std::vector<std::pair<std::string, std::string>>& accepted,
                          const std::string& plugin, const std::string& path);

}  // namespace cctx
