#include <dlfcn.h>

#include <algorithm>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <cctx/sdk/abi.hpp>
#include <cstdlib>
#include <system_error>

#include "cctx/errors.hpp"
#include "cctx/host.hpp"
#include "config/yaml_checks.hpp"
#include "declarative/declared_rules.hpp"
#include "plugins/elf_needed.hpp"
#include "plugins/host_registrar.hpp"
#include "plugins/plugin_handle.hpp"
#include "plugins/plugin_options.hpp"

namespace cctx {
namespace fs = std::filesystem;

namespace {

// The size of PluginDescriptor as ABI 1.0 defined it: a plugin reporting less is refused.
constexpr std::uint32_t kDescriptorV10Size = sizeof(sdk::PluginDescriptor);

const char* library_name(std::uint32_t stdlib) {
  return stdlib == 1   ? "libstdc++"
         : stdlib == 2 ? "libc++"
         : stdlib == 3 ? "MSVC STL"
                       : "an unknown C++ library";
}

/// The macro that sets ToolchainTag::stdlib_abi, as a build flag would say it.
std::string abi_flag(std::uint32_t stdlib, std::uint32_t abi) {
  switch (stdlib) {
    case 1:
      return "_GLIBCXX_USE_CXX11_ABI=" + std::to_string(abi);
    case 2:
      return "_LIBCPP_ABI_VERSION=" + std::to_string(abi);
    case 3:
      return "_MSC_VER " + std::to_string(abi) + "xx";
    default:
      return "ABI " + std::to_string(abi);
  }
}

const char* debug_layout_flag(std::uint32_t stdlib) {
  return stdlib == 3 ? "_ITERATOR_DEBUG_LEVEL > 0" : "_GLIBCXX_DEBUG";
}

// How the plugin's C++ runtime differs from cctx's, empty when it does not: another library,
// another ABI of it, another debug-layout mode. Assertions (_GLIBCXX_ASSERTIONS, the default
// hardening of several distributions) change no layout and are not a difference. SDK 1.0 and 1.1
// headers wrote one bit for debug mode and assertions alike, so such a plugin with the bit set
// counts as different from a host without debug layouts.
std::string toolchain_difference(const sdk::PluginDescriptor& d) {
  const sdk::ToolchainTag host = sdk::this_toolchain();
  const sdk::ToolchainTag& t = d.toolchain;
  if (t.stdlib != host.stdlib) {
    return std::string("built with ") + library_name(t.stdlib) + ", but cctx uses " +
           library_name(host.stdlib);
  }
  if (t.stdlib_abi != host.stdlib_abi) {
    return "built with " + abi_flag(t.stdlib, t.stdlib_abi) + ", but cctx uses " +
           abi_flag(host.stdlib, host.stdlib_abi);
  }
  const bool host_debug = (host.checked & sdk::checks::kDebugLayout) != 0;
  if (d.abi_minor < 2) {
    if (t.checked != 0 && !host_debug) {
      return std::string("built with ") + debug_layout_flag(t.stdlib) +
             " or _GLIBCXX_ASSERTIONS, which SDK " + std::to_string(d.abi_major) + "." +
             std::to_string(d.abi_minor) + " headers do not tell apart, but cctx without " +
             debug_layout_flag(t.stdlib);
    }
    if (t.checked == 0 && host_debug) {
      return "built without " + std::string(debug_layout_flag(t.stdlib)) +
             ", but cctx was built with it";
    }
    return {};
  }
  const bool plugin_debug = (t.checked & sdk::checks::kDebugLayout) != 0;
  if (plugin_debug != host_debug) {
    return std::string("built ") + (plugin_debug ? "with " : "without ") +
           debug_layout_flag(t.stdlib) + ", but cctx was built " +
           (host_debug ? "with" : "without") + " it";
  }
  return {};
}

// Checks the descriptor before anything of the plugin runs beyond its entry function.
void check_compatible(const sdk::PluginDescriptor& d, const fs::path& path) {
  const std::string where = path.string() + ": ";
  if (d.abi_major != CCTX_SDK_ABI_MAJOR) {
    throw PluginError(where + "built for cctx plugin ABI " + std::to_string(d.abi_major) + "." +
                      std::to_string(d.abi_minor) + ", but this cctx supports ABI " +
                      std::to_string(CCTX_SDK_ABI_MAJOR) + ".x; rebuild it against this SDK");
  }
  if (d.abi_minor > CCTX_SDK_ABI_MINOR) {
    throw PluginError(where + "built for cctx plugin ABI " + std::to_string(d.abi_major) + "." +
                      std::to_string(d.abi_minor) + ", newer than this cctx (ABI " +
                      std::to_string(CCTX_SDK_ABI_MAJOR) + "." +
                      std::to_string(CCTX_SDK_ABI_MINOR) +
                      "); upgrade cctx or rebuild the plugin against this SDK");
  }
  if (d.struct_size < kDescriptorV10Size) {
    throw PluginError(where + "plugin descriptor is " + std::to_string(d.struct_size) +
                      " bytes, smaller than ABI 1.0's " + std::to_string(kDescriptorV10Size) +
                      " bytes; the plugin is corrupt or built against a broken SDK");
  }
  if (d.register_rules == nullptr)
    throw PluginError(where + "plugin descriptor has no register function");
}

}  // namespace

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

fs::path Host::locate(const PluginSpec& spec) const {
  const std::string where = spec.where.empty() ? profile_.source.string() : spec.where;
  std::error_code ec;
  if (!spec.path.empty()) {
    if (!fs::exists(spec.path, ec)) {
      throw PluginError(where + ": plugin file " + spec.path.string() + " does not exist");
    }
    if (fs::is_directory(spec.path, ec)) {
      throw PluginError(where + ": plugin path " + spec.path.string() +
                        " is a folder, not a shared library");
    }
    // The loader maps a shared library from a regular file; opening a FIFO would wait forever
    // for a writer, and a device is no library.
    if (!fs::is_regular_file(spec.path, ec)) {
      throw PluginError(where + ": plugin path " + spec.path.string() +
                        " is not a regular file (a FIFO, socket or device), not a shared library");
    }
    return spec.path;
  }
  const std::string candidates[] = {"libcctx_" + spec.name + ".so", "lib" + spec.name + ".so",
                                    spec.name + ".so"};
  std::string searched;
  for (const fs::path& dir : search_dirs_) {
    for (const std::string& file : candidates) {
      fs::path p = dir / file;
      if (fs::is_regular_file(p, ec)) return p;
    }
    if (!searched.empty()) searched += ", ";
    searched += dir.string();
  }
  throw PluginError(where + ": plugin '" + spec.name + "' not found (looked for libcctx_" +
                    spec.name + ".so in: " + (searched.empty() ? "no folders" : searched) + ")");
}

namespace {

/// A sanitizer whose runtime must be the first library of the process: loading a plugin that
/// needs it into a process without it prints the runtime's complaint and ends the process.
struct LeadingRuntime {
  const char* library;  ///< prefix of the DT_NEEDED name
  const char* symbol;   ///< defined in a process that has the runtime
  const char* flag;
};
constexpr LeadingRuntime kLeadingRuntimes[] = {
    {"libasan.so", "__asan_init", "-fsanitize=address"},
    {"libclang_rt.asan", "__asan_init", "-fsanitize=address"},
    {"libtsan.so", "__tsan_init", "-fsanitize=thread"},
    {"libhwasan.so", "__hwasan_init", "-fsanitize=hwaddress"},
};

// sdk README "Toolchains": a sanitized plugin runs in a sanitizer build of cctx (`make sanitize`
// builds one); anywhere else it is refused before it is loaded, in one line.
void check_sanitizer_runtime(const fs::path& path) {
  for (const std::string& needed : elf_needed_libraries(path)) {
    for (const LeadingRuntime& r : kLeadingRuntimes) {
      if (needed.rfind(r.library, 0) != 0 || dlsym(RTLD_DEFAULT, r.symbol) != nullptr) continue;
      throw PluginError(path.string() + ": built with " + r.flag + " (it needs " + needed +
                        "), but this cctx has no such runtime; load it into a cctx built with the "
                        "same sanitizer (CCTX_SANITIZE, as `make sanitize` does), or rebuild the "
                        "plugin without it");
    }
  }
}

}  // namespace

void Host::load(const PluginSpec& spec) {
  const fs::path path = locate(spec);
  check_sanitizer_runtime(path);
  auto handle = std::make_shared<PluginHandle>();
  handle->path = path;
  try {
    handle->library.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    throw PluginError(path.string() + ": cannot load plugin (" + e.what() + ")");
  }
  if (!handle->library.has(CCTX_PLUGIN_ENTRY_NAME)) {
    throw PluginError(path.string() + ": not a cctx plugin (no '" CCTX_PLUGIN_ENTRY_NAME
                                      "' entry point)");
  }
  auto& entry = handle->library.get<const sdk::PluginDescriptor*()>(CCTX_PLUGIN_ENTRY_NAME);
  const sdk::PluginDescriptor* descriptor = entry();
  if (descriptor == nullptr)
    throw PluginError(path.string() + ": entry point returned no descriptor");
  check_compatible(*descriptor, path);
  // sdk README "Toolchains": only fixed-width scalars, SDK PODs and interfaces cross the
  // boundary, so a plugin of another C++ runtime works (its own std types stay inside it). The
  // profile can still ask for the same runtime (`toolchain: strict`).
  if (const std::string difference = toolchain_difference(*descriptor); !difference.empty()) {
    if (spec.strict_toolchain) {
      throw PluginError(path.string() + ": " + difference +
                        " (the profile says toolchain: strict); rebuild the plugin with the same "
                        "C++ runtime as cctx");
    }
    registry_->add_load_warning(path.string() + ": " + difference +
                                "; loaded all the same, as no C++ library type crosses the "
                                "plugin boundary ('toolchain: strict' refuses it)");
  }
  handle->name = descriptor->name ? descriptor->name : "";
  handle->version = descriptor->version ? descriptor->version : "";
  if (handle->name.empty()) throw PluginError(path.string() + ": plugin descriptor has no name");
  for (const PluginInfo& other : infos_) {
    if (other.name == handle->name) {
      throw PluginError(path.string() + ": a plugin named '" + handle->name +
                        "' is already loaded from " + other.path.string());
    }
  }

  std::shared_ptr<const PluginHandle> owner = handle;
  HostRegistrar registrar(*registry_, owner, handle->origin(), spec.options, spec.override_rules);
  sdk::Status status = descriptor->register_rules(registrar);
  if (status == sdk::Status::kOk && !registrar.failed()) registrar.require_declared_domains();
  if (status != sdk::Status::kOk || registrar.failed()) {
    std::string why = registrar.messages();
    throw PluginError(
        path.string() + ": plugin '" + handle->name + "' failed to register" +
        (why.empty() ? " (status " + std::to_string(static_cast<int>(status)) + ")" : ": " + why) +
        "; nothing of it was kept");
  }
  std::vector<std::pair<std::string, std::string>> options = registrar.accepted_options();
  check_plugin_options(spec, options, handle->name, path.string());
  registrar.commit();
  libraries_.push_back(owner);
  infos_.push_back(PluginInfo{handle->name, handle->version, path, descriptor->abi_major,
                              descriptor->abi_minor, spec.override_rules, handle->origin(),
                              owner.get(), 0, std::move(options)});
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
