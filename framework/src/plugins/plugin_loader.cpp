// Loading one plugin library: finding it, the checks before any of its code runs beyond its
// entry point (ABI, descriptor, toolchain, sanitizer runtime), and its transactional
// registration. The Host (host/host.cpp) decides which plugins to load, and keeps them.
#include "plugins/plugin_loader.hpp"

#include <dlfcn.h>

#include <boost/dll/shared_library.hpp>
#include <cctx/sdk/abi.hpp>
#include <system_error>

#include "cctx/errors.hpp"
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

fs::path locate_plugin(const PluginSpec& spec, const std::vector<fs::path>& search_dirs,
                       const fs::path& profile_source) {
  const std::string where = spec.where.empty() ? profile_source.string() : spec.where;
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
  for (const fs::path& dir : search_dirs) {
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

LoadedPlugin load_plugin(const PluginSpec& spec, const fs::path& path, RuleRegistry& registry,
                         const std::vector<PluginInfo>& loaded) {
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
    registry.add_load_warning(path.string() + ": " + difference +
                              "; loaded all the same, as no C++ library type crosses the "
                              "plugin boundary ('toolchain: strict' refuses it)");
  }
  handle->name = descriptor->name ? descriptor->name : "";
  handle->version = descriptor->version ? descriptor->version : "";
  if (handle->name.empty()) throw PluginError(path.string() + ": plugin descriptor has no name");
  for (const PluginInfo& other : loaded) {
    if (other.name == handle->name) {
      throw PluginError(path.string() + ": a plugin named '" + handle->name +
                        "' is already loaded from " + other.path.string());
    }
  }

  std::shared_ptr<const PluginHandle> owner = handle;
  HostRegistrar registrar(registry, owner, handle->origin(), spec.options, spec.override_rules);
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
  PluginInfo info{handle->name,          handle->version,       path,
                  descriptor->abi_major, descriptor->abi_minor, spec.override_rules,
                  handle->origin(),      owner.get(),           0,
                  std::move(options)};
  return LoadedPlugin{std::move(owner), std::move(info)};
}

}  // namespace cctx
