// The `cctx` command through its real entry point: output formats, exit codes, and bad input
// (one line naming the file and the problem, exit code 3, nothing written).
#include <gtest/gtest.h>

#include <cctx/sdk/abi.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;
using test::read_file;
using test::run_cctx;
using test::write_file;

std::string seed() { return quoted(test::seed_model()); }

/// One line on stderr naming `needle`, no stack trace.
void expect_one_line_error(const test::RunResult& r, const std::string& needle) {
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliAnalyze, DefaultTableIsTheSeedTable) {
  auto r = run_cctx("analyze " + seed() + " --eval N=1,8,32,128");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.out.find(
          "  0     MatMul   16*N+64            16*N               weight=16*N  weight=64     -"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("       1     96    128    128    128    128"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("     128   4160   8256   6224   6224   6224"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Peak total bytes: 64*N+64 at node 1 (Concat)"), std::string::npos) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(CliAnalyze, JsonFollowsTheAnalysisContract) {
  auto r = run_cctx("analyze " + seed() + " --format json --eval N=8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["format"], "cctx.analysis/1");
  EXPECT_EQ(doc["model"]["graph"], "compute_context_memory_demo");
  EXPECT_EQ(doc["model"]["opsets"][""], 18);
  EXPECT_EQ(doc["values"]["C"]["shape"], nlohmann::json::parse(R"(["2*N", 4])"));
  EXPECT_EQ(doc["values"]["Z"]["shape"], nlohmann::json::parse(R"(["2*N", 4])"));
  EXPECT_EQ(doc["values"]["S"]["tag"], "shape");
  EXPECT_EQ(doc["values"]["S"]["value"], nlohmann::json::parse(R"(["2*N", 4])"));
  EXPECT_EQ(doc["values"]["S"]["bytes"], 16);
  EXPECT_EQ(doc["values"]["X"]["kind"], "input");
  EXPECT_EQ(doc["values"]["W"]["kind"], "initializer");
  EXPECT_EQ(doc["values"]["Z"]["kind"], "output");
  ASSERT_EQ(doc["nodes"].size(), 5u);
  const auto& n0 = doc["nodes"][0]["memory"];
  EXPECT_EQ(n0["already_allocated_bytes"], "16*N+64");
  EXPECT_EQ(n0["output_allocation_bytes"], "16*N");
  EXPECT_EQ(n0["inputs"], nlohmann::json::parse(R"({"weight": "16*N"})"));
  EXPECT_EQ(n0["initializers"], nlohmann::json::parse(R"({"weight": 64})"));
  EXPECT_EQ(n0["intermediates"], nlohmann::json::object());
  EXPECT_EQ(n0["total_bytes"], "32*N+64");
  const auto& n2 = doc["nodes"][2]["memory"];
  EXPECT_EQ(n2["output_allocation_bytes"], 16);
  EXPECT_EQ(n2["outputs"], nlohmann::json::parse(R"({"shape": 16})"));
  const auto& n3 = doc["nodes"][3];
  EXPECT_EQ(n3["memory"]["output_allocation_bytes"], 0);
  EXPECT_EQ(n3["memory"]["intermediates"],
            nlohmann::json::parse(R"({"shape": 16, "weight": "32*N"})"));
  EXPECT_EQ(n3["inplace"],
            nlohmann::json::parse(
                R"([{"output": 0, "input": 0, "kind": "equal", "mode": "may_reuse"}])"));
  EXPECT_EQ(doc["nodes"][4]["inplace"][0]["mode"], "alias");
  for (const auto& n : doc["nodes"]) EXPECT_EQ(n["peak_scratch_bytes"], 0);
  EXPECT_EQ(doc["nodes"][0]["not_used_after"], nlohmann::json::parse(R"(["W"])"));
  EXPECT_EQ(doc["peak"]["total_bytes"], "64*N+64");
  EXPECT_EQ(doc["peak"]["evaluations"][0]["bytes"], 576);
  EXPECT_EQ(doc["peak"]["evaluations"][0]["node"], 1);
  EXPECT_EQ(doc["peak"]["evaluations"][0]["assignment"]["N"], 8);
  // The runtime's figures: the peak minus the input X (16*N) and the initializer W (64); the
  // session holds W.
  EXPECT_EQ(doc["peak"]["evaluations"][0]["run_bytes"], 576 - 128 - 64);
  EXPECT_EQ(doc["peak"]["evaluations"][0]["session_bytes"], 64);
  EXPECT_FALSE(doc["peak"].contains("run_bytes"));  // symbolic: only per assignment
  EXPECT_TRUE(doc["warnings"].empty());
}

TEST(CliAnalyze, TableNamesTheRuntimeFigures) {
  auto r = run_cctx("analyze " + seed() + " --eval N=8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  N=8: 576 bytes at node 1 (Concat); run 384 bytes, session 64 bytes"),
            std::string::npos)
      << r.out;
}

// Under the arena profile the run figure is whole regions (1 MiB, then doubling, or the next
// power-of-two multiple for a large request), not less than what a run holds without the arena
// (but for the outputs' JavaScript copies); the session is the same as without it.
TEST(CliAnalyze, ArenaProfileCountsWholeRegions) {
  const std::string cnn = quoted(test::source_dir() / "tests/models/cnn.onnx");
  // The regions, pinned: one first region of 1 MiB at the small size; at batch 64 the largest
  // request rounded up to a power-of-two multiple of it (128 MiB). The session is the profile's
  // overhead and the initializers.
  const std::pair<const char*, std::int64_t> expected_run[] = {
      {"batch=1 --eval height=20 --eval width=28", std::int64_t{1} << 20},
      {"batch=64 --eval height=97 --eval width=131", std::int64_t{128} << 20}};
  for (const auto& [eval, pinned] : expected_run) {
    auto arena =
        run_cctx("analyze " + cnn + " --format json --profile onnxruntime-cpu-unoptimized --eval " +
                 std::string(eval));
    auto plain =
        run_cctx("analyze " + cnn +
                 " --format json --profile onnxruntime-cpu-unoptimized-no-arena --eval " + eval);
    ASSERT_EQ(arena.exit_code, 0) << arena.err;
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    const auto a = nlohmann::json::parse(arena.out)["peak"]["evaluations"][0];
    const auto p = nlohmann::json::parse(plain.out)["peak"]["evaluations"][0];
    const std::int64_t mib = std::int64_t{1} << 20;
    // The runtime's own structures (malloc, beside the regions) after the 11 nodes: a base, 20
    // values and 10 kernels (memory.run_overhead_*): the Constant node is an initializer to ONNX
    // Runtime, with no kernel.
    const std::int64_t frame = 1740 + 20 * 28 + 10 * 90;
    const std::int64_t run = std::int64_t{a["run_bytes"]} - frame;
    EXPECT_EQ(run % mib, 0) << a;
    EXPECT_EQ(run, pinned) << eval << ": " << a;
    EXPECT_EQ(a["session_bytes"], 7631352) << a;
    // The arena also holds the outputs, not their JavaScript copies: compare without those.
    EXPECT_GE(run, std::int64_t{p["run_bytes"]} / 2) << a << p;
    EXPECT_EQ(a["session_bytes"], p["session_bytes"]);
  }
  auto seed_run = run_cctx("analyze " + seed() +
                           " --format json --eval N=8 --profile onnxruntime-cpu-unoptimized");
  ASSERT_EQ(seed_run.exit_code, 0) << seed_run.err;
  // A first region of 1 MiB holds everything; the runtime's own bytes after the seed's 5 nodes.
  EXPECT_EQ(nlohmann::json::parse(seed_run.out)["peak"]["evaluations"][0]["run_bytes"],
            (std::int64_t{1} << 20) + 1740 + 7 * 28 + 5 * 90);
}

// Expressions above the size caps never block an answer: --eval with the model's own symbols
// evaluates the capped totals in full (the same figures as with the default caps), the table
// lists the caps with their definitions and the JSON report gives each cap symbol's definition.
TEST(CliAnalyze, SizeCappedTotalsStillEvaluate) {
  test::TempDir dir;
  write_file(dir / "tiny_caps.yaml", "extends: " + test::source_dir().string() +
                                         "/config/profiles/default.yaml\n"
                                         "expressions: {max_weight: 30, max_terms: 3}\n");
  const std::string cnn = quoted(test::source_dir() / "tests/models/cnn.onnx");
  const std::string eval = " --eval batch=3 --eval height=17 --eval width=31";
  auto capped = run_cctx("analyze " + cnn + eval + " --profile " + quoted(dir / "tiny_caps.yaml"));
  auto plain = run_cctx("analyze " + cnn + eval);
  ASSERT_EQ(capped.exit_code, 0) << capped.err;
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const std::string line = "  batch=3,height=17,width=31: 133816 bytes at node 0 (Conv)";
  EXPECT_NE(plain.out.find(line), std::string::npos) << plain.out;
  EXPECT_NE(capped.out.find(line), std::string::npos) << capped.out;
  EXPECT_NE(capped.out.find("Size-capped expressions (evaluated in full):\n  cap_1 = "),
            std::string::npos)
      << capped.out;
  EXPECT_EQ(plain.out.find("Size-capped"), std::string::npos);
  auto json = run_cctx("analyze " + cnn + eval + " --format json --profile " +
                       quoted(dir / "tiny_caps.yaml"));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["peak"]["evaluations"][0]["bytes"], 133816);
  int definitions = 0;
  for (const auto& s : doc["symbols"]) {
    const bool cap = s["name"].get<std::string>().rfind("cap_", 0) == 0;
    EXPECT_EQ(cap, s.contains("definition")) << s;
    definitions += cap;
  }
  EXPECT_GT(definitions, 0);
}

// A shipped profile is found by its name; a bare name that names nothing is a one-line error.
TEST(CliAnalyze, ShippedProfileByName) {
  auto r = run_cctx("analyze " + seed() +
                    " --format json --eval N=8 --profile onnxruntime-cpu-unoptimized-no-arena");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  const auto& e = doc["peak"]["evaluations"][0];
  // ONNX Runtime writes no graph output in place and runs no Abs in place: 528, and its own
  // structures after the 5 nodes: a base, 7 values and 5 nodes (memory.run_overhead_*).
  EXPECT_EQ(e["run_bytes"], 528 + 1740 + 7 * 28 + 5 * 90) << e;
  EXPECT_EQ(e["session_bytes"], 64 + 7580000 + 5 * 4000) << e;  // W, the session, 5 nodes
  auto missing = run_cctx("analyze " + seed() + " --profile no-such-profile");
  EXPECT_EQ(missing.exit_code, 3);
  expect_one_line_error(missing, "no-such-profile");
}

TEST(CliAnalyze, CsvHasOneRowPerNodeAndEvaluatedColumns) {
  auto r = run_cctx("analyze " + seed() + " --format csv --eval N=1,8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("total_bytes@N=1,total_bytes@N=8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n1,,Concat,,32*N+64,32*N,weight=16*N,weight=64,weight=16*N,weight=32*N,64*"
                       "N+64,0,128,576,128,576\n"),
            std::string::npos)
      << r.out;
}

TEST(CliAnalyze, WriteModelProducesAnAnnotatedModel) {
  test::TempDir dir;
  auto r = run_cctx("analyze " + seed() + " --write-model " + quoted(dir / "out.onnx"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto shapes = run_cctx("print " + quoted(dir / "out.onnx"));
  ASSERT_EQ(shapes.exit_code, 0);
  EXPECT_NE(shapes.out.find("output: float[2*N,4] Z"), std::string::npos) << shapes.out;
}

TEST(CliAnalyze, ProfileWithoutTheOpsetPluginStillAnalysesTheSeed) {
  auto r = run_cctx("analyze " + seed() + " --profile " +
                    quoted(test::profile_dir() / "no-plugins.yaml"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Every op is reported as unknown to cctx.
  for (const char* op : {"(MatMul)", "(Concat)", "(Shape)", "(Abs)", "(Reshape)"}) {
    EXPECT_NE(r.err.find(op), std::string::npos) << op << "\n" << r.err;
  }
  EXPECT_NE(r.err.find("no shape rule"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Symbolic ComputeContext.memory table"), std::string::npos);
}

TEST(CliPrint, SeedListing) {
  auto r = run_cctx("print " + seed());
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out,
            "opset: domain='' version=18\n"
            "graph: name='compute_context_memory_demo'\n"
            "input: float[N,4] X\n"
            "init: float[4,4] W\n"
            "0: MatMul(X, W) -> M\n"
            "1: Concat <axis = 0> (M, X) -> C\n"
            "2: Shape(C) -> S\n"
            "3: Abs(C) -> A\n"
            "4: Reshape(A, S) -> Z\n"
            "output: float? Z\n");
}

TEST(CliPlugins, ListsTheOpsetPluginAndItsRules) {
  auto r = run_cctx("plugins --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc.size(), 3u);
  EXPECT_EQ(doc[0]["name"], "onnx");
  EXPECT_EQ(doc[1]["name"], "onnx_ml");
  EXPECT_EQ(doc[2]["name"], "microsoft");
  EXPECT_EQ(doc[0]["abi"], "1." + std::to_string(CCTX_SDK_ABI_MINOR));
  EXPECT_EQ(doc[0]["domains"][0]["domain"], "ai.onnx");
  EXPECT_TRUE(doc[0]["ops"].contains("ai.onnx::MatMul"));
  EXPECT_EQ(doc[0]["ops"]["ai.onnx::Reshape"]["inplace"], nlohmann::json::parse("[1]"));
}

TEST(CliEval, PrintsCanonicalFormOrInteger) {
  auto r = run_cctx("eval '64+N*16'");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "16*N+64\n");
  r = run_cctx("eval '48*N+80' N=8");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "464\n");
}

TEST(CliEval, SyntaxErrorNamesThePosition) {
  auto r = run_cctx("eval '2*(N+'");
  EXPECT_EQ(r.exit_code, 3);
  expect_one_line_error(r, "2*(N+");
}

TEST(CliBadInput, MissingModel) {
  auto r = run_cctx("analyze /nonexistent/model.onnx");
  EXPECT_EQ(r.exit_code, 3);
  expect_one_line_error(r, "/nonexistent/model.onnx: no such file");
}

TEST(CliBadInput, TruncatedModel) {
  test::TempDir dir;
  std::string bytes = read_file(test::seed_model());
  write_file(dir / "cut.onnx", bytes.substr(0, bytes.size() / 2));
  auto r = run_cctx("analyze " + quoted(dir / "cut.onnx"));
  EXPECT_EQ(r.exit_code, 3);
  expect_one_line_error(r, "cut.onnx: ");
}

TEST(CliBadInput, NotAnOnnxModel) {
  test::TempDir dir;
  write_file(dir / "text.onnx", "this is not a model\n");
  auto r = run_cctx("analyze " + quoted(dir / "text.onnx"));
  EXPECT_EQ(r.exit_code, 3);
  expect_one_line_error(r, "text.onnx: ");
}

TEST(CliBadInput, EmptyFileAndDirectory) {
  test::TempDir dir;
  write_file(dir / "empty.onnx", "");
  auto r = run_cctx("analyze " + quoted(dir / "empty.onnx"));
  EXPECT_EQ(r.exit_code, 3);
  expect_one_line_error(r, "empty.onnx: empty file");
  r = run_cctx("analyze " + quoted(dir.path()));
  EXPECT_EQ(r.exit_code, 3);
  expect_one_line_error(r, "is a directory");
}

TEST(CliBadInput, ProfileWithATypo) {
  test::TempDir dir;
  write_file(dir / "p.yaml", "profile: typo\ninplce: {enabled: true}\n");
  auto r = run_cctx("analyze " + seed() + " --profile " + quoted(dir / "p.yaml"));
  EXPECT_EQ(r.exit_code, 3);
  expect_one_line_error(r, "p.yaml:2:1: unknown key 'inplce'");
}

TEST(CliBadInput, PluginPathThatDoesNotExist) {
  test::TempDir dir;
  write_file(dir / "p.yaml", "plugins:\n  - path: /nonexistent/libfoo.so\n");
  auto r = run_cctx("analyze " + seed() + " --profile " + quoted(dir / "p.yaml"));
  EXPECT_EQ(r.exit_code, 3);
  expect_one_line_error(r, "/nonexistent/libfoo.so does not exist");
}

TEST(CliBadInput, FailedAnalysisWritesNothing) {
  test::TempDir dir;
  write_file(dir / "out.onnx", "keep me");
  write_file(dir / "bad.onnx", "garbage");
  auto r = run_cctx("analyze " + quoted(dir / "bad.onnx") + " --write-model " +
                    quoted(dir / "out.onnx"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(read_file(dir / "out.onnx"), "keep me");
}

TEST(CliUsage, BadEvalAndUnknownSymbolAreUsageErrors) {
  auto r = run_cctx("analyze " + seed() + " --eval N=abc");
  EXPECT_EQ(r.exit_code, 2);
  expect_one_line_error(r, "'abc' is not an integer");
  r = run_cctx("analyze " + seed() + " --eval Q=1");
  EXPECT_EQ(r.exit_code, 2);
  expect_one_line_error(r, "no symbol 'Q'");
}

TEST(CliUsage, UnknownSubcommandIsExitCode2) {
  auto r = run_cctx("frobnicate");
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace cctx
