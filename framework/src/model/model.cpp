#include "cctx/model.hpp"

#include <fcntl.h>
#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <system_error>

#include "cctx/errors.hpp"
#include "cctx/output_file.hpp"
#include "model/external_data.hpp"
#include "model/model_checks.hpp"
#include "model/payload_splice.hpp"
#include "model/structure_parse.hpp"
#include "model/tensor_payloads.hpp"

namespace cctx {
namespace fs = std::filesystem;

namespace {

ModelError too_big(const fs::path& path, std::uintmax_t size, const Limits& limits) {
  return ModelError(path.string() + ": " + std::to_string(size) + " bytes or more, above " +
                    std::to_string(limits.file_bytes) + " (limits.file_bytes)");
}

std::uintmax_t file_limit(const Limits& limits) {
  return static_cast<std::uintmax_t>(std::min(limits.file_bytes, kMaxFileBytes));
}

/// A stream's bytes (a pipe, a device), which have no size to check first: read up to one byte
/// past the limit.
std::string read_stream(const fs::path& path, const Limits& limits) {
  const std::uintmax_t limit = file_limit(limits);
  const std::uintmax_t expected = limit + 1;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path.string() + ": cannot open (" + std::strerror(errno) + ")");
  // Room for all of it up front, so that appending never reallocates: a string that doubles
  // holds the old and the new buffer at once, three times the limit when a stream is refused.
  // Pages of the reserve are only backed once written.
  std::string bytes;
  bytes.reserve(static_cast<std::size_t>(expected));
  char chunk[1 << 16];
  for (;;) {
    // Never past limit + 1 bytes: a regular file that grows while read is refused the same way.
    const std::uintmax_t room = limit + 1 - bytes.size();
    if (!in.read(chunk,
                 static_cast<std::streamsize>(std::min<std::uintmax_t>(sizeof chunk, room))) &&
        in.gcount() == 0) {
      break;
    }
    bytes.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (bytes.size() > limit) throw too_big(path, bytes.size(), limits);
  }
  if (in.bad()) throw ModelError(path.string() + ": read error");
  return bytes;
}

void check_nonempty(std::uintmax_t size, const std::string& source) {
  if (size == 0) throw ModelError(source + ": empty file, not an ONNX model");
}

/// Parses wire-format bytes (a whole model, or its structure) into `proto` and validates it.
void parse_checked(std::string_view bytes, const std::string& source, const Limits& limits,
                   onnx::ModelProto& proto) {
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                                static_cast<int>(bytes.size()));
  stream.SetRecursionLimit(detail::kWireRecursionLimit);
  if (!proto.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) {
    throw ModelError(source + ": not a valid ONNX model (truncated or corrupt protobuf)");
  }
  if (!proto.has_graph()) {
    throw ModelError(source + ": not an ONNX model (no graph)");
  }
  detail::check_model(proto, source, limits);
}

/// The structure (structure_parse.hpp) of the `size` bytes of the regular file `fd`, read from
/// its start, parsed into `proto` and validated.
void parse_file_structure(int fd, std::uint64_t size, const std::string& source,
                          const Limits& limits, detail::TensorPayloads& payloads,
                          onnx::ModelProto& proto) {
  std::string structure;
  int read_error = 0;
  if (!detail::strip_file_payloads(fd, size, payloads, structure, &read_error)) {
    if (read_error != 0) {
      throw ModelError(source + ": cannot read (" + std::strerror(read_error) + ")");
    }
    throw ModelError(source + ": not a valid ONNX model (truncated or corrupt protobuf)");
  }
  parse_checked(structure, source, limits, proto);
}

/// The structure of `bytes`, a model read whole from a stream, parsed into `proto` and validated.
void parse_structure(std::string_view bytes, const std::string& source, const Limits& limits,
                     detail::TensorPayloads& payloads, onnx::ModelProto& proto) {
  std::string structure;
  if (!detail::strip_payloads(bytes, payloads, structure)) {
    throw ModelError(source + ": not a valid ONNX model (truncated or corrupt protobuf)");
  }
  parse_checked(structure, source, limits, proto);
}

/// An arena for a model's messages: blocks grow to 1 MiB (the default stops at 8 KiB).
std::unique_ptr<google::protobuf::Arena> model_arena() {
  google::protobuf::ArenaOptions options;
  options.start_block_size = std::size_t{16} << 10;
  options.max_block_size = std::size_t{1} << 20;
  return std::make_unique<google::protobuf::Arena>(options);
}

}  // namespace

Model::Model(std::unique_ptr<onnx::ModelProto> proto, std::string source)
    : owned_(std::move(proto)), proto_(owned_.get()), source_(std::move(source)) {}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

Model Model::load(const fs::path& path, const Limits& limits, StreamPayloads streams) {
  const std::string source = path.string();
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) throw ModelError(source + ": no such file");
  if (ec) throw ModelError(source + ": cannot access (" + ec.message() + ")");
  if (fs::is_directory(status)) throw ModelError(source + ": is a directory, not a model file");
  auto payloads = std::make_shared<detail::TensorPayloads>(source);
  auto arena = model_arena();
  onnx::ModelProto& proto = *google::protobuf::Arena::CreateMessage<onnx::ModelProto>(arena.get());
  if (fs::is_regular_file(status)) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw ModelError(source + ": cannot open (" + std::strerror(errno) + ")");
    // Adopted now, so that every exit below closes it; the source of a later save.
    if (!payloads->read_from_file(fd)) {
      throw ModelError(source + ": cannot access (" + std::strerror(errno) + ")");
    }
    const auto size = static_cast<std::uintmax_t>(payloads->file_size());
    if (size > file_limit(limits)) throw too_big(path, size, limits);
    check_nonempty(size, source);
    parse_file_structure(fd, size, source, limits, *payloads, proto);
  } else {
    std::string bytes = read_stream(path, limits);
    check_nonempty(bytes.size(), source);
    parse_structure(bytes, source, limits, *payloads, proto);
    if (streams == StreamPayloads::kKeep) payloads->read_from_memory(std::move(bytes));
  }
  Model model(nullptr, source);
  model.arena_ = std::move(arena);
  model.proto_ = &proto;
  if (payloads->count() > 0) model.payloads_ = std::move(payloads);
  model.folder_ = fs::absolute(path, ec).parent_path();
  return model;
}

Model Model::parse(std::string_view bytes, std::string source, const Limits& limits) {
  check_nonempty(bytes.size(), source);
  if (static_cast<std::int64_t>(bytes.size()) > std::min(limits.file_bytes, kMaxFileBytes)) {
    throw ModelError(source + ": " + std::to_string(bytes.size()) + " bytes, above " +
                     std::to_string(limits.file_bytes) + " (limits.file_bytes)");
  }
  auto proto = std::make_unique<onnx::ModelProto>();
  parse_checked(bytes, source, limits, *proto);
  return Model(std::move(proto), std::move(source));
}

Model Model::adopt(std::unique_ptr<onnx::ModelProto> proto, std::string source) {
  if (!proto || !proto->has_graph()) throw ModelError(source + ": not an ONNX model (no graph)");
  return Model(std::move(proto), std::move(source));
}

std::int64_t Model::opset(std::string_view domain) const {
  domain = normalize_domain(domain);
  for (const auto& op : proto_->opset_import()) {
    if (normalize_domain(op.domain()) == domain) return op.version();
  }
  return -1;
}

std::string Model::serialize() const {
  std::string out;
  if (!proto_->SerializeToString(&out)) throw ModelError(source_ + ": cannot serialize the model");
  if (!payloads_) return out;
  std::string whole;
  detail::splice_payloads(out, *payloads_, [&whole](std::string_view piece) { whole += piece; });
  return whole;
}

void Model::save(const fs::path& path) const {
  OutputFile out(path);
  save(out);
}

void Model::check_save_target(const OutputFile& out) const {
  if (folder_.empty() || out.replaced_file().empty()) return;
  const fs::path written_to = fs::absolute(out.replaced_file()).parent_path();
  std::error_code ec;
  if (fs::equivalent(written_to, folder_, ec)) return;
  if (auto location = detail::first_external_location(*proto_)) {
    throw ModelError(out.path() + ": the model keeps tensor data in external files ('" + *location +
                     "', relative to " + folder_.string() +
                     "); write it into that folder, where the locations stay valid");
  }
}

void Model::save(OutputFile& out) const {
  check_save_target(out);
  // Protobuf (cctx, onnx.load, ONNX Runtime) reads at most 2 GiB - 1 bytes: a model that the
  // annotations push past it would be a file nothing can read. Counted as the bytes go out, and
  // refused before commit(), so a target (the input itself, too) keeps its old bytes.
  constexpr std::uint64_t kMaxReadable = (std::uint64_t{1} << 31) - 1;
  std::uint64_t written = 0;
  auto refuse = [&](std::uint64_t bytes) {
    throw Error(out.path() + ": the model would be " + std::to_string(bytes) +
                    " bytes, above the 2147483647 (2 GiB - 1) that protobuf can read; "
                    "nothing was written (keep the weights as external data to write it)",
                ExitCode::kOutput);
  };
  if (payloads_) {
    // The structure in memory, the weights streamed from the file they were loaded from.
    std::string structure;
    if (!proto_->SerializeToString(&structure)) {
      throw ModelError(source_ + ": cannot serialize the model");
    }
    // Known before a byte goes out: a device or a pipe cannot take a partial write back.
    const std::uint64_t total = detail::spliced_size(structure, *payloads_);
    if (total > kMaxReadable) refuse(total);
    detail::splice_payloads(structure, *payloads_, [&](std::string_view piece) {
      written += piece.size();
      if (written > kMaxReadable) refuse(written);  // a second line of defence
      out.write(piece);
    });
  } else {
    const std::size_t bytes = proto_->ByteSizeLong();
    if (bytes > kMaxReadable) refuse(bytes);
    out.write(serialize());
  }
  out.commit();
}

}  // namespace cctx
