/// @file plugin_entry.hpp
/// The SDK's interfaces and CCTX_DEFINE_PLUGIN, without exceptions: for toolchains built with
/// `-fno-exceptions` (common for NPU compilers). With it, rules return a Status and write their
/// message with the sink's `fail()`; `cctx/sdk/shape_helpers.hpp` and
/// `cctx/sdk/kit/registration.hpp` compile without exceptions too. `cctx/sdk/plugin.hpp` adds
/// `guarded()` and the kit's throwing helpers (kit::fail, kit::check) on top of this header.
#pragma once

#include "cctx/sdk/abi.hpp"
#include "cctx/sdk/abi_layout.hpp"
#include "cctx/sdk/dims.hpp"
#include "cctx/sdk/node_view.hpp"
#include "cctx/sdk/registrar.hpp"
#include "cctx/sdk/rules.hpp"
#include "cctx/sdk/types.hpp"

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
