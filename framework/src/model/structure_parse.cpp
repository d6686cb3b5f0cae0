#include "model/structure_parse.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "model/tensor_payloads.hpp"
#include "model/wire_schema.hpp"
#include "model/wire_varint.hpp"

namespace cctx::detail {

namespace {

using google::protobuf::io::CodedInputStream;
using google::protobuf::io::ZeroCopyInputStream;
using WireFormat = google::protobuf::internal::WireFormatLite;

/// The length of a length-delimited field, read as protobuf's parser reads it: a varint of at
/// most five bytes whose value leaves room for the parser's 16 bytes of slop below INT_MAX.
/// CodedInputStream::ReadVarint32 would take the low 32 bits of a longer one, so that a length of
/// 2^63 read as 0 (an empty graph) where protobuf, and onnx.load, refuse the file.
bool read_length(CodedInputStream& in, std::uint32_t* length) {
  constexpr std::uint64_t kMaxLength = std::numeric_limits<int>::max() - 16;
  const int before = in.CurrentPosition();
  std::uint64_t value = 0;
  if (!in.ReadVarint64(&value) || in.CurrentPosition() - before > 5 || value > kMaxLength) {
    return false;
  }
  *length = static_cast<std::uint32_t>(value);
  return true;
}

/// The element count of a TensorProto, from its dims fields as they are met (packed or not).
class ElementCount {
 public:
  void add_field(std::string_view field_bytes) {
    CodedInputStream in(reinterpret_cast<const std::uint8_t*>(field_bytes.data()),
                        static_cast<int>(field_bytes.size()));
    const std::uint32_t tag = in.ReadTag();
    std::uint64_t dim = 0;
    if (WireFormat::GetTagWireType(tag) == WireFormat::WIRETYPE_VARINT) {
      if (in.ReadVarint64(&dim)) multiply(dim);
      return;
    }
    std::uint32_t length = 0;
    if (!read_length(in, &length)) return;
    while (in.BytesUntilLimit() != 0 && in.ReadVarint64(&dim)) multiply(dim);
  }
  bool small() const {
    return !large_ && count_ <= static_cast<std::uint64_t>(kKeptTensorElements);
  }
  void reset() {
    count_ = 1;
    large_ = false;
  }

 private:
  void multiply(std::uint64_t dim) {
    // A negative dim is a huge unsigned one: large, as is any product past int64.
    if (dim > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
        __builtin_mul_overflow(count_, dim, &count_)) {
      large_ = true;
    }
  }
  std::uint64_t count_ = 1;
  bool large_ = false;
};

class Stripper {
 public:
  Stripper(ZeroCopyInputStream& input, std::uint64_t size, TensorPayloads& payloads,
           std::string& out)
      : size_(size), in_(&input), payloads_(payloads), out_(out) {
    in_.SetRecursionLimit(kWireRecursionLimit);
  }

  bool run() {
    out_.clear();
    // The structure is at most about the file's size (less its payloads): room for it up front,
    // instead of a chain of doubled copies that touched twice the memory (fresh pages, each a
    // fault). Capped: a large file is mostly payloads, and its room is only reserved, not touched.
    constexpr std::uint64_t kReserveCap = std::uint64_t{64} << 20;
    out_.reserve(static_cast<std::size_t>(std::min(size_, kReserveCap)));
    std::uint64_t end = size_;  // of the message being walked
    for (;;) {
      if (kind_ != wire::Msg::kTensor) copy_plain_fields();
      const std::uint64_t start = position();
      const std::uint32_t tag = in_.ReadTagNoLastTag();
      if (tag == 0) {
        // The end of the message (its limit, or the file's end), unless a zero tag was read.
        if (position() != start || start != end) return false;
        if (stack_.empty()) return true;
        end = close_message();
        continue;
      }
      const std::uint32_t field = WireFormat::GetTagFieldNumber(tag);
      const WireFormat::WireType type = WireFormat::GetTagWireType(tag);
      if (type == WireFormat::WIRETYPE_END_GROUP) return false;
      if (kind_ == wire::Msg::kTensor && wire::is_payload(field)) {
        // Kept aside while the tensor may still turn out small; skipped unread otherwise.
        const bool keep = !marker_seen_ && pending_bytes_ <= kKeptPayloadBytes;
        if (!copy_field(tag, end, keep ? &kept_ : nullptr,
                        keep ? kKeptPayloadBytes - pending_bytes_ : 0)) {
          return false;
        }
        note_payload(start, field);
        continue;
      }
      const wire::Msg sub = type == WireFormat::WIRETYPE_LENGTH_DELIMITED
                                ? wire::child(kind_, field)
                                : wire::Msg::kOther;
      if (sub != wire::Msg::kOther) {
        std::uint32_t length = 0;
        if (!read_length(in_, &length)) return false;
        const std::uint64_t content = position();
        if (length > end - content || stack_.size() >= kWireRecursionLimit) return false;
        open_message(tag, sub, length, end);
        end = content + length;
        continue;
      }
      const std::size_t at = out_.size();
      if (!copy_field(tag, end, &out_, kUnbounded)) return false;
      if (kind_ == wire::Msg::kTensor && field == wire::kTensorDims) {
        elements_.add_field(std::string_view(out_).substr(at));
      }
    }
  }

 private:
  struct Frame {
    wire::Msg kind;
    std::size_t length_at;  ///< where in out_ the message's padded length goes
    std::uint64_t end;      ///< the enclosing message's end in the file
    CodedInputStream::Limit limit;
  };

  static constexpr std::uint64_t kUnbounded = std::numeric_limits<std::uint64_t>::max();

  std::uint64_t position() const { return static_cast<std::uint64_t>(in_.CurrentPosition()); }

  /// Copies, as one piece, the fields next in the input that the walk keeps unchanged (neither
  /// a message it walks into nor a tensor's) and that lie wholly in the input's current buffer:
  /// most of a graph is names, each of which, appended as a field of its own, cost a tag read,
  /// a header written and a copy (half of the walk's instructions on a 10k-node GPT export).
  /// The bytes go over as they are: a varint not in its shortest form, which the field-by-field
  /// walk writes anew, stays so, and protobuf reads it the same.
  void copy_plain_fields() {
    const void* data = nullptr;
    int available = 0;
    if (!in_.GetDirectBufferPointer(&data, &available) || available <= 0) return;
    // protobuf's own reader over the buffered bytes alone: a field that runs past them fails to
    // read there and is left to the field-by-field walk.
    CodedInputStream buffered(static_cast<const std::uint8_t*>(data), available);
    int plain = 0;  // bytes of whole plain fields read
    while (skip_plain_field(buffered)) plain = buffered.CurrentPosition();
    if (plain == 0) return;
    out_.append(static_cast<const char*>(data), static_cast<std::size_t>(plain));
    in_.Skip(plain);
  }

  /// Reads past the next field of `in` when it is one the walk copies unchanged (neither a
  /// message it walks into nor a group); false otherwise, or when it does not end within `in`.
  bool skip_plain_field(CodedInputStream& in) const {
    const std::uint32_t tag = in.ReadTagNoLastTag();
    if (tag == 0) return false;
    switch (WireFormat::GetTagWireType(tag)) {
      case WireFormat::WIRETYPE_VARINT: {
        std::uint64_t value = 0;
        return in.ReadVarint64(&value);
      }
      case WireFormat::WIRETYPE_FIXED64:
        return in.Skip(8);
      case WireFormat::WIRETYPE_FIXED32:
        return in.Skip(4);
      case WireFormat::WIRETYPE_LENGTH_DELIMITED: {
        if (wire::child(kind_, WireFormat::GetTagFieldNumber(tag)) != wire::Msg::kOther) {
          return false;
        }
        std::uint32_t length = 0;
        return read_length(in, &length) && in.Skip(static_cast<int>(length));
      }
      default:
        return false;
    }
  }

  /// Reads the rest of the field whose `tag` was just read, within `end`, and appends the field
  /// (tag included; varints re-encoded, which protobuf reads the same) to `to`; when `to` is
  /// null, or a length-delimited field holds more than `room` bytes, skips it unread (a large
  /// payload is never read from the file). False when the wire format is broken.
  bool copy_field(std::uint32_t tag, std::uint64_t end, std::string* to, std::uint64_t room) {
    switch (WireFormat::GetTagWireType(tag)) {
      case WireFormat::WIRETYPE_VARINT: {
        std::uint64_t value = 0;
        if (!in_.ReadVarint64(&value)) return false;
        if (to != nullptr) append_header(*to, tag, value);
        return true;
      }
      case WireFormat::WIRETYPE_FIXED64:
        return copy_raw(tag, 8, to);
      case WireFormat::WIRETYPE_FIXED32:
        return copy_raw(tag, 4, to);
      case WireFormat::WIRETYPE_LENGTH_DELIMITED: {
        std::uint32_t length = 0;
        if (!read_length(in_, &length)) return false;
        if (length > end - position()) return false;
        if (to == nullptr || length > room) return in_.Skip(static_cast<int>(length));
        append_header(*to, tag, length);
        return append_raw(length, *to);
      }
      case WireFormat::WIRETYPE_START_GROUP: {
        // Deprecated groups: protobuf's own walk, written out whole.
        if (to == nullptr) return WireFormat::SkipField(&in_, tag);
        std::string group;
        {
          google::protobuf::io::StringOutputStream buffer(&group);
          google::protobuf::io::CodedOutputStream out(&buffer);
          if (!WireFormat::SkipField(&in_, tag, &out)) return false;
          out.Trim();
          group.resize(static_cast<std::size_t>(out.ByteCount()));
        }
        to->append(group);
        return true;
      }
      default:
        return false;
    }
  }

  /// The next `bytes` of the input, after `tag`, appended to `to` (null: skipped).
  bool copy_raw(std::uint32_t tag, std::uint32_t bytes, std::string* to) {
    if (to == nullptr) return in_.Skip(static_cast<int>(bytes));
    append_varint(*to, tag);
    return append_raw(bytes, *to);
  }

  /// A field's tag and its value (or length), appended as one piece: most fields of a graph are
  /// short strings (names), whose copy is mostly this.
  static void append_header(std::string& to, std::uint32_t tag, std::uint64_t value) {
    char bytes[2 * kMaxVarintBytes];
    const std::size_t n = write_varint(bytes, tag);
    to.append(bytes, n + write_varint(bytes + n, value));
  }

  /// The next `bytes` of the input appended to `to`, straight from the input's buffer (not
  /// zero-filled first, then read into).
  bool append_raw(std::uint32_t bytes, std::string& to) {
    while (bytes > 0) {
      const void* data = nullptr;
      int available = 0;
      if (!in_.GetDirectBufferPointer(&data, &available) || available <= 0) return false;
      const auto piece = std::min(bytes, static_cast<std::uint32_t>(available));
      to.append(static_cast<const char*>(data), piece);
      in_.Skip(static_cast<int>(piece));
      bytes -= piece;
    }
    return true;
  }

  void open_message(std::uint32_t tag, wire::Msg sub, std::uint32_t length, std::uint64_t end) {
    append_varint(out_, tag);
    stack_.push_back(Frame{kind_, out_.size(), end, in_.PushLimit(static_cast<int>(length))});
    out_.append(kPaddedVarintBytes, '\0');
    kind_ = sub;
    if (sub == wire::Msg::kTensor) {
      pending_.clear();
      pending_bytes_ = 0;
      kept_.clear();
      marker_seen_ = false;
      elements_.reset();
    }
  }

  /// Ends the message walked: a tensor's payload goes in (small) or is noted (large), the
  /// length is filled in. Returns the enclosing message's end.
  std::uint64_t close_message() {
    if (kind_ == wire::Msg::kTensor && !pending_.empty()) {
      if (elements_.small() && pending_bytes_ <= kKeptPayloadBytes && !marker_seen_) {
        out_.append(kept_);
      } else {
        append_varint(out_, WireFormat::MakeTag(wire::kPayloadMarker, WireFormat::WIRETYPE_VARINT));
        append_varint(out_, payloads_.add(pending_));
      }
    }
    const Frame frame = stack_.back();
    stack_.pop_back();
    write_padded_varint(
        out_.data() + frame.length_at,
        static_cast<std::uint32_t>(out_.size() - frame.length_at - kPaddedVarintBytes));
    in_.PopLimit(frame.limit);
    kind_ = frame.kind;
    return frame.end;
  }

  void note_payload(std::uint64_t start, std::uint32_t field) {
    const ByteRange r{start, position() - start, field};
    pending_.push_back(r);
    pending_bytes_ += r.length;
    marker_seen_ = marker_seen_ || field == wire::kPayloadMarker;
  }

  std::uint64_t size_;
  CodedInputStream in_;
  TensorPayloads& payloads_;
  std::string& out_;
  std::vector<Frame> stack_;
  wire::Msg kind_ = wire::Msg::kModel;
  // The tensor being walked (tensors hold no tensors).
  std::vector<ByteRange> pending_;
  std::uint64_t pending_bytes_ = 0;
  std::string kept_;  ///< its payload fields, while they may be kept
  bool marker_seen_ = false;
  ElementCount elements_;
};

}  // namespace

bool strip_payloads(ZeroCopyInputStream& input, std::uint64_t size, TensorPayloads& payloads,
                    std::string& structure) {
  if (size > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) return false;
  return Stripper(input, size, payloads, structure).run();
}

bool strip_file_payloads(int fd, std::uint64_t size, TensorPayloads& payloads,
                         std::string& structure, int* read_error) {
  google::protobuf::io::FileInputStream file(fd, kReadBlockBytes);
  // Never past `size` (checked against the limits), should the file grow while it is read.
  google::protobuf::io::LimitingInputStream bytes(&file, static_cast<std::int64_t>(size));
  const bool walked = strip_payloads(bytes, size, payloads, structure);
  *read_error = file.GetErrno();
  return walked;
}

bool strip_payloads(std::string_view bytes, TensorPayloads& payloads, std::string& structure) {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) return false;
  google::protobuf::io::ArrayInputStream input(bytes.data(), static_cast<int>(bytes.size()));
  return strip_payloads(input, bytes.size(), payloads, structure);
}

}  // namespace cctx::detail
