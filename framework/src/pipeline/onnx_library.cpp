#include "pipeline/onnx_library.hpp"

#include <dlfcn.h>

#include "cctx/errors.hpp"
#include "cctx/host.hpp"

#define CCTX_STRINGIFY_(x) #x
#define CCTX_STRINGIFY(x) CCTX_STRINGIFY_(x)

namespace cctx::detail {

namespace {

const OnnxLibrary& open_onnx_library() {
  const std::string path =
      (Host::default_plugin_dir().parent_path() / CCTX_ONNX_LIBRARY_FILE).string();
  // Never closed: ONNX's schema registry and the inference functions it hands out live in it.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    throw PluginError("cannot load " + path + ", cctx's module of ONNX's inference (" +
                      (why != nullptr ? why : "unknown error") +
                      "); the installation is incomplete");
  }
  using Entry = const OnnxLibrary* (*)();
  auto entry = reinterpret_cast<Entry>(::dlsym(handle, CCTX_STRINGIFY(CCTX_ONNX_LIBRARY_ENTRY)));
  const OnnxLibrary* library = entry != nullptr ? entry() : nullptr;
  if (library == nullptr || library->struct_size != sizeof(OnnxLibrary)) {
    throw PluginError(path + ": not the module of this cctx build (no matching '" +
                      CCTX_STRINGIFY(CCTX_ONNX_LIBRARY_ENTRY) + "')");
  }
  return *library;
}

}  // namespace

const OnnxLibrary& onnx_library() {
  static const OnnxLibrary& library = open_onnx_library();
  return library;
}

}  // namespace cctx::detail
