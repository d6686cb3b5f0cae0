/// @file plugin.hpp
/// Everything a plugin source file needs: the SDK headers, `guarded()` and CCTX_DEFINE_PLUGIN.
#pragma once

#include <exception>

#include "cctx/sdk/abi.hpp"
#include "cctx/sdk/abi_layout.hpp"
#include "cctx/sdk/dims.hpp"
#include "cctx/sdk/kit/rule_error.hpp"
#include "cctx/sdk/node_view.hpp"
#include "cctx/sdk/registrar.hpp"
#include "cctx/sdk/rules.hpp"
#include "cctx/sdk/types.hpp"

namespace cctx::sdk {
inline namespace v1 {

/// Runs `body` and turns what it throws into a Status, so that no exception crosses the
/// boundary: a kit::RuleError (kit::fail(), kit::unsupported(), kit::check(), kit::finish())
/// becomes `sink.fail(code, message)`, or its status when already settled; any other exception
/// `sink.fail(kInternal, what)`. `Sink` is any SDK sink or the registrar.
template <class Sink, class Body>
Status guarded(Sink& sink, Body&& body) noexcept {
  try {
    return body();
  } catch (const kit::RuleError& e) {
    if (e.is_settled()) return e.code();
    return sink.fail(e.code(), StringRef(e.message().data(), e.message().size()));
  } catch (const std::exception& e) {
    return sink.fail(Status::kInternal, StringRef::from_c_str(e.what()));
  } catch (...) {
    return sink.fail(Status::kInternal, StringRef("unknown exception"));
  }
}

}  // namespace v1
}  // namespace cctx::sdk

/// Defines the plugin's only exported symbol. REGISTER is a function
/// `cctx::sdk::Status f(cctx::sdk::IRegistrar&) noexcept`. The descriptor is a constant-initialised
/// static: nothing of the plugin runs before the host has checked it.
#define CCTX_DEFINE_PLUGIN(NAME, VERSION, REGISTER)                                   \
  CCTX_PLUGIN_API const ::cctx::sdk::PluginDescriptor* CCTX_PLUGIN_ENTRY() noexcept { \
    static constexpr ::cctx::sdk::PluginDescriptor kDescriptor{                       \
        sizeof(::cctx::sdk::PluginDescriptor),                                        \
        CCTX_SDK_ABI_MAJOR,                                                           \
        CCTX_SDK_ABI_MINOR,                                                           \
        ::cctx::sdk::this_toolchain(),                                                \
        NAME,                                                                         \
        VERSION,                                                                      \
        &(REGISTER)};                                                                 \
    return &kDescriptor;                                                              \
  }
