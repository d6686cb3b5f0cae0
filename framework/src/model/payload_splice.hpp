// Putting skipped tensor payloads back: the inverse of structure_parse.hpp, for writing a model.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

namespace cctx::detail {

class TensorPayloads;

/// Hands `structure` (a model serialized by protobuf, holding payload markers) to `sink` in
/// pieces, each marker replaced by the payload fields it stands for, copied from `payloads`'
/// source; the lengths of the messages around them are recomputed first. The weights pass through
/// a 1 MiB buffer, never all in memory. Throws ModelError for a marker that indexes nothing or a
/// source that can no longer be read.
void splice_payloads(std::string_view structure, const TensorPayloads& payloads,
                     const std::function<void(std::string_view)>& sink);

/// The bytes splice_payloads hands out for the same arguments, computed from the structure and
/// the payloads' sizes alone (nothing is read from the source).
std::uint64_t spliced_size(std::string_view structure, const TensorPayloads& payloads);

}  // namespace cctx::detail
