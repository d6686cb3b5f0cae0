/// @file plugin.hpp
/// Everything a plugin source file needs: the SDK headers, CCTX_DEFINE_PLUGIN (from
/// plugin_entry.hpp, the exception-free part) and `guarded()`.
#pragma once

#include <exception>

#include "cctx/sdk/kit/rule_error.hpp"
#include "cctx/sdk/plugin_entry.hpp"

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
