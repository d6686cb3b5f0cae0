#include "model/structure_parse.hpp"

#include <google/protobuf/io/coded_stream.h>
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
using WireFormat = google::protobuf::internal::WireFormatLite;

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
    if (!in.ReadVarint32(&length)) return;
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
  Stripper(std::string_view file, TensorPayloads& payloads, std::string& out)
      : file_(file),
        in_(reinterpret_cast<const std::uint8_t*>(file.data()), static_cast<int>(file.size())),
        payloads_(payloads),
        out_(out) {
    in_.SetRecursionLimit(kWireRecursionLimit);
  }

  bool run() {
    out_.clear();
    // The structure is at most about the file's size (less its payloads): room for it up front,
    // instead of a chain of doubled copies that touched twice the memory (fresh pages, each a
    // fault). Capped: a large file is mostly payloads, and its room is only reserved, not touched.
    constexpr std::size_t kReserveCap = std::size_t{64} << 20;
    out_.reserve(std::min(file_.size(), kReserveCap));
    std::uint64_t end = file_.size();  // of the message being walked
    for (;;) {
      const auto start = static_cast<std::uint64_t>(in_.CurrentPosition());
      const std::uint32_t tag = in_.ReadTagNoLastTag();
      if (tag == 0) {
        // The end of the message (its limit, or the file's end), unless a zero tag was read.
        if (static_cast<std::uint64_t>(in_.CurrentPosition()) != start || start != end) {
          return false;
        }
        if (stack_.empty()) return true;
        end = close_message();
        continue;
      }
      const std::uint32_t field = WireFormat::GetTagFieldNumber(tag);
      const WireFormat::WireType type = WireFormat::GetTagWireType(tag);
      if (type == WireFormat::WIRETYPE_END_GROUP) return false;
      if (kind_ == wire::Msg::kTensor && wire::is_payload(field)) {
        if (!WireFormat::SkipField(&in_, tag)) return false;
        note_payload(start, field);
        continue;
      }
      const wire::Msg sub = type == WireFormat::WIRETYPE_LENGTH_DELIMITED
                                ? wire::child(kind_, field)
                                : wire::Msg::kOther;
      if (sub != wire::Msg::kOther) {
        std::uint32_t length = 0;
        if (!in_.ReadVarint32(&length)) return false;
        const auto content = static_cast<std::uint64_t>(in_.CurrentPosition());
        if (length > end - content || stack_.size() >= kWireRecursionLimit) return false;
        open_message(tag, sub, length, end);
        end = content + length;
        continue;
      }
      if (!WireFormat::SkipField(&in_, tag)) return false;
      const auto stop = static_cast<std::uint64_t>(in_.CurrentPosition());
      if (stop > end) return false;
      const std::string_view bytes = file_.substr(start, stop - start);
      if (kind_ == wire::Msg::kTensor && field == wire::kTensorDims) elements_.add_field(bytes);
      out_.append(bytes);
    }
  }

 private:
  struct Frame {
    wire::Msg kind;
    std::size_t length_at;  ///< where in out_ the message's padded length goes
    std::uint64_t end;      ///< the enclosing message's end in file_
    CodedInputStream::Limit limit;
  };

  void open_message(std::uint32_t tag, wire::Msg sub, std::uint32_t length, std::uint64_t end) {
    append_varint(out_, tag);
    stack_.push_back(Frame{kind_, out_.size(), end, in_.PushLimit(static_cast<int>(length))});
    out_.append(kPaddedVarintBytes, '\0');
    kind_ = sub;
    if (sub == wire::Msg::kTensor) {
      pending_.clear();
      pending_bytes_ = 0;
      marker_seen_ = false;
      elements_.reset();
    }
  }

  /// Ends the message walked: a tensor's payload goes in (small) or is noted (large), the
  /// length is filled in. Returns the enclosing message's end.
  std::uint64_t close_message() {
    if (kind_ == wire::Msg::kTensor && !pending_.empty()) {
      if (elements_.small() && pending_bytes_ <= kKeptPayloadBytes && !marker_seen_) {
        for (const ByteRange& r : pending_) out_.append(file_.substr(r.offset, r.length));
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
    const ByteRange r{start, static_cast<std::uint64_t>(in_.CurrentPosition()) - start, field};
    pending_.push_back(r);
    pending_bytes_ += r.length;
    marker_seen_ = marker_seen_ || field == wire::kPayloadMarker;
  }

  std::string_view file_;
  CodedInputStream in_;
  TensorPayloads& payloads_;
  std::string& out_;
  std::vector<Frame> stack_;
  wire::Msg kind_ = wire::Msg::kModel;
  // The tensor being walked (tensors hold no tensors).
  std::vector<ByteRange> pending_;
  std::uint64_t pending_bytes_ = 0;
  bool marker_seen_ = false;
  ElementCount elements_;
};

}  // namespace

bool strip_payloads(std::string_view file, TensorPayloads& payloads, std::string& structure) {
  if (file.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) return false;
  return Stripper(file, payloads, structure).run();
}

}  // namespace cctx::detail
