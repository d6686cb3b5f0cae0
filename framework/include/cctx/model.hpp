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
namespace google::protobuf {
class Arena;
}

namespace cctx {

class OutputFile;
namespace detail {
class TensorPayloads;
}

/// What Model::load does with the large tensor payloads of a model read from a stream (a pipe, a
/// device), which cannot be read a second time. A regular file's are always left in the file.
enum class StreamPayloads : bool {
  kDrop,  ///< not kept: the model can be analysed but not saved
  kKeep,  ///< held in memory, for a later save
};

/// Owns one ModelProto and remembers where it came from (for messages).
class Model {
 public:
  /// Reads and validates a model file. Throws ModelError naming the file and the problem
  /// (missing, unreadable, a directory, empty, truncated, not an ONNX model, beyond `limits`,
  /// structurally invalid: see detail::check_model).
  ///
  /// Weights are never read: a regular file is mapped into memory and only its structure is
  /// touched; tensors of more than 64 elements are parsed without their data fields (dims, type,
  /// name and everything else are kept; detail/structure_parse.hpp), and save() copies those
  /// fields from the file again. tensor_int_values and friends see such tensors as holding none.
  static Model load(const std::filesystem::path& path, const Limits& limits = {},
                    StreamPayloads streams = StreamPayloads::kDrop);
  /// Parses and validates serialized bytes, payloads included; `source` names them in messages.
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
  /// The whole model's bytes, skipped payloads copied back in.
  std::string serialize() const;
  /// True when proto() lacks tensor data load() left in the file: serialize() it, not proto().
  bool payloads_skipped() const { return payloads_ != nullptr; }

 private:
  Model(std::unique_ptr<onnx::ModelProto> proto, std::string source);
  /// Where load() parses: its messages are freed all at once with it, not one by one (freeing
  /// a large graph's messages took as long as its analysis).
  std::unique_ptr<google::protobuf::Arena> arena_;
  std::unique_ptr<onnx::ModelProto> owned_;  ///< the proto of parse() and adopt()
  onnx::ModelProto* proto_ = nullptr;        ///< owned_, or a message on arena_
  /// The payloads load() skipped and where to read them again; null when nothing was skipped.
  std::shared_ptr<const detail::TensorPayloads> payloads_;
  std::string source_;
  std::filesystem::path folder_;  ///< the folder of the file it was loaded from; empty otherwise
};

/// "" for the default ONNX domain spelled either way.
inline std::string_view normalize_domain(std::string_view domain) {
  return domain == "ai.onnx" ? std::string_view{} : domain;
}

}  // namespace cctx
