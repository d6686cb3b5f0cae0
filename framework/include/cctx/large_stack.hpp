// Runs work on a thread with a large stack. The analysis walks nested subgraphs recursively (a
// body's nodes are inferred from inside its If/Loop node's rule), so the stack it needs grows with
// the nesting depth the profile allows (limits.subgraph_depth, at most 2000), and with the frame
// sizes of the build (a sanitizer build's are several times larger). The main thread's stack is
// whatever the user's `ulimit -s` says; a thread's is ours to choose.
#pragma once

#include <cstddef>
#include <functional>

namespace cctx {

/// Stack of the thread `run_with_large_stack` starts: room for 2000 nested bodies in a sanitizer
/// build. Only the pages touched are backed by memory.
inline constexpr std::size_t kAnalysisStackBytes = std::size_t{512} << 20;

/// Runs `work` on a new thread with a stack of `bytes` (and an alternate signal stack, so the
/// crash reporter still reports an overflow), waits for it, and rethrows what it threw. When the
/// thread cannot be created, runs `work` on the calling thread.
void run_with_large_stack(std::size_t bytes, const std::function<void()>& work);

}  // namespace cctx
