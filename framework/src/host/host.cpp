// The host: the installation's folders and shipped profiles, and the plugins a profile names,
// loaded in order (plugins/plugin_loader.cpp), then its declarative ops; it owns the registry
// they fill and keeps their libraries mapped until the registry is gone.
#include "cctx/host.hpp"

#include <algorithm>
#include <boost/dll/runtime_symbol_info.hpp>
#include <cstdlib>
#include <system_error>

#include "cctx/errors.hpp"
#include "declarative/declared_rules.hpp"
#include "plugins/plugin_handle.hpp"
#include "plugins/plugin_loader.hpp"
#include "text/nearest_word.hpp"

namespace cctx {
namespace fs = std::filesystem;

namespace {

// Where an installation keeps a subfolder, relative to the binary that contains this code: the
// Python extension in an installed package (the package folder is a prefix of its own:
// cctx/lib/cctx/plugins, cctx/share/cctx/profiles, whether pip or `cmake --install` put it
// there), the `cctx` executable (<prefix>/bin, or the package's cctx/bin), a build tree's
// python/cctx, then the configured install prefix.
std::vector<fs::path> install_candidates(const char* subdir) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::path self = boost::dll::this_line_location(ec);
  if (!ec) {
    out.push_back((self.parent_path() / subdir).lexically_normal());
    out.push_back((self.parent_path() / ".." / subdir).lexically_normal());
    out.push_back((self.parent_path() / ".." / ".." / subdir).lexically_normal());
  }
  out.push_back(fs::path(CCTX_INSTALL_PREFIX) / subdir);
  return out;
}

fs::path first_existing(const std::vector<fs::path>& candidates, const char* leaf) {
  std::error_code ec;
  for (const fs::path& c : candidates) {
    if (fs::exists(c / leaf, ec)) return c / leaf;
  }
  return candidates.empty() ? fs::path() : candidates.front() / leaf;
}

}  // namespace

fs::path Host::default_plugin_dir() {
  std::error_code ec;
  for (const fs::path& c : install_candidates(CCTX_PLUGIN_SUBDIR)) {
    if (fs::is_directory(c, ec)) return c;
  }
  return install_candidates(CCTX_PLUGIN_SUBDIR).front();
}

fs::path Host::default_profile_path() {
  return first_existing(install_candidates(CCTX_PROFILE_SUBDIR), "default.yaml");
}

fs::path Host::shipped_profile(const std::string& name) {
  std::error_code ec;
  if (name.empty() || name.find('/') != std::string::npos || fs::path(name).has_extension()) {
    return {};
  }
  const fs::path shipped = default_profile_path().parent_path() / (name + ".yaml");
  return fs::is_regular_file(shipped, ec) ? shipped : fs::path();
}

fs::path Host::profile_path(const std::string& name_or_path) {
  std::error_code ec;
  fs::path given(name_or_path);  // not const: returned, so moved
  if (fs::exists(given, ec)) return given;
  fs::path shipped = shipped_profile(name_or_path);
  if (!shipped.empty()) return shipped;
  // A bare name (no folder, no extension) that is neither a file nor a shipped profile: say which
  // names there are, rather than only "no such file".
  if (!name_or_path.empty() && name_or_path.find('/') == std::string::npos &&
      !given.has_extension()) {
    const std::vector<std::string> names = shipped_profiles();
    const std::vector<std::string_view> choices(names.begin(), names.end());
    std::string listed;
    for (const std::string& n : names) listed += (listed.empty() ? "" : ", ") + n;
    const std::string_view near = detail::closest(name_or_path, choices);
    throw ConfigError(name_or_path + ": no such file, and no shipped profile of that name (" +
                      (listed.empty() ? std::string("none are installed") : "shipped: " + listed) +
                      ")" + (near.empty() ? "" : "; did you mean '" + std::string(near) + "'?"));
  }
  return given;
}

std::vector<std::string> Host::shipped_profiles() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(default_profile_path().parent_path(), ec)) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

Profile Host::default_profile() {
  fs::path path = default_profile_path();
  std::error_code ec;
  if (!path.empty() && fs::is_regular_file(path, ec)) return load_profile(path);
  Profile p;
  PluginSpec onnx;
  onnx.name = "onnx";
  onnx.where = "built-in default profile";
  p.plugins.push_back(onnx);
  return p;
}

Host::Host(Profile profile, std::vector<fs::path> extra_plugin_dirs)
    : profile_(std::move(profile)), registry_(std::make_shared<RuleRegistry>()) {
  search_dirs_ = profile_.plugin_path;
  for (fs::path& d : extra_plugin_dirs) search_dirs_.push_back(std::move(d));
  if (const char* env = std::getenv("CCTX_PLUGIN_PATH"); env != nullptr && *env != '\0') {
    std::string list = env;
    std::size_t start = 0;
    while (start <= list.size()) {
      std::size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      if (end > start) search_dirs_.emplace_back(list.substr(start, end - start));
      start = end + 1;
    }
  }
  if (fs::path d = default_plugin_dir(); !d.empty()) search_dirs_.push_back(d);
  for (const PluginSpec& spec : profile_.plugins) load(spec);
  load_declared_ops();
}

Host::~Host() {
  // Teardown order: rules first (registry), then the libraries that own their code.
  registry_.reset();
  libraries_.clear();
}

void Host::load(const PluginSpec& spec) {
  LoadedPlugin plugin =
      load_plugin(spec, locate_plugin(spec, search_dirs_, profile_.source), *registry_, infos_);
  libraries_.push_back(std::move(plugin.owner));
  infos_.push_back(std::move(plugin.info));
}

// After the plugins, so that an op may replace a plugin's rule (`override: true`) and a clash
// names both. The rule objects belong to a pseudo-plugin handle without a library.
void Host::load_declared_ops() {
  if (profile_.ops.empty()) return;
  auto rules = std::make_shared<const DeclaredRuleSet>(profile_.ops, registry_.get());
  auto handle = std::make_shared<PluginHandle>();
  const std::string file = profile_.source.filename().string();
  handle->name = "profile:" + (file.empty() ? std::string("(inline)") : file);
  handle->path = profile_.source;
  handle->rules = rules;
  std::shared_ptr<const PluginHandle> owner = handle;
  rules->register_into(*registry_, owner, owner->origin());
  libraries_.push_back(owner);
  infos_.push_back(PluginInfo{handle->name,
                              "",
                              handle->path,
                              CCTX_SDK_ABI_MAJOR,
                              CCTX_SDK_ABI_MINOR,
                              false,
                              owner->origin(),
                              owner.get(),
                              rules->size(),
                              {}});
}

}  // namespace cctx
