// The seed document, reproduced exactly (semantics.md "Worked example (golden)", checklist items
// 17, 23, 26, 34-38, 45-48), through the real pipeline: examples/seed/seed.onnx analysed with the
// real libcctx_onnx.so loaded by the default profile.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "cctx/report.hpp"
#include "model/metadata.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

struct Cell {
  std::string text;
  bool is_int;
};

class SeedGolden : public ::testing::Test {
 protected:
  void analyse(Profile profile = test::default_profile()) {
    host_ = test::make_host(std::move(profile));
    ctx_ = std::make_unique<ComputeContext>(*host_);
    model_ = std::make_unique<Model>(Model::load(test::seed_model()));
    ctx_->compute(*model_);
  }
  Cell cell(Expr e) const {
    return Cell{ctx_->pool().print(e), ctx_->pool().as_int(e).has_value()};
  }
  std::string bucket(const Bucket& b) const { return bucket_text(ctx_->pool(), b); }
  std::vector<std::string> names(ValueIds values) const {
    std::vector<std::string> out;
    for (ValueId v : values) out.emplace_back(ctx_->graph().value(v).name);
    return out;
  }
  ValueId id(const std::string& name) const { return ctx_->graph().find(name); }

  std::unique_ptr<Host> host_;
  std::unique_ptr<ComputeContext> ctx_;
  std::unique_ptr<Model> model_;
};

// The rows of the seed's table: already, output_allocation, inputs, initializers,
// intermediates, outputs, total.
const std::vector<std::vector<std::string>> kSeedRows = {
    {"16*N+64", "16*N", "weight=16*N", "weight=64", "-", "weight=16*N", "32*N+64"},
    {"32*N+64", "32*N", "weight=16*N", "weight=64", "weight=16*N", "weight=32*N", "64*N+64"},
    {"48*N+64", "16", "weight=16*N", "weight=64", "weight=32*N", "shape=16", "48*N+80"},
    {"48*N+80", "0", "weight=16*N", "weight=64", "shape=16, weight=32*N", "-", "48*N+80"},
    {"48*N+80", "0", "weight=16*N", "weight=64", "shape=16, weight=32*N", "-", "48*N+80"},
};

void expect_seed_table(const ComputeContext& ctx) {
  ASSERT_EQ(ctx.node_count(), 5u);
  ExprPool& pool = ctx.pool();
  for (NodeId n = 0; n < 5; ++n) {
    const MemoryProfile& p = ctx.memory(n);
    const std::vector<std::string>& row = kSeedRows[n];
    SCOPED_TRACE("node " + std::to_string(n));
    EXPECT_EQ(pool.print(p.already_allocated), row[0]);
    EXPECT_EQ(pool.print(p.output_allocation), row[1]);
    EXPECT_EQ(bucket_text(pool, p.inputs), row[2]);
    EXPECT_EQ(bucket_text(pool, p.initializers), row[3]);
    EXPECT_EQ(bucket_text(pool, p.intermediates), row[4]);
    EXPECT_EQ(bucket_text(pool, p.outputs), row[5]);
    EXPECT_EQ(pool.print(p.total), row[6]);
    // Invariants (8.3): total = already + allocation; allocation = sum of outputs.
    EXPECT_EQ(pool.add(p.already_allocated, p.output_allocation), p.total);
    Expr sum = pool.integer(0);
    for (const auto& [tag, amount] : p.outputs) sum = pool.add(sum, amount);
    EXPECT_EQ(sum, p.output_allocation);
  }
}

TEST_F(SeedGolden, MemoryTableMatchesTheSeedCellForCell) {
  analyse();
  expect_seed_table(*ctx_);
}

TEST_F(SeedGolden, IntegersStayIntegersAndExpressionsAreStrings) {
  analyse();
  EXPECT_TRUE(cell(ctx_->memory(2).output_allocation).is_int);       // 16
  EXPECT_TRUE(cell(ctx_->memory(3).output_allocation).is_int);       // 0
  EXPECT_TRUE(cell(ctx_->memory(0).initializers[0].second).is_int);  // 64
  EXPECT_FALSE(cell(ctx_->memory(0).total).is_int);
  EXPECT_FALSE(cell(ctx_->memory(1).output_allocation).is_int);
}

TEST_F(SeedGolden, RenderedTableIsTheSeedsPrintout) {
  analyse();
  const std::string expected =
      "  ----  -------  -----------------  -----------------  -----------  ------------  "
      "---------------------  -----------  -------\n"
      "  node  op       already_allocated  output_allocation  inputs       initializers  "
      "intermediates          outputs      total  \n"
      "  ----  -------  -----------------  -----------------  -----------  ------------  "
      "---------------------  -----------  -------\n"
      "  0     MatMul   16*N+64            16*N               weight=16*N  weight=64     -      "
      "                weight=16*N  32*N+64\n"
      "  1     Concat   32*N+64            32*N               weight=16*N  weight=64     "
      "weight=16*N            weight=32*N  64*N+64\n"
      "  2     Shape    48*N+64            16                 weight=16*N  weight=64     "
      "weight=32*N            shape=16     48*N+80\n"
      "  3     Abs      48*N+80            0                  weight=16*N  weight=64     "
      "shape=16, weight=32*N  -            48*N+80\n"
      "  4     Reshape  48*N+80            0                  weight=16*N  weight=64     "
      "shape=16, weight=32*N  -            48*N+80\n"
      "  ----  -------  -----------------  -----------------  -----------  ------------  "
      "---------------------  -----------  -------\n";
  EXPECT_EQ(memory_table(*ctx_), expected);
}

TEST_F(SeedGolden, EvaluatedTotalsForFourValuesOfN) {
  analyse();
  const std::vector<std::pair<std::int64_t, std::vector<std::int64_t>>> expected = {
      {1, {96, 128, 128, 128, 128}},
      {8, {320, 576, 464, 464, 464}},
      {32, {1088, 2112, 1616, 1616, 1616}},
      {128, {4160, 8256, 6224, 6224, 6224}}};
  for (const auto& [n, totals] : expected) {
    for (NodeId i = 0; i < 5; ++i) {
      EXPECT_EQ(ctx_->pool().eval(ctx_->memory(i).total, {{"N", n}}), totals[i])
          << "N=" << n << " node " << i;
    }
  }
}

TEST_F(SeedGolden, ScratchIsIntegerZeroEverywhere) {
  analyse();
  for (NodeId i = 0; i < 5; ++i) {
    auto v = ctx_->pool().as_int(ctx_->node_peak_memory(i));
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(*v, 0);
  }
}

TEST_F(SeedGolden, PeakIsConcatWithDominatedTermsDropped) {
  analyse();
  EXPECT_EQ(ctx_->pool().print(ctx_->peak_total_bytes()), "64*N+64");
  ASSERT_TRUE(ctx_->peak_node().has_value());
  EXPECT_EQ(*ctx_->peak_node(), 1u);
  const std::pair<std::int64_t, std::int64_t> expected[] = {
      {1, 128}, {8, 576}, {32, 2112}, {128, 8256}};
  for (auto [n, bytes] : expected) {
    PeakEvaluation e = ctx_->evaluate_peak({{"N", n}});
    EXPECT_EQ(e.bytes, bytes);
    EXPECT_EQ(e.node, 1);  // at N=1 nodes 1-4 tie at 128: the lowest index wins
  }
}

TEST_F(SeedGolden, ShapesAndValues) {
  analyse();
  ExprPool& pool = ctx_->pool();
  auto dims = [&](const std::string& name) {
    std::vector<std::string> out;
    for (Expr d : ctx_->shape(id(name)).dims) out.push_back(pool.print(d));
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(dims("M"), (V{"N", "4"}));
  EXPECT_EQ(dims("C"), (V{"2*N", "4"}));
  EXPECT_EQ(dims("A"), (V{"2*N", "4"}));
  EXPECT_EQ(dims("Z"), (V{"2*N", "4"}));
  EXPECT_EQ(dims("S"), (V{"2"}));
  EXPECT_EQ(ctx_->shape(id("S")).dtype, 7);
  ASSERT_TRUE(ctx_->shape(id("S")).has_value);
  EXPECT_EQ(pool.print(ctx_->shape(id("S")).value[0]), "2*N");
  EXPECT_EQ(pool.print(ctx_->shape(id("S")).value[1]), "4");
  EXPECT_TRUE(ctx_->diagnostics().empty()) << diagnostics_text(*ctx_);
}

TEST_F(SeedGolden, TagsOfValuesAndNodes) {
  analyse();
  EXPECT_EQ(ctx_->value_tag(id("S")), Tag::kShape);
  for (const char* v : {"X", "W", "M", "C", "A", "Z"})
    EXPECT_EQ(ctx_->value_tag(id(v)), Tag::kWeight) << v;
  const Tag nodes[] = {Tag::kWeight, Tag::kWeight, Tag::kShape, Tag::kWeight, Tag::kWeight};
  for (NodeId n = 0; n < 5; ++n) EXPECT_EQ(ctx_->node_tag(n), nodes[n]) << n;
}

TEST_F(SeedGolden, Lifetimes) {
  analyse();
  using V = std::vector<std::string>;
  const V release[] = {{}, {"M"}, {}, {"C"}, {"A", "S"}};
  const V not_used[] = {{"W"}, {"X"}, {}, {}, {}};
  const V shape_tag[] = {{}, {}, {}, {}, {"S"}};
  for (NodeId n = 0; n < 5; ++n) {
    EXPECT_EQ(names(ctx_->release_after(n)), release[n]) << n;
    EXPECT_EQ(names(ctx_->not_used_after(n)), not_used[n]) << n;
    EXPECT_EQ(names(ctx_->release_after_shape_tag(n)), shape_tag[n]) << n;
  }
}

TEST_F(SeedGolden, InplaceDecisions) {
  analyse();
  for (NodeId n = 0; n < 3; ++n) EXPECT_TRUE(ctx_->inplace(n).empty()) << n;
  ASSERT_EQ(ctx_->inplace(3).size(), 1u);
  EXPECT_EQ(ctx_->inplace(3)[0].mode, ReuseMode::kMayReuse);
  EXPECT_EQ(ctx_->inplace(3)[0].kind, ReuseKind::kEqual);
  ASSERT_EQ(ctx_->inplace(4).size(), 1u);
  EXPECT_EQ(ctx_->inplace(4)[0].mode, ReuseMode::kAlias);
  EXPECT_EQ(ctx_->inplace(4)[0].kind, ReuseKind::kEqual);
}

TEST_F(SeedGolden, SameTableWithStructuralFallbackAndNoPolicies) {
  // The opset plugin's `inplace: off` option drops every in-place policy; the structural
  // fallback must still reach the same decisions (A dies at 4: Reshape gets may_reuse equal).
  Profile p = test::default_profile();
  p.plugins.at(0).options["inplace"] = "off";
  p.inplace.fallback = InplaceFallback::kStructural;
  analyse(p);
  expect_seed_table(*ctx_);
  ASSERT_FALSE(ctx_->inplace(4).empty());
  EXPECT_EQ(ctx_->inplace(4)[0].mode, ReuseMode::kMayReuse);
}

TEST_F(SeedGolden, SameTableWithInputOverwrite) {
  Profile p = test::default_profile();
  p.inplace.allow_input_overwrite = true;
  analyse(p);
  expect_seed_table(*ctx_);
}

TEST_F(SeedGolden, DecisionLogInOrder) {
  Profile p = test::default_profile();
  p.decision_log = true;
  analyse(p);
  std::vector<std::string> seen;
  for (const DecisionEvent& e : ctx_->events()) {
    std::string text = e.label + "(" + std::to_string(e.node_index);
    if (e.label == "inplace") {
      text += "," + std::to_string(e.output_index) + "," + std::to_string(e.input_index) + "," +
              e.kind + "," + e.mode;
    } else {
      text += "," + e.name;
    }
    seen.push_back(text + ")");
  }
  const std::vector<std::string> expected = {"release(1,M)",
                                             "release(3,C)",
                                             "release(4,A)",
                                             "release(4,S)",
                                             "inplace(3,0,0,equal,may_reuse)",
                                             "inplace(4,0,0,equal,alias)",
                                             "release_shape_tag(4,S)"};
  EXPECT_EQ(seen, expected);
  ctx_->clear_events();
  EXPECT_TRUE(ctx_->events().empty());
}

TEST_F(SeedGolden, DecisionLogOffRecordsNothing) {
  analyse();
  EXPECT_TRUE(ctx_->events().empty());
}

TEST_F(SeedGolden, ComputeTwiceGivesIdenticalResults) {
  analyse();
  const std::string first = memory_table(*ctx_);
  ctx_->compute(*model_);
  EXPECT_EQ(memory_table(*ctx_), first);
  expect_seed_table(*ctx_);
}

TEST_F(SeedGolden, WriteToModelRoundTripsThroughAFile) {
  analyse();
  ctx_->write_to_model(*model_);
  ctx_->write_to_model(*model_);  // a second write replaces, never duplicates
  test::TempDir dir;
  model_->save(dir / "annotated.onnx");
  Model back = Model::load(dir / "annotated.onnx");
  const onnx::GraphProto& g = back.proto().graph();

  ASSERT_EQ(g.output_size(), 1);
  const auto& z = g.output(0).type().tensor_type();
  EXPECT_EQ(z.elem_type(), onnx::TensorProto::FLOAT);
  ASSERT_EQ(z.shape().dim_size(), 2);
  EXPECT_EQ(z.shape().dim(0).dim_param(), "2*N");
  EXPECT_EQ(z.shape().dim(1).dim_value(), 4);

  std::vector<std::string> value_info;
  for (const auto& vi : g.value_info()) value_info.push_back(vi.name());
  EXPECT_EQ(value_info, (std::vector<std::string>{"A", "C", "M", "S"}));
  EXPECT_EQ(g.value_info(3).type().tensor_type().elem_type(), onnx::TensorProto::INT64);
  EXPECT_EQ(g.value_info(3).type().tensor_type().shape().dim(0).dim_value(), 2);
  EXPECT_EQ(g.value_info(2).type().tensor_type().shape().dim(0).dim_param(), "N");

  using Entries = MetadataEntries;
  auto node_meta = [&](int k) { return read_metadata(g.node(k), kNodeMetadataField); };
  EXPECT_EQ(node_meta(0), (Entries{{"cctx.not_used_after", "W"},
                                   {"cctx.node_tag", "weight"},
                                   {"cctx.value_tag", "weight"}}));
  EXPECT_EQ(node_meta(1), (Entries{{"cctx.release_after", "M"},
                                   {"cctx.not_used_after", "X"},
                                   {"cctx.node_tag", "weight"},
                                   {"cctx.value_tag", "weight"}}));
  EXPECT_EQ(node_meta(2), (Entries{{"cctx.node_tag", "shape"}, {"cctx.value_tag", "shape"}}));
  EXPECT_EQ(node_meta(3), (Entries{{"cctx.inplace_reuse", "0:0:equal"},
                                   {"cctx.release_after", "C"},
                                   {"cctx.node_tag", "weight"},
                                   {"cctx.value_tag", "weight"}}));
  EXPECT_EQ(node_meta(4), (Entries{{"cctx.inplace_reuse", "0:0:equal"},
                                   {"cctx.release_after", "A;S"},
                                   {"cctx.release_after_shape_tag", "S"},
                                   {"cctx.node_tag", "weight"},
                                   {"cctx.value_tag", "weight"}}));
  EXPECT_EQ(find_metadata(g.input(0), kValueInfoMetadataField, "cctx.value_tag"), "weight");
  EXPECT_EQ(find_metadata(g.initializer(0), kTensorMetadataField, "cctx.value_tag"), "weight");
  EXPECT_EQ(find_metadata(g.value_info(3), kValueInfoMetadataField, "cctx.value_tag"), "shape");
  // Inputs, initializers and the IR version are untouched.
  EXPECT_EQ(back.proto().ir_version(), 8);
  EXPECT_EQ(g.input(0).type().tensor_type().shape().dim(0).dim_param(), "N");
}

TEST_F(SeedGolden, NodeMetadataUsesFieldNineOnTheWire) {
  analyse();
  ctx_->write_to_model(*model_);
  const std::string bytes = model_->proto().graph().node(0).SerializeAsString();
  // Tag 0x4A (field 9, wire type 2), a length, then the entry's key field 0x0A and "cctx.".
  const std::string needle =
      std::string("\x0A") + static_cast<char>(std::string("cctx.not_used_after").size()) + "cctx.";
  std::size_t at = bytes.find(needle);
  ASSERT_NE(at, std::string::npos);
  ASSERT_GE(at, 2u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[at - 2]), 0x4Au);
}

}  // namespace
}  // namespace cctx
