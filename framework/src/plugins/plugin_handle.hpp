// A loaded plugin library and the identity it declared.
#pragma once

#include <boost/dll/shared_library.hpp>

#include <filesystem>
#include <string>

#include "cctx/registry.hpp"

namespace cctx {

struct PluginHandle {
  boost::dll::shared_library library;  // unloads when the last handle goes
  std::string name;
  std::string version;
  std::filesystem::path path;
  std::string origin() const { return name + " " + version + " (" + path.string() + ")"; }
};

}  // namespace cctx
