// metadata_props on NodeProto (field 9), ValueInfoProto (field 4), TensorProto (field 16) and
// ModelProto (field 14, declared in every onnx).
//
// Debian 12's onnx (1.12) predates these fields, so they are read and written as unknown fields
// of the given number with wire type 2 (length-delimited), each payload a serialized
// StringStringEntryProto (key = 1, value = 2). When the linked onnx declares the field, the
// declared field is used instead. Both layouts are read.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace google::protobuf {
class Message;
}

namespace cctx {

inline constexpr int kNodeMetadataField = 9;
inline constexpr int kValueInfoMetadataField = 4;
inline constexpr int kTensorMetadataField = 16;
inline constexpr int kModelMetadataField = 14;  // ModelProto.metadata_props

using MetadataEntries = std::vector<std::pair<std::string, std::string>>;

/// Every entry of field `number`, in order (declared field first, then unknown fields).
MetadataEntries read_metadata(const google::protobuf::Message& message, int number);
/// Value of the first entry named `key` ("" when absent; `found` tells).
std::string find_metadata(const google::protobuf::Message& message, int number,
                          const std::string& key, bool* found = nullptr);
/// Sets `key` to `value`: replaces the first same-key entry in place and removes any other,
/// or appends a new entry.
void set_metadata(google::protobuf::Message& message, int number, const std::string& key,
                  const std::string& value);

}  // namespace cctx
