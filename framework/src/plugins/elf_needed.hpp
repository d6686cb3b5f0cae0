// The shared libraries an ELF file names as needed (DT_NEEDED), read from its headers without
// loading it: a plugin built with a sanitizer needs that sanitizer's runtime first in the
// process, and dlopen of it into a process without one kills the process (ASan's "runtime does
// not come first"). Reading the names first lets the loader refuse it with a sentence.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace cctx {

/// DT_NEEDED entries of the 64-bit little-endian ELF file at `path`, in order; empty when the
/// file is not one or its dynamic section cannot be read (the loader then goes on as before).
std::vector<std::string> elf_needed_libraries(const std::filesystem::path& path);

}  // namespace cctx
