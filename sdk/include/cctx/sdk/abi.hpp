/// @file abi.hpp
/// The binary contract between the cctx host and its plugins: version numbers, the exported entry
/// point, the plugin descriptor, status codes and the plain views that cross the boundary.
///
/// Rules of the boundary (see sdk/README.md):
///  - only fixed-width scalars, `enum class` with a fixed underlying type, the PODs of this SDK
///    and references to SDK interfaces cross it; never std containers, exceptions or RTTI;
///  - every view handed to a plugin is borrowed until the call returns; the host copies whatever
///    it receives before returning;
///  - within one ABI major, structs and interfaces only grow at their end (minor bump).
#pragma once

#include <cstddef>
#include <cstdint>

/// Breaking changes bump the major: the host refuses plugins of another major.
#define CCTX_SDK_ABI_MAJOR 1
/// Additive changes bump the minor: the host accepts plugins of the same or an older minor.
/// sdk/CHANGELOG.md lists what each minor added.
#define CCTX_SDK_ABI_MINOR 10

/// Name of the one symbol a plugin exports.
#define CCTX_PLUGIN_ENTRY cctx_plugin_v1
#define CCTX_PLUGIN_ENTRY_NAME "cctx_plugin_v1"

#if defined(_WIN32)
#define CCTX_PLUGIN_API extern "C" __declspec(dllexport)
#define CCTX_SDK_VISIBLE
#else
#define CCTX_PLUGIN_API extern "C" __attribute__((visibility("default")))
#define CCTX_SDK_VISIBLE __attribute__((visibility("default")))
#endif

namespace cctx::sdk {
inline namespace v1 {

/// Result of every call across the boundary.
/// @since 1.0, every enumerator
enum class Status : std::int32_t {
  kOk = 0,
  kInvalidArgument = 1,  ///< the node breaks the operator's contract
  kUnsupported = 2,      ///< the rule cannot answer for this node (attribute/shape unknown)
  kInternal = 3,         ///< a bug or an exception inside the plugin
};

/// Non-owning UTF-8 text. Valid only during the call that received it.
struct StringRef {
  const char* data = nullptr;  ///< @since 1.0
  std::size_t size = 0;        ///< @since 1.0

  constexpr StringRef() noexcept = default;
  constexpr StringRef(const char* d, std::size_t n) noexcept : data(d), size(n) {}
  /// From a string literal.
  template <std::size_t N>
  constexpr StringRef(const char (&s)[N]) noexcept : data(s), size(N - 1) {}
  /// From a NUL-terminated string (nullptr gives the empty string).
  static constexpr StringRef from_c_str(const char* s) noexcept {
    std::size_t n = 0;
    if (s != nullptr) {
      while (s[n] != '\0') ++n;
    }
    return StringRef(s, n);
  }
  constexpr bool empty() const noexcept { return size == 0; }
  constexpr bool equals(StringRef other) const noexcept {
    if (size != other.size) return false;
    for (std::size_t i = 0; i < size; ++i) {
      if (data[i] != other.data[i]) return false;
    }
    return true;
  }
};

/// Non-owning contiguous array view. Valid only during the call that received it.
template <class T>
struct Span {
  const T* data = nullptr;  ///< @since 1.0
  std::size_t size = 0;     ///< @since 1.0
  constexpr const T& operator[](std::size_t i) const noexcept { return data[i]; }
  constexpr const T* begin() const noexcept { return data; }
  constexpr const T* end() const noexcept { return data + size; }
  constexpr bool empty() const noexcept { return size == 0; }
};

/// Bits of ToolchainTag::checked (SDK 1.2; before it, 1 meant "either").
namespace checks {
/// Assertions that change no layout (_GLIBCXX_ASSERTIONS, libc++ hardening): accepted.
inline constexpr std::uint32_t kAssertions = 1;
/// A debug mode that changes the standard types' layouts (_GLIBCXX_DEBUG, MSVC's
/// _ITERATOR_DEBUG_LEVEL > 0): the host refuses a plugin whose bit differs from its own.
inline constexpr std::uint32_t kDebugLayout = 2;
}  // namespace checks

/// Identifies the C++ runtime a module was compiled against. Evaluated inline on both sides.
/// The host refuses a plugin, before it runs any of its code, when the library, its ABI or the
/// kDebugLayout bit differ; hardening assertions are accepted (no standard type crosses the
/// boundary, and assertions change no layout).
struct ToolchainTag {
  std::uint32_t stdlib;      ///< 1 libstdc++, 2 libc++, 3 MSVC STL, 0 unknown   @since 1.0
  std::uint32_t stdlib_abi;  ///< _GLIBCXX_USE_CXX11_ABI / _LIBCPP_ABI_VERSION / _MSC_VER / 100
                             ///< @since 1.0
  std::uint32_t checked;     ///< bits of `checks` (1.2); 1.0 and 1.1 wrote 1 for any of them
                             ///< @since 1.0
};

constexpr ToolchainTag this_toolchain() noexcept {
  std::uint32_t checked = 0;
#if defined(_LIBCPP_VERSION)
#if (defined(_LIBCPP_ENABLE_ASSERTIONS) && _LIBCPP_ENABLE_ASSERTIONS) ||        \
    (defined(_LIBCPP_HARDENING_MODE) && defined(_LIBCPP_HARDENING_MODE_NONE) && \
     _LIBCPP_HARDENING_MODE != _LIBCPP_HARDENING_MODE_NONE)
  checked |= checks::kAssertions;
#endif
  return ToolchainTag{2, static_cast<std::uint32_t>(_LIBCPP_ABI_VERSION), checked};
#elif defined(__GLIBCXX__)
#if defined(_GLIBCXX_ASSERTIONS)
  checked |= checks::kAssertions;
#endif
#if defined(_GLIBCXX_DEBUG)
  checked |= checks::kDebugLayout;
#endif
  return ToolchainTag{1, static_cast<std::uint32_t>(_GLIBCXX_USE_CXX11_ABI), checked};
#elif defined(_MSC_VER)
  if (_ITERATOR_DEBUG_LEVEL != 0) checked |= checks::kDebugLayout;
  return ToolchainTag{3, static_cast<std::uint32_t>(_MSC_VER / 100), checked};
#else
  return ToolchainTag{0, 0, checked};
#endif
}

class IRegistrar;

/// Returned by the plugin's entry point. C layout, static storage inside the plugin. The host
/// reads `struct_size`, `abi_major`, `abi_minor` and `toolchain` first and touches nothing else
/// (and calls nothing) unless they are compatible.
struct PluginDescriptor {
  std::uint32_t struct_size;  ///< sizeof(PluginDescriptor) as the plugin compiled it  @since 1.0
  std::uint32_t abi_major;    ///< CCTX_SDK_ABI_MAJOR of the plugin's SDK  @since 1.0
  std::uint32_t abi_minor;    ///< CCTX_SDK_ABI_MINOR of the plugin's SDK  @since 1.0
  ToolchainTag toolchain;     ///< this_toolchain() as the plugin compiled it  @since 1.0
  const char* name;     ///< plugin name, NUL-terminated; copied by the host at load  @since 1.0
  const char* version;  ///< plugin version, NUL-terminated; copied by the host  @since 1.0
  /// Registers every rule. Called once, after the compatibility check. A non-OK result makes
  /// the host roll back everything this plugin registered.
  /// @since 1.0
  Status (*register_rules)(IRegistrar& registrar) noexcept;
};

/// Signature of the exported entry point `cctx_plugin_v1`.
using PluginEntryFn = const PluginDescriptor*() noexcept;

}  // namespace v1
}  // namespace cctx::sdk
