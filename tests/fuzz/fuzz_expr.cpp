// libFuzzer target: text -> the expression parser -> canonical print -> parse again. A syntax or
// overflow error is an expected outcome; the canonical form must parse back to the same
// interned expression (the printer and the parser agree), anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
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
  const std::string printed = pool.print(e);
  try {
    if (pool.parse(printed) != e) std::abort();  // the canonical form reads back as itself
  } catch (const cctx::ExprError&) {
    std::abort();
  }
  return 0;
}
