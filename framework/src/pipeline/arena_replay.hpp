// The runtime figures under an arena (profile key memory.arena): the memory stage's allocation
// trace replayed, at one assignment, on the arena model (arena_model.hpp).
#pragma once

#include <cstdint>

#include "cctx/expr.hpp"
#include "pipeline/analysis_state.hpp"

namespace cctx {

struct ArenaReplay {
  /// Bytes of the regions the session's initializers took when it loaded (0 when the profile
  /// keeps initializers outside the arena).
  std::int64_t session_reserved = 0;
  /// Bytes of the initializers the kernels packed into the arena (memory.arena.prepacked):
  /// their originals, held outside it, are freed once packed.
  std::int64_t packed_originals = 0;
  /// Bytes of the regions the first two runs added: what the process keeps for running.
  std::int64_t run_reserved = 0;
};

/// Session load (the initializers and preloaded constants, in value order, then the packed
/// copies of memory.arena.prepacked in node order), a first run that
/// allocates each planned buffer, each graph output and each node's scratch on its own and
/// traces the memory pattern, and a second run that asks for the pattern's block first and
/// allocates only the outputs and scratch on their own (memory_pattern: false: like the first).
ArenaReplay replay_on_arena(ExprPool& pool, const ComputeContext::State& s,
                            const Assignment& assignment);

}  // namespace cctx
