// The host: loads the plugins a profile names (Boost.DLL), checks their ABI, lets them register
// their rules transactionally, and owns the resulting registry.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cctx/profile.hpp"
#include "cctx/registry.hpp"

namespace cctx {

/// What `cctx plugins` shows about one loaded plugin, or about the pseudo-plugin
/// `profile:<file>` that holds the profile's declarative ops (`declared_ops > 0`, no library).
struct PluginInfo {
  std::string name;
  std::string version;
  std::filesystem::path path;  ///< the library, or the profile file
  std::uint32_t abi_major = 0;
  std::uint32_t abi_minor = 0;
  bool override_rules = false;
  std::string origin;            ///< DomainRange::origin of the domains it declared
  const void* owner = nullptr;   ///< identity of its rules: RuleEntry::owner.get() == owner
  std::size_t declared_ops = 0;  ///< number of declarative ops (pseudo-plugin only)
  /// The profile options the plugin accepts, as (key, meaning): declared with accept_option(),
  /// then read with option() without a declaration (meaning "").
  std::vector<std::pair<std::string, std::string>> options;
};

class Host {
 public:
  /// Loads every plugin of `profile` in order, then registers the profile's declarative ops
  /// (`ops:`) as the pseudo-plugin `profile:<file>`. Plugins given by name are searched in the
  /// profile's plugin_path, then `extra_plugin_dirs`, then the folder next to the binary
  /// (`<bin>/../lib/cctx/plugins`). Throws PluginError / ConfigError with a one-line reason.
  explicit Host(Profile profile, std::vector<std::filesystem::path> extra_plugin_dirs = {});
  ~Host();
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  const Profile& profile() const { return profile_; }
  /// Shared with every ComputeContext made from this host: libraries stay loaded until the last
  /// user of a rule is gone (teardown: pipelines, then registry, then libraries).
  std::shared_ptr<const RuleRegistry> registry() const { return registry_; }
  const std::vector<PluginInfo>& plugins() const { return infos_; }

  /// `<folder of the binary containing cctx>/../lib/cctx/plugins`.
  static std::filesystem::path default_plugin_dir();
  /// `<folder of the binary containing cctx>/../share/cctx/profiles/default.yaml`.
  static std::filesystem::path default_profile_path();
  /// A profile given by the user: a path as it is, or a bare name (no '/', no ".yaml") of a
  /// profile shipped with cctx, `<profiles>/<name>.yaml` ("onnxruntime-cpu-unoptimized"), when no
  /// file of that name exists.
  static std::filesystem::path profile_path(const std::string& name_or_path);
  /// The file of the profile shipped with cctx as `name` (`<profiles>/<name>.yaml`), or an empty
  /// path when `name` is not a bare name (it has a '/' or an extension) or no such profile ships.
  static std::filesystem::path shipped_profile(const std::string& name);
  /// The names of the profiles shipped with cctx, sorted.
  static std::vector<std::string> shipped_profiles();
  /// Reads the default profile (or built-in defaults loading the `onnx` plugin if the file is
  /// missing).
  static Profile default_profile();

 private:
  void load(const PluginSpec& spec);
  void load_declared_ops();

  Profile profile_;
  std::vector<std::filesystem::path> search_dirs_;
  // Declared before registry_ so that it is destroyed after it: the libraries unload last.
  std::vector<std::shared_ptr<const PluginHandle>> libraries_;
  std::shared_ptr<RuleRegistry> registry_;
  std::vector<PluginInfo> infos_;
};

}  // namespace cctx
