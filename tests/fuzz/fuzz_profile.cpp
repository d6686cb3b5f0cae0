// libFuzzer target: text -> the YAML profile loader. A ConfigError (file:line:column: problem) is
// the expected outcome for bad text; a crash, a hang or any other exception is a bug. Relative
// `extends` paths point into a folder that does not exist, so no real file is read.
#include <cstddef>
#include <cstdint>
#include <string>

#include "cctx/errors.hpp"
#include "cctx/profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)cctx::parse_profile(text, "fuzz.yaml", "/nonexistent/cctx-fuzz");
  } catch (const cctx::ConfigError&) {
  }
  return 0;
}
