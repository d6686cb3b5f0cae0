#include "pipeline/physical_cores.hpp"

#include <sched.h>

#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <utility>

namespace cctx {

namespace {

/// The integer in a sysfs file, or -1.
long read_number(const std::string& path) {
  std::ifstream in(path);
  long v = -1;
  if (!(in >> v)) return -1;
  return v;
}

}  // namespace

std::int64_t physical_cores() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) {
    const unsigned n = std::thread::hardware_concurrency();
    return n > 0 ? n : 1;
  }
  // Hyper-threads of one core share its (package, core) pair: ONNX Runtime gives each physical
  // core one thread.
  std::set<std::pair<long, long>> cores;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &mask)) continue;
    const std::string topology = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    const long package = read_number(topology + "physical_package_id");
    const long core = read_number(topology + "core_id");
    if (package < 0 || core < 0) return CPU_COUNT(&mask);  // no topology: every CPU a core
    cores.emplace(package, core);
  }
  return cores.empty() ? 1 : static_cast<std::int64_t>(cores.size());
}

}  // namespace cctx
