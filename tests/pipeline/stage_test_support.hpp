// Helpers shared by the stage tests of tests/pipeline/: byte sizes and value names as text, and
// a model whose If bodies read or redefine a value computed before them.
#pragma once

#include <string>
#include <vector>

#include "model_builder.hpp"

namespace cctx::stage_test {

using test::attr;
using test::Dims;
using test::kFloat;
using test::kInt32;
using test::kInt64;
using test::ModelBuilder;

/// The value's byte size as canonical text, or "unsized".
inline std::string bytes(const test::Analysis& a, const std::string& name) {
  auto b = a.ctx->value_bytes(a.id(name));
  return b ? a.print(*b) : "unsized";
}

inline std::vector<std::string> names(const test::Analysis& a, ValueIds values) {
  std::vector<std::string> out;
  for (ValueId v : values) out.emplace_back(a.ctx->graph().value(v).name);
  return out;
}

/// X -> Relu -> A, then Y = If(c, then_branch, else_branch): bodies that read or redefine A.
inline ModelBuilder if_after_relu(const ModelBuilder& then_branch,
                                  const ModelBuilder& else_branch) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"}).input("c", test::kBool, {});
  b.node("Relu", {"X"}, {"A"});
  b.node("If", {"c"}, {"Y"},
         {attr("then_branch", then_branch.graph()), attr("else_branch", else_branch.graph())});
  b.output("Y", kFloat);
  return b;
}

}  // namespace cctx::stage_test
