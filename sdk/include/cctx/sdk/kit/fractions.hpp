/// @file kit/fractions.hpp
/// Exact fractions on floating shape arithmetic (SDK 1.3): the `h / 32.0` of `ceil(h / 32.0) * 32`
/// is the fraction h/32, whose Ceil is the integer `(h + 31) // 32`. A fraction's denominator is
/// always >= 1 (the sign lives in the numerator).
#pragma once

#include <cstdint>
#include <vector>

#include "cctx/sdk/dims.hpp"
#include "cctx/sdk/kit/rule_error.hpp"
#include "cctx/sdk/node_view.hpp"
#include "cctx/sdk/rules.hpp"

namespace cctx::sdk::kit {

struct Fraction {
  Dim num;
  Dim den;  ///< >= 1
};

/// Input i's value as fractions (integers have denominator 1); false when it has none.
inline bool input_fractions(const INodeView& node, std::uint32_t i, std::vector<Fraction>* out) {
  std::uint32_t count = 0;
  const std::uint32_t* nums = nullptr;
  const std::uint32_t* dens = nullptr;
  if (i >= node.input_count() || !node.has_input(i) ||
      !node.input_fraction_handles(i, &count, &nums, &dens)) {
    return false;
  }
  out->clear();
  for (std::uint32_t k = 0; k < count; ++k) {
    out->push_back({Dim(&node.expr(), nums[k]), Dim(&node.expr(), dens[k])});
  }
  return true;
}

/// Sets output `o`'s value to `values` (all integers: the plain value).
inline void set_fractions(IShapeSink& out, std::uint32_t o, const std::vector<Fraction>& values) {
  std::vector<std::uint32_t> nums, dens;
  for (const Fraction& f : values) {
    nums.push_back(f.num.handle());
    dens.push_back(f.den.handle());
  }
  check(out.set_output_fraction_handles(o, static_cast<std::uint32_t>(values.size()), nums.data(),
                                        dens.data()));
}

/// floor(f), ceil(f) and f truncated toward zero, as integer expressions; `trunc_of` is false
/// when the numerator's sign is not known.
inline Dim floor_of(const Fraction& f) { return floor_div(f.num, f.den); }
/// (num + den - 1) // den: the ceiling for integers and den >= 1, in the form CNN sizes take.
inline Dim ceil_of(const Fraction& f) { return floor_div(f.num + f.den - 1, f.den); }
inline bool trunc_of(const Fraction& f, Dim* out) {
  if (f.num.provably_ge(f.num.lift(0))) {
    *out = floor_of(f);
  } else if (f.num.lift(0).provably_ge(f.num)) {
    *out = ceil_of(f);
  } else {
    return false;
  }
  return true;
}

}  // namespace cctx::sdk::kit
