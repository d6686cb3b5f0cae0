// Protobuf lists that hold other messages' elements by pointer, to give a library (or a view)
// a message made of parts of another without copying them: protobuf's "temporary ownership"
// idiom (UnsafeArenaAddAllocated ... UnsafeArenaExtractSubrange, repeated_ptr_field.h).
#pragma once

#include <google/protobuf/repeated_ptr_field.h>

namespace cctx::detail {

/// Appends `element` to `to` by pointer. `to` must not be on an arena, and must hand_back every
/// element before it is destroyed or cleared (it would delete them); `element` must outlive
/// that. Whatever writes through `to` writes into `element`: lend only what is not written.
template <typename T>
void borrow_one(const T& element, google::protobuf::RepeatedPtrField<T>* to) {
  to->UnsafeArenaAddAllocated(const_cast<T*>(&element));
}

/// borrow_one for each of `from`'s elements.
template <typename T>
void borrow(const google::protobuf::RepeatedPtrField<T>& from,
            google::protobuf::RepeatedPtrField<T>* to) {
  to->Reserve(to->size() + from.size());
  for (const T& e : from) borrow_one(e, to);
}

/// Empties `field` without deleting its elements: every one of them must be borrowed (or owned
/// elsewhere).
template <typename T>
void hand_back(google::protobuf::RepeatedPtrField<T>* field) {
  field->UnsafeArenaExtractSubrange(0, field->size(), nullptr);
}

}  // namespace cctx::detail
