// libFuzzer target: text -> the expression parser -> canonical print. A syntax or overflow error
// is an expected outcome; a crash, a sanitizer report or any other exception is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "cctx/expr.hpp"
#include "cctx/limits.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Longer texts are refused before parsing (limits.expression_chars).
  if (static_cast<std::int64_t>(size) > cctx::Limits{}.expression_chars) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  cctx::ExprPool pool;
  cctx::Expr e;
  try {
    e = pool.parse(text);
  } catch (const cctx::ExprError&) {
    return 0;
  }
  // Printing must not fail either. (A round-trip check, parse(print(e)) == e, does not hold yet:
  // an opaque symbol prints its raw text, so the quoted name `\v` prints as a bare vertical tab;
  // see tests/fuzz/README.md.)
  (void)pool.print(e);
  return 0;
}
