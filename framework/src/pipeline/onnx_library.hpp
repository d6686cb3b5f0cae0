// ONNX's own inference (libonnx): its operator schemas' inference functions, for nodes no rule
// covers (onnx_fallback.cpp), and its whole-model shape inference, for the runtime shapes of the
// free_list planner. Most analyses need neither, and libonnx is large (3 MB, about 3,100
// relocations): linked into the executable, it was mapped, relocated and initialised at every
// start (about 1.4 ms of a 10k-node `cctx analyze` on this project's VM). So it is linked into a
// small module of cctx's own, `<prefix>/lib/cctx/libcctx_onnx_library.so`
// (framework/onnx_library/onnx_library_module.cpp), opened on first use.
//
// The module has its own copy of protobuf and of ONNX's message classes (Debian's shared
// libprotobuf and libonnx_proto, which libonnx needs), while the `cctx` executable links its own
// statically (framework/CMakeLists.txt, "cctx_onnx_messages"): the two copies never share a
// message object, so everything crosses as serialized bytes. The requests are small (one node,
// or a model whose tensor payloads were skipped at load).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

/// The module's one exported symbol: `const cctx::detail::OnnxLibrary* CCTX_ONNX_LIBRARY_ENTRY()`.
#define CCTX_ONNX_LIBRARY_ENTRY cctx_onnx_library_v2
#define CCTX_ONNX_LIBRARY_FILE "libcctx_onnx_library.so"

namespace cctx::detail {

enum class SchemaInference : std::int32_t {
  kDone,        ///< the outputs' types are in the response
  kNoSchema,    ///< the library has no schema for the operator at that opset
  kNoFunction,  ///< its schema has no inference function
  kFailed,      ///< the inference function threw; `error` holds its message
};

/// One node for its schema's inference function, every protobuf message serialized; an absent
/// entry is an input the function must see as missing.
struct NodeInferenceRequest {
  std::string domain;  ///< "" is ai.onnx
  std::string op_type;
  int opset = 0;
  std::string node;                                         ///< onnx::NodeProto (its attributes)
  std::vector<std::optional<std::string>> input_types;      ///< onnx::TypeProto per input
  std::vector<std::optional<std::string>> input_data;       ///< onnx::TensorProto (constants)
  std::vector<std::optional<std::string>> symbolic_inputs;  ///< onnx::TensorShapeProto
  std::size_t output_count = 0;
};

/// The module's functions. The module is built with the host, from the same headers, and is part
/// of cctx (not a plugin): standard-library types cross, protobuf objects and
/// std::exception-derived errors do not.
struct OnnxLibrary {
  std::uint32_t struct_size;
  /// The newest opset of `domain` ("" is ai.onnx) that the linked onnx library knows, or -1.
  int (*max_known_version)(const std::string& domain);
  /// Runs the inference function of the request's schema: kDone with one serialized
  /// onnx::TypeProto per output in `output_types`; else kNoSchema, kNoFunction, or kFailed with
  /// `error` set.
  SchemaInference (*infer_node)(const NodeInferenceRequest& request,
                                std::vector<std::string>* output_types, std::string* error);
  /// onnx::shape_inference::InferShapes over the serialized onnx::ModelProto `model`, without
  /// data propagation: the inferred model, serialized, in `inferred`; false with `error` set when
  /// it throws or the model does not parse.
  bool (*infer_model)(const std::string& model, std::string* inferred, std::string* error);
  /// Whether the library has a schema for the operator at that opset (its newest version at or
  /// below it).
  bool (*has_schema)(const std::string& domain, const std::string& op_type, int opset);
};

/// The module, opened on the first call (thread-safe) and kept until the process ends. It is
/// looked for next to the plugins' folder (Host::default_plugin_dir()/..). Throws PluginError
/// when it cannot be opened: an incomplete installation.
const OnnxLibrary& onnx_library();

}  // namespace cctx::detail
