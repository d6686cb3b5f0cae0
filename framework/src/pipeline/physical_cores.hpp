// How many physical cores this process may run on: ONNX Runtime's default intra-op thread
// count (a session created with intra_op_num_threads 0 runs one thread per physical core), the
// value of `memory.threads.default: auto`.
#pragma once

#include <cstdint>

namespace cctx {

/// Distinct (package, core) pairs among the CPUs of this process's affinity mask, as Linux's
/// sysfs topology lists them; the mask's CPU count where the topology is missing; at least 1.
std::int64_t physical_cores();

}  // namespace cctx
