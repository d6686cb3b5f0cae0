// What the static plan and its checker read of an analysis: every main-graph value's lifetime and
// the groups of values that share memory through in-place reuse. Both derive them from the
// public results (lifetimes and in-place decisions) so that the checker does not trust the
// planner's buffers.
#pragma once

#include <cstdint>
#include <vector>

#include "cctx/compute_context.hpp"

namespace cctx::plan_detail {

inline constexpr std::uint32_t kNone = 0xFFFFFFFFu;

struct ValueLives {
  /// Per ValueId: the node that writes it (kNone: not written by a main-graph node) and the
  /// last node it is alive at (a graph output: the last node; read by nobody: its writer).
  std::vector<std::uint32_t> first;
  std::vector<std::uint32_t> last;
  /// Per ValueId: a representative of the values whose memory it shares (an in-place output and
  /// the input it takes over, transitively). `if_fits` decisions do not join: such an output has
  /// a buffer of its own wherever it does not fit (the memory stage's accounting).
  std::vector<std::uint32_t> group;
  /// Per group representative: the group holds a graph input or an initializer, so its memory is
  /// the caller's or the session's, not the arena's.
  std::vector<bool> external;
};

ValueLives value_lives(const ComputeContext& ctx);

/// Union-find root of v in lives.group (path halving).
std::uint32_t group_of(ValueLives& lives, std::uint32_t v);

}  // namespace cctx::plan_detail
