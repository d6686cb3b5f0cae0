// Where jemalloc's memory comes from, for the cctx executables (with jemalloc_options.cpp): the
// kernel, in mappings that are whole, aligned multiples of 2 MiB and marked for transparent huge
// pages.
//
// A 2 MiB range of memory is backed by one huge page only when it lies wholly inside one mapping
// marked for them. jemalloc maps its memory at page alignment, in sizes that grow by size class
// (2, 2.5, 3, 3.5, 4, 5 MiB, ...), so the ranges across a mapping's ends, and all of a mapping
// that does not start on a 2 MiB boundary, were backed by 4 KiB pages; which ones moved with the
// order of allocations (a buffer more or less early in a run). On this project's VM each fresh
// 4 KiB page costs about 11 us; on a 10k-node GPT export, 1,300 of the 2,000 page faults of one
// run of `cctx analyze` came from such ranges. The extent hooks below make every mapping a
// multiple of 2 MiB at a 2 MiB boundary: the memory a run touches is backed by huge pages, at
// most one partly used at the end of each mapping.
#include <jemalloc/jemalloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <string>

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

void* map_extent(extent_hooks_t*, void* new_addr, std::size_t size, std::size_t alignment,
                 bool* zero, bool* commit, unsigned) {
  // Growing an extent in place (new_addr) is declined: jemalloc then moves it.
  if (new_addr != nullptr) return nullptr;
  const std::size_t length = (size + kHugePage - 1) & ~(kHugePage - 1);
  const std::size_t align = alignment > kHugePage ? alignment : kHugePage;
  const std::size_t mapped = length + align;
  void* at = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (at == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(at);
  const std::uintptr_t aligned = (start + align - 1) & ~(std::uintptr_t{align} - 1);
  if (aligned > start) ::munmap(at, aligned - start);
  const std::uintptr_t end = start + mapped;
  if (end > aligned + length)
    ::munmap(reinterpret_cast<void*>(aligned + length), end - aligned - length);
  ::madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);
  *zero = true;
  *commit = true;
  return reinterpret_cast<void*>(aligned);
}

// Splitting and merging extents of these mappings needs nothing from the kernel (false: done).
bool split_extent(extent_hooks_t*, void*, std::size_t, std::size_t, std::size_t, bool, unsigned) {
  return false;
}
bool merge_extent(extent_hooks_t*, void*, std::size_t, void*, std::size_t, bool, unsigned) {
  return false;
}

// The hooks left out (null) are declined: memory is never unmapped, decommitted or purged, which
// is what the options ask for anyway (retained memory, dirty_decay_ms:-1).
extent_hooks_t hooks{&map_extent, nullptr, nullptr,       nullptr,      nullptr,
                     nullptr,     nullptr, &split_extent, &merge_extent};

// Before main, after the libraries' initialisers (which have allocated from jemalloc's default
// mappings): every arena made so far, which under narenas:1 is the only one.
__attribute__((constructor(101))) void install_extent_hooks() {
  unsigned arenas = 0;
  std::size_t size = sizeof(arenas);
  if (::mallctl("arenas.narenas", &arenas, &size, nullptr, 0) != 0) return;
  extent_hooks_t* mine = &hooks;
  for (unsigned i = 0; i < arenas; ++i) {
    bool initialized = false;
    size = sizeof(initialized);
    const std::string arena = "arena." + std::to_string(i);
    if (::mallctl((arena + ".initialized").c_str(), &initialized, &size, nullptr, 0) != 0 ||
        !initialized) {
      continue;
    }
    ::mallctl((arena + ".extent_hooks").c_str(), nullptr, nullptr, &mine, sizeof(mine));
  }
}

}  // namespace
