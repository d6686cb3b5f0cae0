// A model file's bytes without the tensor payloads no analysis reads.
//
// cctx needs every tensor's dims and type, and the values of small tensors (shape arithmetic reads
// at most 64 elements), never the weights. This walks the file's wire format along the paths that
// lead to TensorProtos (wire_schema.hpp), copies everything else (runs of fields it passes by
// as they are, in one piece; the headers of fields it handles one at a time re-encoded, which
// protobuf reads the same), and leaves out each large tensor's data fields, noting where they
// are; protobuf then parses the much smaller result. The walk reads the file as a stream
// (Model::load: 64 KiB at a time), and a payload larger than what is buffered is skipped with a
// seek: it is never read. Reading through a small buffer replaced a mapping of the file: on this
// project's VM each 4 KiB page of a mapping costs about 2 us at its first touch, and the
// structure of a model of small tensors is spread over most of its pages (the walk of a 10k-node
// GPT export: 3.6 -> about 1.4 ms).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace google::protobuf::io {
class ZeroCopyInputStream;
}

namespace cctx::detail {

class TensorPayloads;

/// Tensors with at most this many elements (by their dims) keep their data...
inline constexpr std::int64_t kKeptTensorElements = 64;
/// ...when it takes at most this many bytes on the wire (64 varints of 10 bytes and their tags).
inline constexpr std::size_t kKeptPayloadBytes = 1024;

/// Deeply nested subgraphs (If inside Loop inside ...) need more than protobuf's default
/// recursion limit of 100 message levels; each nesting level costs three (graph, node, attribute).
inline constexpr int kWireRecursionLimit = 12000;

/// The `size` bytes of `file` with the payload of every other tensor replaced by a marker
/// (wire_schema.hpp) whose value indexes `payloads`, where the fields' byte ranges in `file` are
/// added. Lengths of the messages around a tensor are written as 5-byte varints, valid wire
/// format that protobuf parses like any other. False when `file` is not well-formed protobuf
/// wire format (or cannot be read).
bool strip_payloads(google::protobuf::io::ZeroCopyInputStream& file, std::uint64_t size,
                    TensorPayloads& payloads, std::string& structure);
/// The same over bytes in memory.
bool strip_payloads(std::string_view file, TensorPayloads& payloads, std::string& structure);
/// The same over the first `size` bytes of the regular file `fd`, read from its current offset
/// through a buffer of kReadBlockBytes; `read_error` gets errno when reading failed (else 0).
bool strip_file_payloads(int fd, std::uint64_t size, TensorPayloads& payloads,
                         std::string& structure, int* read_error);

/// The walk reads a file through a buffer of this size: a payload longer than what the buffer
/// holds is skipped with a seek, unread.
inline constexpr int kReadBlockBytes = 1 << 16;

}  // namespace cctx::detail
