// Byte sizes of values (semantics.md, "Element sizes"): sub-byte, wide and unsized types.
#include <gtest/gtest.h>

#include "pipeline/analysis_state.hpp"
#include "stage_test_support.hpp"

namespace cctx {
namespace {

using namespace stage_test;

TEST(Bytes, SubByteAndWideTypes) {
  ModelBuilder b;
  b.input("i4", 22, {5}).input("i4n", 22, {"N"}).input("u2", 25, {5}).input("f8", 24, {3});
  b.input("c128", 15, {2}).input("scalar", kFloat, {}).input("empty", kFloat, {0, 4});
  b.input("text", test::kString, {3});
  for (const char* v : {"i4", "i4n", "u2", "f8", "c128", "scalar", "empty", "text"}) {
    b.node("Identity", {v}, {std::string(v) + "_out"});
  }
  auto a = test::analyze(b);
  EXPECT_EQ(bytes(a, "i4"), "3");
  EXPECT_EQ(bytes(a, "i4n"), "(N+1)//2");
  EXPECT_EQ(bytes(a, "u2"), "2");
  EXPECT_EQ(bytes(a, "f8"), "3");
  EXPECT_EQ(bytes(a, "c128"), "32");
  EXPECT_EQ(bytes(a, "scalar"), "4");
  EXPECT_EQ(bytes(a, "empty"), "0");
  EXPECT_EQ(bytes(a, "text"), "unsized");
  // A zero-size buffer is left out of the buckets.
  const MemoryProfile& p = a.ctx->memory(0);
  for (const auto& [tag, amount] : p.inputs) EXPECT_NE(a.print(amount), "0");
  EXPECT_NE(std::find(a.ctx->unsized_values().begin(), a.ctx->unsized_values().end(), a.id("text")),
            a.ctx->unsized_values().end());
}

/// An analysis with a pool and an empty registry: enough for ByteSizes.
Analysis bare_analysis() {
  Analysis a;
  a.pool = std::make_unique<ExprPool>();
  a.registry = std::make_shared<RuleRegistry>();
  return a;
}

ValueShape tensor(std::int32_t dtype, std::vector<Expr> dims) {
  ValueShape v;
  v.kind = ValueKind::kTensor;
  v.dtype = dtype;
  v.known_rank = true;
  v.dims = std::move(dims);
  return v;
}

// ByteSizes finds values of one shape and element size by their dims' handles: it must give
// exactly what computing each value's bytes gives, through its table's growth (thousands of
// distinct shapes), for repeated shapes, for other element sizes of the same dims, for a scalar
// and for an unsized type. (Unknown ranks go to the direct computation, which names the value:
// tests/pipeline/shape_stage_test.cpp.)
TEST(ByteSizes, AgreesWithTheDirectComputationThroughGrowth) {
  Analysis s = bare_analysis();
  ShapeResult shapes;
  ExprPool& pool = *s.pool;
  const Expr n = pool.declare_symbol("N", Interval{1, kPosInf});
  for (std::int64_t k = 0; k < 3000; ++k) {
    for (const std::int32_t dtype : {1, 10, 22, 7}) {  // float, float16, int4, int64
      shapes.values.push_back(tensor(dtype, {n, pool.integer(k % 1500), pool.integer(3)}));
    }
  }
  shapes.values.push_back(tensor(8, {pool.integer(4)}));  // string: unsized
  shapes.values.push_back(tensor(1, {}));                 // a scalar
  ByteSizes byte_size(s, shapes);
  for (ValueId v = 0; v + 2 < shapes.values.size(); ++v) {
    const std::optional<Expr> direct = compute_value_bytes(s, shapes, v);
    const std::optional<Expr> shared = byte_size(v);
    ASSERT_TRUE(direct && shared) << v;
    ASSERT_EQ(*shared, *direct) << v << ": " << pool.print(*shared) << " vs "
                                << pool.print(*direct);
  }
  EXPECT_EQ(byte_size(static_cast<ValueId>(shapes.values.size() - 2)), std::nullopt);
  EXPECT_EQ(pool.print(*byte_size(static_cast<ValueId>(shapes.values.size() - 1))), "4");
}

}  // namespace
}  // namespace cctx
