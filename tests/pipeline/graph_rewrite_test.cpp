// Graph rewrites (docs/design/rewrites.md): the rule text, the matcher on real models, and the
// onnxruntime plugin's rewrites through the shipped onnxruntime-cpu-optimized-no-arena profile.
#include "rewrite/graph_rewrite.hpp"

#include <gtest/gtest.h>

#include "cctx/errors.hpp"
#include "cctx/host.hpp"
#include "cctx/profile.hpp"
#include "rewrite/rewrite_rule.hpp"
#include "stage_test_support.hpp"

namespace cctx {
namespace {

using namespace stage_test;

std::vector<std::shared_ptr<const RewriteRule>> rules(
    std::initializer_list<std::array<const char*, 3>> texts) {
  std::vector<std::shared_ptr<const RewriteRule>> out;
  for (const auto& [name, pattern, replacement] : texts) {
    out.push_back(
        std::make_shared<const RewriteRule>(parse_rewrite_rule(name, pattern, replacement)));
  }
  return out;
}

std::vector<std::string> ops(const Model& m) {
  std::vector<std::string> out;
  for (const onnx::NodeProto& n : m.proto().graph().node()) {
    out.push_back((n.domain().empty() ? "" : n.domain() + ":") + n.op_type());
  }
  return out;
}

std::string error_of(const char* pattern, const char* replacement) {
  try {
    parse_rewrite_rule("R", pattern, replacement);
  } catch (const PluginError& e) {
    return e.what();
  }
  return "";
}

TEST(RewriteRule, RefusesTextItCannotMatchWithOneLineNamingTheRule) {
  EXPECT_EQ(error_of("y = Relu(x", "y = x"), "rewrite 'R': pattern at character 11: expected ','");
  EXPECT_EQ(error_of("a = Relu(x); y = Relu(x)", "y = x"),
            "rewrite 'R': a pattern node is not an input, direct or not, of the pattern's last "
            "node");
  EXPECT_EQ(error_of("y = Relu(x)", "y = Sigmoid(z)"),
            "rewrite 'R': the replacement reads 'z', which the pattern does not bind");
  EXPECT_EQ(error_of("y = Relu(x{d0%8})", "y = x"),
            "rewrite 'R': pattern at character 12: '{...}' checks a constant: write 'const "
            "x{...}'");
  EXPECT_EQ(error_of("y = Relu(x)", "y = Sigmoid(x) [k=@q]"),
            "rewrite 'R': the replacement's attribute refers to 'q', which no pattern node makes");
}

// X -> Conv -> BatchNormalization -> Relu -> Y: folded and fused into one FusedConv, whose
// output keeps the Relu's name; the BatchNormalization's four constants have no reader left.
ModelBuilder conv_bn_relu(bool bn_output_is_graph_output = false) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", std::int64_t{16}, "H", "W"});
  b.initializer(test::tensor_zeros("w", kFloat, {16, 16, 3, 3}));
  for (const char* p : {"s", "t", "m", "v"}) b.initializer(test::tensor_zeros(p, kFloat, {16}));
  b.node("Conv", {"X", "w"}, {"c"}, {test::attr("pads", std::vector<std::int64_t>{1, 1, 1, 1})}, "",
         "conv");
  b.node("BatchNormalization", {"c", "s", "t", "m", "v"}, {"bn"}, {}, "", "bn");
  b.node("Relu", {"bn"}, {"Y"}, {}, "", "relu");
  b.output("Y", kFloat);
  if (bn_output_is_graph_output) b.output("bn", kFloat);
  return b;
}

TEST(GraphRewrite, FoldsAndFusesAChainAndRecordsWhereTheNodeCameFrom) {
  const Model model = conv_bn_relu().build();
  const auto rewritten = rewrite_model(
      model, rules({{"ConvBN",
                     "c = Conv(x, const w, ?const b); y = BatchNormalization(c, const "
                     "s, const t, const m, const v)",
                     "y = Conv(x, w, ?b) [c]"},
                    {"ConvAct", "c = Conv(x, w, ?b); y = Relu|Clip(c, ?const lo, ?const hi)",
                     "y = com.microsoft:FusedConv(x, w, ?b) [c, activation=@y]"}}));
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()), (std::vector<std::string>{"com.microsoft:FusedConv"}));
  const onnx::NodeProto& fused = rewritten->model().proto().graph().node(0);
  EXPECT_EQ(fused.name(), "conv");
  EXPECT_EQ(std::vector<std::string>(fused.input().begin(), fused.input().end()),
            (std::vector<std::string>{"X", "w"}));
  EXPECT_EQ(fused.output(0), "Y");
  ASSERT_EQ(fused.attribute_size(), 2);  // the Conv's pads, then the activation
  EXPECT_EQ(fused.attribute(1).s(), "Relu");
  const RewriteOrigin* origin = rewritten->origin(&fused);
  ASSERT_NE(origin, nullptr);
  EXPECT_EQ(origin->rules, (std::vector<std::string>{"ConvBN", "ConvAct"}));
  EXPECT_EQ(origin->nodes, (std::vector<std::string>{"conv", "bn", "relu"}));
  const RewriteSummary& summary = rewritten->summary();
  EXPECT_EQ(summary.nodes_before, 3u);
  EXPECT_EQ(summary.nodes_after, 1u);
  EXPECT_EQ(summary.initializers_dropped, 4u);
  EXPECT_EQ(rewritten->model().proto().graph().initializer_size(), 1);
  // The original is untouched.
  EXPECT_EQ(ops(model), (std::vector<std::string>{"Conv", "BatchNormalization", "Relu"}));
}

TEST(GraphRewrite, LeavesAValueSomebodyElseNeeds) {
  // The BatchNormalization's output is a graph output: it must exist, so the Relu is not fused.
  const Model model = conv_bn_relu(true).build();
  const auto rewritten =
      rewrite_model(model, rules({{"ConvBN", "c = Conv(x, const w); y = BatchNormalization(c, *p)",
                                   "y = Conv(x, w) [c]"},
                                  {"ConvAct", "c = Conv(x, w); y = Relu(c)",
                                   "y = com.microsoft:FusedConv(x, w) [c, activation=@y]"}}));
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()), (std::vector<std::string>{"Conv", "Relu"}));
  EXPECT_EQ(rewrite_model(model, rules({{"ConvAct", "c = Conv(x, w); y = Relu(c)",
                                         "y = com.microsoft:FusedConv(x, w)"}})),
            nullptr);
}

TEST(GraphRewrite, EliminationRenamesTheReadersAndKeepsGraphOutputs) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.node("Identity", {"X"}, {"a"});
  b.node("Relu", {"a"}, {"r"});
  b.node("Add", {"r", "a"}, {"s"});
  b.node("Identity", {"s"}, {"Y"});  // a graph output: stays
  b.output("Y", kFloat);
  const Model model = b.build();
  const auto rewritten = rewrite_model(model, rules({{"Id", "y = Identity(x)", "y = x"}}));
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()), (std::vector<std::string>{"Relu", "Add", "Identity"}));
  const onnx::NodeProto& add = rewritten->model().proto().graph().node(1);
  EXPECT_EQ(add.input(0), "r");
  EXPECT_EQ(add.input(1), "X");
}

TEST(GraphRewrite, MatchesEitherOrderOfACommutativeOperator) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", std::int64_t{8}, std::int64_t{4}, std::int64_t{4}});
  b.initializer(test::tensor_zeros("w", kFloat, {8, 8, 1, 1}));
  b.node("Conv", {"X", "w"}, {"c"});
  b.node("Add", {"X", "c"}, {"Y"});  // the Conv's output second
  b.output("Y", kFloat);
  const auto rewritten =
      rewrite_model(b.build(), rules({{"ConvAdd", "c = Conv(x, const w{d0%8}, ?b); y = Add(c, s)",
                                       "y = com.microsoft:FusedConv(x, w, ?b, s) [c]"}}));
  ASSERT_NE(rewritten, nullptr);
  const onnx::NodeProto& fused = rewritten->model().proto().graph().node(0);
  EXPECT_EQ(std::vector<std::string>(fused.input().begin(), fused.input().end()),
            (std::vector<std::string>{"X", "w", "", "X"}));
  // 8 output channels are no multiple of 16: not matched.
  EXPECT_EQ(
      rewrite_model(b.build(), rules({{"ConvAdd", "c = Conv(x, const w{d0%16}, ?b); y = Add(c, s)",
                                       "y = com.microsoft:FusedConv(x, w, ?b, s) [c]"}})),
      nullptr);
}

// Through the shipped profile: the graph ONNX Runtime runs at level all is what is planned.
TEST(GraphRewrite, OptimizedProfilePlansTheFusedGraph) {
  const Profile optimized = load_profile(Host::profile_path("onnxruntime-cpu-optimized-no-arena"));
  const test::Analysis a = test::analyze(conv_bn_relu().build(), optimized);
  ASSERT_EQ(a.ctx->node_count(), 1u);
  EXPECT_EQ(a.ctx->graph().node(0).domain, "com.microsoft.nchwc");
  EXPECT_EQ(a.ctx->graph().node(0).op_type, "Conv");
  const RewriteSummary* summary = a.ctx->rewrite_summary();
  ASSERT_NE(summary, nullptr);
  EXPECT_EQ(summary->applied,
            (std::vector<std::pair<std::string, std::size_t>>{
                {"ConvBNFusion", 1}, {"ConvActivationFusion", 1}, {"NchwcFusedConv", 1}}));
  ASSERT_NE(a.ctx->rewrite_origin(0), nullptr);
  EXPECT_EQ(a.ctx->rewrite_origin(0)->nodes, (std::vector<std::string>{"conv", "bn", "relu"}));
  // One output buffer of N*16*H*W floats and no im2col buffer (an NCHWc kernel).
  const PeakEvaluation e = a.ctx->evaluate_peak({{"N", 2}, {"H", 5}, {"W", 7}});
  const Profile plain = load_profile(Host::profile_path("onnxruntime-cpu-no-arena"));
  const test::Analysis b = test::analyze(conv_bn_relu().build(), plain);
  EXPECT_EQ(b.ctx->rewrite_summary(), nullptr);
  const PeakEvaluation f = b.ctx->evaluate_peak({{"N", 2}, {"H", 5}, {"W", 7}});
  const std::int64_t buffer = 2 * 16 * 5 * 7 * 4;
  const std::int64_t im2col =
      b.ctx->pool().eval(b.ctx->node_peak_memory(0), {{"N", 2}, {"H", 5}, {"W", 7}});
  EXPECT_GT(im2col, 0);
  EXPECT_EQ(a.print(a.ctx->node_peak_memory(0)), "0");
  // Unoptimised, the run peaks at the Conv (its output and im2col); fused, at the end (the
  // output and the profile's copy of it, output_copies: 1).
  EXPECT_EQ(f.run_bytes, buffer + im2col);
  EXPECT_EQ(e.run_bytes, 2 * buffer);
}

}  // namespace
}  // namespace cctx
