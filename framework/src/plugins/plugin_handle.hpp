// A loaded plugin library and the identity it declared; or, for a profile's declarative ops, the
// pseudo-plugin that owns their rule objects (no library).
#pragma once

#include <boost/dll/shared_library.hpp>
#include <filesystem>
#include <memory>
#include <string>

#include "cctx/registry.hpp"

namespace cctx {

struct PluginHandle {
  boost::dll::shared_library library;  // unloads when the last handle goes
  std::string name;
  std::string version;
  std::filesystem::path path;
  /// Rule objects the host built itself (declarative ops): freed with the last rule entry.
  std::shared_ptr<const void> rules;
  std::string origin() const {
    return name + (version.empty() ? "" : " " + version) + " (" + path.string() + ")";
  }
};

}  // namespace cctx
