// Loading one plugin library into a registry (host/host.cpp loads the profile's plugins through
// it): found by name or path, checked before any of its code runs beyond its entry point, its
// rules registered transactionally.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "cctx/host.hpp"
#include "cctx/profile.hpp"
#include "cctx/registry.hpp"

namespace cctx {

struct PluginHandle;

/// A plugin loaded and registered: the handle that keeps its library mapped, and what
/// `cctx plugins` shows of it.
struct LoadedPlugin {
  std::shared_ptr<const PluginHandle> owner;
  PluginInfo info;
};

/// The library `spec` names: its `path`, or `libcctx_<name>.so` (then `lib<name>.so`,
/// `<name>.so`) in the first of `search_dirs` that has it. Throws PluginError naming the profile
/// line (`spec.where`, else `profile_source`) and the folders searched.
std::filesystem::path locate_plugin(const PluginSpec& spec,
                                    const std::vector<std::filesystem::path>& search_dirs,
                                    const std::filesystem::path& profile_source);

/// Loads the library at `path` and lets it register into `registry`: refused, in one line
/// naming the file, for another ABI major or a newer minor, a broken descriptor, a sanitizer
/// runtime the process lacks, another C++ runtime under `toolchain: strict`, a name one of
/// `loaded` has, a failed registration or an option it does not accept; nothing of a refused
/// plugin stays in the registry. Another C++ runtime otherwise adds a load warning.
LoadedPlugin load_plugin(const PluginSpec& spec, const std::filesystem::path& path,
                         RuleRegistry& registry, const std::vector<PluginInfo>& loaded);

}  // namespace cctx
