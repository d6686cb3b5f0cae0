// An ONNX model read with protobuf and the onnx library's generated classes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "cctx/limits.hpp"

namespace onnx {
class ModelProto;
}

namespace cctx {

class OutputFile;

/// Owns one ModelProto and remembers where it came from (for messages).
class Model {
 public:
  /// Reads and validates a model file. Throws ModelError naming the file and the problem
  /// (missing, unreadable, a directory, empty, truncated, not an ONNX model, beyond `limits`,
  /// structurally invalid: see detail::check_model).
  static Model load(const std::filesystem::path& path, const Limits& limits = {});
  /// Parses and validates serialized bytes; `source` names them in messages.
  static Model parse(std::string_view bytes, std::string source, const Limits& limits = {});
  /// Takes ownership of an already-built proto.
  static Model adopt(std::unique_ptr<onnx::ModelProto> proto, std::string source);

  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  ~Model();

  const onnx::ModelProto& proto() const { return *proto_; }
  onnx::ModelProto& proto() { return *proto_; }
  const std::string& source() const { return source_; }

  /// The opset version imported for `domain` ("" and "ai.onnx" are the same), or -1.
  std::int64_t opset(std::string_view domain) const;

  /// Serializes to `path` by the rules of output files (cctx/output_file.hpp): a regular file is
  /// replaced only on success, so a failure never leaves a partial file (and the input may be
  /// overwritten). Throws Error naming the path.
  void save(const std::filesystem::path& path) const;
  /// Serializes into `out` and commits it. A model loaded from a file whose tensors keep their
  /// data in external files is refused (Error, exit code 3) when `out` is a file in another
  /// folder: the locations are relative to the model's folder and would lead nowhere.
  void save(OutputFile& out) const;
  /// The check of save(OutputFile&) alone, to refuse a target before any work is done.
  void check_save_target(const OutputFile& out) const;
  std::string serialize() const;

 private:
  Model(std::unique_ptr<onnx::ModelProto> proto, std::string source);
  std::unique_ptr<onnx::ModelProto> proto_;
  std::string source_;
  std::filesystem::path folder_;  ///< the folder of the file it was loaded from; empty otherwise
};

/// "" for the default ONNX domain spelled either way.
inline std::string_view normalize_domain(std::string_view domain) {
  return domain == "ai.onnx" ? std::string_view{} : domain;
}

}  // namespace cctx
