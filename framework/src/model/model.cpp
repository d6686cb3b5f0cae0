#include "cctx/model.hpp"

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

namespace cctx {
namespace fs = std::filesystem;

namespace {

// Deeply nested subgraphs (If inside Loop inside ...) need more than protobuf's default
// recursion limit of 100 message levels; each nesting level costs three (graph, node, attribute).
constexpr int kRecursionLimit = 12000;

std::string read_file(const fs::path& path, const Limits& limits) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) throw ModelError(path.string() + ": no such file");
  if (ec) throw ModelError(path.string() + ": cannot access (" + ec.message() + ")");
  if (fs::is_directory(st)) throw ModelError(path.string() + ": is a directory, not a model file");
  const auto too_big = [&](std::uintmax_t size) {
    return ModelError(path.string() + ": " + std::to_string(size) + " bytes or more, above " +
                      std::to_string(limits.file_bytes) + " (limits.file_bytes)");
  };
  // Checked before reading: the whole file is held in memory twice (bytes and parsed proto).
  const auto limit = static_cast<std::uintmax_t>(std::min(limits.file_bytes, kMaxFileBytes));
  // A pipe or a device (/dev/zero) has no size to check first: it is read up to one byte past
  // the limit.
  std::uintmax_t expected = limit + 1;
  if (fs::is_regular_file(st)) {
    const std::uintmax_t size = fs::file_size(path, ec);
    if (!ec && size > limit) throw too_big(size);
    if (!ec) expected = size;
  }
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
    if (bytes.size() > limit) throw too_big(bytes.size());
  }
  if (in.bad()) throw ModelError(path.string() + ": read error");
  return bytes;
}

}  // namespace

Model::Model(std::unique_ptr<onnx::ModelProto> proto, std::string source)
    : proto_(std::move(proto)), source_(std::move(source)) {}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

Model Model::load(const fs::path& path, const Limits& limits) {
  Model model = parse(read_file(path, limits), path.string(), limits);
  std::error_code ec;
  model.folder_ = fs::absolute(path, ec).parent_path();
  return model;
}

Model Model::parse(std::string_view bytes, std::string source, const Limits& limits) {
  if (bytes.empty()) throw ModelError(source + ": empty file, not an ONNX model");
  if (static_cast<std::int64_t>(bytes.size()) > std::min(limits.file_bytes, kMaxFileBytes)) {
    throw ModelError(source + ": " + std::to_string(bytes.size()) + " bytes, above " +
                     std::to_string(limits.file_bytes) + " (limits.file_bytes)");
  }
  auto proto = std::make_unique<onnx::ModelProto>();
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                                static_cast<int>(bytes.size()));
  stream.SetRecursionLimit(kRecursionLimit);
  if (!proto->ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) {
    throw ModelError(source + ": not a valid ONNX model (truncated or corrupt protobuf)");
  }
  if (!proto->has_graph()) {
    throw ModelError(source + ": not an ONNX model (no graph)");
  }
  detail::check_model(*proto, source, limits);
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
  return out;
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
  out.write(serialize());
  out.commit();
}

}  // namespace cctx
