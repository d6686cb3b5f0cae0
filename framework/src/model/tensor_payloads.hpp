// The tensor payloads a model was loaded without: where they are in the file it came from, and
// the means to copy them from there when the model is written out again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace onnx {
class TensorProto;
}

namespace cctx::detail {

/// Bytes [offset, offset + length) of the source.
struct ByteRange {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  std::uint32_t field = 0;  ///< the field number of the bytes (a whole field)
};

/// Per skipped tensor, the byte ranges of its payload fields (whole fields, tags included) in the
/// source, in file order; and the source itself: an open file descriptor (read again with pread,
/// so copying never maps the weights into the process) or bytes held in memory (a stream).
class TensorPayloads {
 public:
  /// `name`: the source's, for messages.
  explicit TensorPayloads(std::string name) : name_(std::move(name)) {}
  TensorPayloads(const TensorPayloads&) = delete;
  TensorPayloads& operator=(const TensorPayloads&) = delete;
  ~TensorPayloads();

  /// Appends one tensor's ranges; returns its index (the marker's value).
  std::uint32_t add(std::span<const ByteRange> fields);
  std::uint32_t count() const { return static_cast<std::uint32_t>(begin_.size() - 1); }
  std::span<const ByteRange> fields(std::uint32_t tensor) const {
    return {ranges_.data() + begin_[tensor], ranges_.data() + begin_[tensor + 1]};
  }
  /// Sum of the lengths of fields(tensor).
  std::uint64_t bytes(std::uint32_t tensor) const;

  /// The source: `fd` is adopted (closed on destruction, also when this fails); its size and
  /// modification time, checked again before copying, are taken now. False when fstat fails.
  bool read_from_file(int fd);
  /// The size of the file read_from_file adopted.
  std::uint64_t file_size() const { return size_; }
  void read_from_memory(std::string bytes);
  bool has_source() const { return fd_ >= 0 || memory_source_; }
  const std::string& source_name() const { return name_; }

  /// Hands the bytes of `field` (one of some fields(tensor)) to `sink` in pieces of at most
  /// 1 MiB. Throws ModelError when the file changed since it was read or cannot be read.
  void copy(const ByteRange& field, const std::function<void(std::string_view)>& sink) const;

 private:
  void check_unchanged() const;

  std::vector<ByteRange> ranges_;
  std::vector<std::uint32_t> begin_{0};
  int fd_ = -1;
  bool memory_source_ = false;
  std::string memory_;
  std::string name_;
  std::uint64_t size_ = 0;
  std::int64_t mtime_ns_ = 0;
};

/// The payload marker's value in `t` (a tensor loaded without its payload), or -1.
std::int64_t skipped_payload(const onnx::TensorProto& t);

}  // namespace cctx::detail
