#include "model/payload_splice.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "cctx/errors.hpp"
#include "model/structure_parse.hpp"
#include "model/tensor_payloads.hpp"
#include "model/wire_schema.hpp"
#include "model/wire_varint.hpp"

namespace cctx::detail {

namespace {

using google::protobuf::io::CodedInputStream;
using WireFormat = google::protobuf::internal::WireFormatLite;

/// Walks a serialized model along the paths to tensors, telling `v` about each message opened
/// (its tag's bytes, its length, how many bytes that length took, its kind) and closed, each field
/// off the paths (its bytes) and each payload marker (its value and bytes). False on malformed
/// input.
template <class Visitor>
bool walk(std::string_view bytes, Visitor& v) {
  CodedInputStream in(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                      static_cast<int>(bytes.size()));
  in.SetRecursionLimit(kWireRecursionLimit);
  struct Frame {
    wire::Msg kind;
    CodedInputStream::Limit limit;
  };
  std::vector<Frame> stack;
  wire::Msg kind = wire::Msg::kModel;
  const auto position = [&in] { return static_cast<std::size_t>(in.CurrentPosition()); };
  for (;;) {
    const std::size_t start = position();
    const std::uint32_t tag = in.ReadTagNoLastTag();
    if (tag == 0) {
      if (position() != start) return false;
      if (stack.empty()) return start == bytes.size();
      if (in.BytesUntilLimit() != 0) return false;
      v.close();
      in.PopLimit(stack.back().limit);
      kind = stack.back().kind;
      stack.pop_back();
      continue;
    }
    const std::uint32_t field = WireFormat::GetTagFieldNumber(tag);
    const WireFormat::WireType type = WireFormat::GetTagWireType(tag);
    if (kind == wire::Msg::kTensor && field == wire::kPayloadMarker &&
        type == WireFormat::WIRETYPE_VARINT) {
      std::uint64_t index = 0;
      if (!in.ReadVarint64(&index)) return false;
      v.marker(index, bytes.substr(start, position() - start));
      continue;
    }
    const wire::Msg sub = type == WireFormat::WIRETYPE_LENGTH_DELIMITED ? wire::child(kind, field)
                                                                        : wire::Msg::kOther;
    if (sub != wire::Msg::kOther) {
      const std::size_t length_at = position();
      std::uint32_t length = 0;
      if (!in.ReadVarint32(&length) || stack.size() >= kWireRecursionLimit) return false;
      v.open(bytes.substr(start, length_at - start), length, position() - length_at, sub);
      stack.push_back(Frame{kind, in.PushLimit(static_cast<int>(length))});
      kind = sub;
      continue;
    }
    if (!WireFormat::SkipField(&in, tag)) return false;
    v.copy(bytes.substr(start, position() - start));
  }
}

/// Pass 1: every path message's length once its markers are replaced, in the order opened.
class Sizer {
 public:
  explicit Sizer(const TensorPayloads& payloads) : payloads_(payloads) {}

  void open(std::string_view, std::uint32_t length, std::size_t length_bytes, wire::Msg kind) {
    open_.push_back(Open{sizes_.size(), length, length_bytes, 0});
    sizes_.push_back(0);
    if (kind == wire::Msg::kTensor) markers_.push_back(-1);
  }
  void close() {
    const Open o = open_.back();
    open_.pop_back();
    const std::uint64_t size = o.length + static_cast<std::uint64_t>(o.growth);
    sizes_[o.index] = size;
    grow(o.growth + static_cast<std::int64_t>(varint_size(size)) -
         static_cast<std::int64_t>(o.length_bytes));
  }
  void copy(std::string_view) {}
  void marker(std::uint64_t index, std::string_view field) {
    if (index >= payloads_.count()) {
      throw ModelError(payloads_.source_name() + ": a tensor marker indexes no skipped payload");
    }
    grow(static_cast<std::int64_t>(payloads_.bytes(static_cast<std::uint32_t>(index))) -
         static_cast<std::int64_t>(field.size()));
    markers_.back() = static_cast<std::int64_t>(index);
  }
  std::vector<std::uint64_t> take_sizes() { return std::move(sizes_); }
  /// Per tensor, in the order opened: its marker's value, or -1.
  std::vector<std::int64_t> take_markers() { return std::move(markers_); }

 private:
  struct Open {
    std::size_t index;
    std::uint64_t length;
    std::size_t length_bytes;
    std::int64_t growth;  ///< bytes the message gains inside
  };
  void grow(std::int64_t bytes) {
    if (!open_.empty()) {
      open_.back().growth += bytes;
    } else {
      top_growth_ += bytes;
    }
  }

 public:
  /// Bytes the whole model gains once its markers are replaced.
  std::int64_t top_growth() const { return top_growth_; }

 private:
  std::int64_t top_growth_ = 0;
  const TensorPayloads& payloads_;
  std::vector<std::uint64_t> sizes_;
  std::vector<std::int64_t> markers_;
  std::vector<Open> open_;
};

/// Pass 2: the bytes, each length replaced by pass 1's and each marker by its payload.
class Writer {
 public:
  Writer(const TensorPayloads& payloads, std::vector<std::uint64_t> sizes,
         std::vector<std::int64_t> markers, const std::function<void(std::string_view)>& sink)
      : payloads_(payloads), sizes_(std::move(sizes)), markers_(std::move(markers)), sink_(sink) {
    buffer_.reserve(kPieceBytes + kPieceBytes / 8);
  }

  void open(std::string_view tag, std::uint32_t, std::size_t, wire::Msg kind) {
    buffer_.append(tag);
    append_varint(buffer_, sizes_[next_++]);
    if (kind == wire::Msg::kTensor) {
      const std::int64_t index = markers_[next_tensor_++];
      if (index >= 0) pending_ = payloads_.fields(static_cast<std::uint32_t>(index));
    }
  }
  void close() { pending_ = {}; }
  void copy(std::string_view field) {
    // The skipped fields go back where protobuf's own serializer puts them, in field-number
    // order among the others, so that a written model has the bytes of one parsed whole.
    if (!pending_.empty()) put_back(field_number(field));
    buffer_.append(field);
    if (buffer_.size() >= kPieceBytes) flush();
  }
  void marker(std::uint64_t, std::string_view) { put_back(wire::kPayloadMarker + 1); }
  void flush() {
    if (buffer_.empty()) return;
    sink_(buffer_);
    buffer_.clear();
  }

 private:
  static std::uint32_t field_number(std::string_view field) {
    CodedInputStream in(reinterpret_cast<const std::uint8_t*>(field.data()),
                        static_cast<int>(field.size()));
    return WireFormat::GetTagFieldNumber(in.ReadTag());
  }
  /// Writes the pending payload fields numbered below `field`.
  void put_back(std::uint32_t field) {
    while (!pending_.empty() && pending_.front().field < field) {
      flush();
      payloads_.copy(pending_.front(), sink_);
      pending_ = pending_.subspan(1);
    }
  }

  static constexpr std::size_t kPieceBytes = std::size_t{1} << 20;
  const TensorPayloads& payloads_;
  std::span<const ByteRange> pending_;  ///< of the tensor being written
  std::vector<std::uint64_t> sizes_;
  std::size_t next_ = 0;
  std::vector<std::int64_t> markers_;
  std::size_t next_tensor_ = 0;
  const std::function<void(std::string_view)>& sink_;
  std::string buffer_;
};

}  // namespace

std::uint64_t spliced_size(std::string_view structure, const TensorPayloads& payloads) {
  if (structure.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw ModelError(payloads.source_name() + ": cannot serialize the model");
  }
  Sizer sizer(payloads);
  if (!walk(structure, sizer))
    throw ModelError(payloads.source_name() + ": cannot serialize the model");
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(structure.size()) +
                                    sizer.top_growth());
}

void splice_payloads(std::string_view structure, const TensorPayloads& payloads,
                     const std::function<void(std::string_view)>& sink) {
  const auto malformed = [&] {
    return ModelError(payloads.source_name() + ": cannot serialize the model");
  };
  if (structure.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw malformed();
  }
  Sizer sizer(payloads);
  if (!walk(structure, sizer)) throw malformed();
  Writer writer(payloads, sizer.take_sizes(), sizer.take_markers(), sink);
  if (!walk(structure, writer)) throw malformed();
  writer.flush();
}

}  // namespace cctx::detail
