// ONNX's own inference (libonnx): its operator schemas' inference functions, for nodes no rule
// covers (onnx_fallback.cpp), and its whole-model shape inference, for the runtime shapes of the
// free_list planner. Most analyses need neither, and libonnx is large (3 MB, about 3,100
// relocations): linked into the executable, it was mapped, relocated and initialised at every
// start (about 1.4 ms of a 10k-node `cctx analyze` on this project's VM). So it is linked into a
// small module of cctx's own, `<prefix>/lib/cctx/libcctx_onnx_library.so`
// (framework/onnx_library/onnx_library_module.cpp), opened on first use. The module's libonnx
// binds to the process's libprotobuf and libonnx_proto (the same sonames, already loaded): one
// copy of protobuf and of ONNX's message classes in the process.
#pragma once

#include <cstdint>
#include <string>

namespace onnx {
class ModelProto;
class OpSchema;
struct InferenceContext;
}  // namespace onnx

/// The module's one exported symbol: `const cctx::detail::OnnxLibrary* CCTX_ONNX_LIBRARY_ENTRY()`.
#define CCTX_ONNX_LIBRARY_ENTRY cctx_onnx_library_v1
#define CCTX_ONNX_LIBRARY_FILE "libcctx_onnx_library.so"

namespace cctx::detail {

enum class SchemaInference : std::int32_t {
  kDone,        ///< found (find_schema), or the outputs' types are in the context (infer_node)
  kNoSchema,    ///< the library has no schema for the operator at that opset
  kNoFunction,  ///< its schema has no inference function
  kFailed,      ///< the inference function threw; `error` holds its message
};

/// The module's functions. The module is built with the host, from the same headers, and is part
/// of cctx (not a plugin): C++ types cross, std::exception-derived errors do not.
struct OnnxLibrary {
  std::uint32_t struct_size;
  /// The newest opset of `domain` ("" is ai.onnx) that the linked onnx library knows, or -1.
  int (*max_known_version)(const std::string& domain);
  /// The schema of (domain, op_type, opset), set in `schema` when it has an inference function
  /// (kDone); else kNoSchema or kNoFunction.
  SchemaInference (*find_schema)(const std::string& domain, const std::string& op_type, int opset,
                                 const onnx::OpSchema** schema);
  /// Runs `schema`'s inference function on `ctx`: kDone, or kFailed.
  SchemaInference (*infer_node)(const onnx::OpSchema& schema, onnx::InferenceContext& ctx,
                                std::string* error);
  /// onnx::shape_inference::InferShapes over `model`, without data propagation; false with
  /// `error` set when it throws.
  bool (*infer_model)(onnx::ModelProto& model, std::string* error);
};

/// The module, opened on the first call (thread-safe) and kept until the process ends. It is
/// looked for next to the plugins' folder (Host::default_plugin_dir()/..). Throws PluginError
/// when it cannot be opened: an incomplete installation.
const OnnxLibrary& onnx_library();

}  // namespace cctx::detail
