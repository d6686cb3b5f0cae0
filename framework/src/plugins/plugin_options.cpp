#include "plugins/plugin_options.hpp"

#include <algorithm>
#include <string_view>

#include "cctx/errors.hpp"
#include "config/yaml_checks.hpp"

namespace cctx {

void check_plugin_options(const PluginSpec& spec,
                          const std::vector<std::pair<std::string, std::string>>& accepted,
                          const std::string& plugin, const std::string& path) {
  // Keys in the order the profile writes them; keys set by code (no position) after them.
  std::vector<std::pair<std::string, std::string>> keys = spec.option_where;
  for (const auto& option : spec.options) {
    const bool placed = std::any_of(keys.begin(), keys.end(),
                                    [&](const auto& k) { return k.first == option.first; });
    if (!placed) keys.emplace_back(option.first, spec.where);
  }
  std::vector<std::string_view> names;
  for (const auto& option : accepted) names.push_back(option.first);
  for (const auto& [key, where] : keys) {
    if (std::find(names.begin(), names.end(), key) != names.end()) continue;
    const std::string_view near = detail::closest(key, names);
    throw ConfigError((where.empty() ? std::string() : where + ": ") + "plugin '" + plugin + "' (" +
                      path + ") does not accept option " + detail::quote(key) + "; it accepts " +
                      (names.empty() ? "no options" : detail::join(names)) +
                      (near.empty() ? "" : "; did you mean '" + std::string(near) + "'?"));
  }
}

}  // namespace cctx
