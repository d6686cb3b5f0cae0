// A model file's bytes without the tensor payloads no analysis reads.
//
// cctx needs every tensor's dims and type, and the values of small tensors (shape arithmetic reads
// at most 64 elements), never the weights. This walks the file's wire format along the paths that
// lead to TensorProtos (wire_schema.hpp), copies everything else as bytes, and leaves out each
// large tensor's data fields, noting where they are; protobuf then parses the much smaller result.
// The walk never touches a skipped payload's bytes, so a file mapped into memory is read only
// where its structure is.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cctx::detail {

class TensorPayloads;

/// Tensors with at most this many elements (by their dims) keep their data...
inline constexpr std::int64_t kKeptTensorElements = 64;
/// ...when it takes at most this many bytes on the wire (64 varints of 10 bytes and their tags).
inline constexpr std::size_t kKeptPayloadBytes = 1024;

/// Deeply nested subgraphs (If inside Loop inside ...) need more than protobuf's default
/// recursion limit of 100 message levels; each nesting level costs three (graph, node, attribute).
inline constexpr int kWireRecursionLimit = 12000;

/// `file`'s bytes with the payload of every other tensor replaced by a marker (wire_schema.hpp)
/// whose value indexes `payloads`, where the fields' byte ranges in `file` are added. Lengths of
/// the messages around a tensor are written as 5-byte varints, valid wire format that protobuf
/// parses like any other. False when `file` is not well-formed protobuf wire format.
bool strip_payloads(std::string_view file, TensorPayloads& payloads, std::string& structure);

}  // namespace cctx::detail
