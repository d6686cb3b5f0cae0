#include "model/metadata.hpp"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/unknown_field_set.h>
#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <utility>

namespace cctx {

namespace gp = google::protobuf;

namespace {

// The declared field, when this onnx build knows it and it has the expected message type. The
// tag stage asks for every initializer and declared value of a graph, so the last answer is kept
// per thread (messages are this build's generated onnx types, whose descriptors live as long as
// the program).
const gp::FieldDescriptor* declared_field(const gp::Message& message, int number) {
  thread_local const gp::Descriptor* last_type = nullptr;
  thread_local int last_number = 0;
  thread_local const gp::FieldDescriptor* last_field = nullptr;
  const gp::Descriptor* type = message.GetDescriptor();
  if (type == last_type && number == last_number) return last_field;
  const gp::FieldDescriptor* f = type->FindFieldByNumber(number);
  // The entry type is compared by descriptor: the messages are this build's onnx types.
  if (f == nullptr || !f->is_repeated() || f->type() != gp::FieldDescriptor::TYPE_MESSAGE ||
      f->message_type() != onnx::StringStringEntryProto::descriptor()) {
    f = nullptr;
  }
  last_type = type;
  last_number = number;
  last_field = f;
  return f;
}

bool decode(const std::string& payload, std::pair<std::string, std::string>* out) {
  onnx::StringStringEntryProto entry;
  if (!entry.ParseFromString(payload)) return false;
  *out = {entry.key(), entry.value()};
  return true;
}

std::string encode(const std::string& key, const std::string& value) {
  onnx::StringStringEntryProto entry;
  entry.set_key(key);
  entry.set_value(value);
  return entry.SerializeAsString();
}

}  // namespace

// Calls fn(key, value) for each entry of field `number`, declared entries first, then those kept
// as unknown fields (models written with a newer onnx), until fn returns true.
template <class Fn>
void visit_metadata(const gp::Message& message, int number, Fn&& fn) {
  const gp::Reflection* reflection = message.GetReflection();
  if (const gp::FieldDescriptor* f = declared_field(message, number)) {
    for (int k = 0; k < reflection->FieldSize(message, f); ++k) {
      const auto& entry = static_cast<const onnx::StringStringEntryProto&>(
          reflection->GetRepeatedMessage(message, f, k));
      if (fn(entry.key(), entry.value())) return;
    }
  }
  const gp::UnknownFieldSet& unknown = reflection->GetUnknownFields(message);
  for (int k = 0; k < unknown.field_count(); ++k) {
    const gp::UnknownField& field = unknown.field(k);
    if (field.number() != number || field.type() != gp::UnknownField::TYPE_LENGTH_DELIMITED)
      continue;
    std::pair<std::string, std::string> entry;
    if (decode(field.length_delimited(), &entry) && fn(entry.first, entry.second)) return;
  }
}

MetadataEntries read_metadata(const gp::Message& message, int number) {
  MetadataEntries entries;
  visit_metadata(message, number, [&](const std::string& key, const std::string& value) {
    entries.emplace_back(key, value);
    return false;
  });
  return entries;
}

std::string find_metadata(const gp::Message& message, int number, const std::string& key,
                          bool* found) {
  // Stops at the first match without copying every entry: the tag stage asks for each
  // initializer and declared value of a graph, nearly all of which carry no metadata.
  std::optional<std::string> match;
  visit_metadata(message, number, [&](const std::string& k, const std::string& value) {
    if (k == key) match = value;
    return match.has_value();
  });
  if (found) *found = match.has_value();
  return match.value_or(std::string());
}

void set_metadata(gp::Message& message, int number, const std::string& key,
                  const std::string& value) {
  const gp::Reflection* reflection = message.GetReflection();
  bool placed = false;
  if (const gp::FieldDescriptor* f = declared_field(message, number)) {
    for (int k = 0; k < reflection->FieldSize(message, f);) {
      auto* entry = static_cast<onnx::StringStringEntryProto*>(
          reflection->MutableRepeatedMessage(&message, f, k));
      if (entry->key() != key) {
        ++k;
        continue;
      }
      if (!placed) {
        entry->set_value(value);
        placed = true;
        ++k;
      } else {
        // Remove a duplicate: swap it to the end and drop it, keeping the others' order.
        for (int j = k; j + 1 < reflection->FieldSize(message, f); ++j)
          reflection->SwapElements(&message, f, j, j + 1);
        reflection->RemoveLast(&message, f);
      }
    }
    if (!placed) {
      auto* entry = static_cast<onnx::StringStringEntryProto*>(reflection->AddMessage(&message, f));
      entry->set_key(key);
      entry->set_value(value);
      placed = true;
    }
  }
  gp::UnknownFieldSet* unknown = reflection->MutableUnknownFields(&message);
  for (int k = 0; k < unknown->field_count();) {
    gp::UnknownField* field = unknown->mutable_field(k);
    std::pair<std::string, std::string> entry;
    if (field->number() != number || field->type() != gp::UnknownField::TYPE_LENGTH_DELIMITED ||
        !decode(field->length_delimited(), &entry) || entry.first != key) {
      ++k;
      continue;
    }
    if (!placed) {
      *field->mutable_length_delimited() = encode(key, value);
      placed = true;
      ++k;
    } else {
      unknown->DeleteSubrange(k, 1);
    }
  }
  if (!placed) unknown->AddLengthDelimited(number, encode(key, value));
}

}  // namespace cctx
