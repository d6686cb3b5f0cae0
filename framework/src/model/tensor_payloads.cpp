#include "model/tensor_payloads.hpp"

#include <google/protobuf/unknown_field_set.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "cctx/errors.hpp"
#include "model/wire_schema.hpp"

namespace cctx::detail {

namespace {
constexpr std::size_t kPieceBytes = std::size_t{1} << 20;

std::int64_t mtime_of(const struct stat& st) {
  return std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
}
}  // namespace

TensorPayloads::~TensorPayloads() {
  if (fd_ >= 0) ::close(fd_);
}

std::uint32_t TensorPayloads::add(std::span<const ByteRange> fields) {
  if (ranges_.size() + fields.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw ModelError(name_ + ": too many tensor payload fields");
  }
  ranges_.insert(ranges_.end(), fields.begin(), fields.end());
  begin_.push_back(static_cast<std::uint32_t>(ranges_.size()));
  return count() - 1;
}

std::uint64_t TensorPayloads::bytes(std::uint32_t tensor) const {
  std::uint64_t total = 0;
  for (const ByteRange& r : fields(tensor)) total += r.length;
  return total;
}

bool TensorPayloads::read_from_file(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return false;
  size_ = static_cast<std::uint64_t>(st.st_size);
  mtime_ns_ = mtime_of(st);
  return true;
}

void TensorPayloads::read_from_memory(std::string bytes) {
  memory_ = std::move(bytes);
  memory_source_ = true;
  size_ = memory_.size();
}

void TensorPayloads::check_unchanged() const {
  // The descriptor keeps the inode the model was read from, so a file replaced by rename (the
  // way cctx itself writes) still reads as it was; one rewritten in place does not.
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || static_cast<std::uint64_t>(st.st_size) != size_ ||
      mtime_of(st) != mtime_ns_) {
    throw ModelError(name_ +
                     ": changed since it was read; its tensor data can no longer be copied");
  }
}

void TensorPayloads::copy(const ByteRange& r,
                          const std::function<void(std::string_view)>& sink) const {
  if (!has_source()) {
    throw ModelError(name_ +
                     ": was read without its tensor data (from a stream); it cannot be "
                     "written back");
  }
  if (memory_source_) {
    sink(std::string_view(memory_).substr(r.offset, r.length));
    return;
  }
  check_unchanged();
  std::string piece;
  for (std::uint64_t done = 0; done < r.length;) {
    const auto want =
        static_cast<std::size_t>(std::min<std::uint64_t>(kPieceBytes, r.length - done));
    piece.resize(want);
    const ssize_t got = ::pread(fd_, piece.data(), want, static_cast<off_t>(r.offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      throw ModelError(name_ + ": cannot read its tensor data again (" +
                       (got < 0 ? std::string(std::strerror(errno)) : "file shrank") + ")");
    }
    sink(std::string_view(piece.data(), static_cast<std::size_t>(got)));
    done += static_cast<std::uint64_t>(got);
  }
}

std::int64_t skipped_payload(const onnx::TensorProto& t) {
  const google::protobuf::UnknownFieldSet& unknown = t.unknown_fields();
  for (int k = 0; k < unknown.field_count(); ++k) {
    const google::protobuf::UnknownField& f = unknown.field(k);
    if (f.number() == static_cast<int>(wire::kPayloadMarker) &&
        f.type() == google::protobuf::UnknownField::TYPE_VARINT) {
      return static_cast<std::int64_t>(f.varint());
    }
  }
  return -1;
}

}  // namespace cctx::detail
