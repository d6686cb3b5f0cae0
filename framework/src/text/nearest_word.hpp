// "Did you mean": the word of a list closest to a likely typo. Used by the profile checks, the
// plugin loader and the rules' diagnostics (an attribute or operator name a plugin misspelt).
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace cctx::detail {

/// Optimal-string-alignment distance (insertions, deletions, substitutions, transpositions).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The choice closest to `word` when it is a plausible typo (distance <= 2, and less than the
/// word's own length), else empty.
std::string_view closest(std::string_view word, std::span<const std::string_view> choices);

}  // namespace cctx::detail
