// The inverse question (`cctx fit`): the largest value of one symbol whose reserve figure
// (PeakEvaluation::reserve_bytes) stays within a budget, the other symbols fixed, and the frontier
// of two symbols. Built on Session::evaluate, so every value is checked and evaluated exactly as
// `cctx analyze --eval` would (README "The largest batch that fits").
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cctx/session.hpp"

namespace cctx {

struct FitRequest {
  std::string vary;            ///< the symbol to maximise
  std::int64_t budget = 0;     ///< bytes the reserve may take
  Assignment fixed;            ///< values of the other symbols
  std::string source = "fit";  ///< how refusals name the request ("cctx fit", "fit()")
  /// Kept free under the budget: a value fits when reserve + headroom_bytes + headroom_percent %
  /// of the reserve <= budget (the profile's memory.headroom_*, or --headroom).
  std::int64_t headroom_bytes = 0;
  std::int64_t headroom_percent = 0;
};

/// One evaluated value of the varied symbol.
struct FitPoint {
  std::int64_t value = 0;
  Assignment assignment;      ///< as evaluated (relations applied, data-dependent sizes at bounds)
  PeakEvaluation figures;     ///< valid when refused is empty
  std::string peak_node;      ///< the node where the run peaks: "node 12 'MatMul_3' (MatMul)"
  std::string refused;        ///< why the model cannot run there (a requirement, an overflow)
  bool fits = false;          ///< evaluated and reserve_bytes + the headroom <= budget
  std::int64_t headroom = 0;  ///< the headroom at this value, in bytes
  std::exception_ptr error;   ///< the usage error behind `refused`, when it was one
};

struct FitResult {
  std::string vary;
  std::int64_t budget = 0;
  std::int64_t headroom_bytes = 0;
  std::int64_t headroom_percent = 0;
  Assignment fixed;
  Interval domain;               ///< the values searched: the symbol's bounds
  std::optional<FitPoint> best;  ///< the largest value found within the budget
  std::optional<FitPoint> next;  ///< best + 1 (over the budget, refused), or the first value
                                 ///< tried when none fits
  /// What stops the answer other than the budget: the symbol's bound (with the requirement or
  /// profile that set it), a requirement the model fails above it; empty when the budget does.
  std::string limited_by;
  bool unbounded = false;  ///< the reserve never reaches the budget within 2^62
  /// True when the reserve was proved non-decreasing in the symbol (ComputeContext::
  /// reserve_trend), so every smaller value fits too; otherwise the search still bisects and
  /// `method` says what was not proved.
  bool proved_monotone = false;
  std::string method;
  int evaluations = 0;
};

/// Finds the largest value of request.vary in its bounds whose reserve fits the budget: doubling
/// from the lower bound, then bisection. Never returns a value whose own evaluation is over the
/// budget or refused. Throws Error (usage) when the symbol is unknown or the fixed values are
/// refused (a missing symbol, a value outside its bounds).
FitResult fit(const Session& session, const FitRequest& request);

/// "2GiB", "512 MiB", "1.5G", "3000000000": bytes (binary units for KiB..TiB and bare K/M/G/T,
/// decimal for kB/MB/GB/TB), as `cctx fit --budget` and Python's `cctx.fit` read a budget;
/// throws Error (usage) naming `option` on bad text.
std::int64_t parse_byte_size(const std::string& text, std::string_view option);

/// The request's figures at each of `values` of the varied symbol (a figure of the reserve
/// against it: `cctx fit --plot`), evaluated as fit() evaluates them.
std::vector<FitPoint> sweep(const Session& session, const FitRequest& request,
                            const std::vector<std::int64_t>& values);

}  // namespace cctx
