// The bad-input matrix of README.md ("Bad input"), row by row, through the real `cctx` binary:
// each broken model, profile or expression ends as one line on stderr that names the file and
// the problem, a documented exit code, and nothing on stdout. The large models (a 100,000-node
// chain, subgraphs nested 1,000 deep, a megabyte dim_param) are generated here at run time.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;
using test::read_file;
using test::run_cctx;
using test::write_file;

void save(const onnx::ModelProto& proto, const std::filesystem::path& path) {
  write_file(path, proto.SerializeAsString());
}
void save(const test::ModelBuilder& b, const std::filesystem::path& path) {
  save(b.build().proto(), path);
}

/// Exit code `code`, one line on stderr that names `file` and contains `needle`, no stdout.
void expect_error(const test::RunResult& r, int code, const std::string& file,
                  const std::string& needle) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out.substr(0, 200);
}

/// X:float[N,4] -> Relu -> Y: the smallest valid model, to break one piece at a time.
test::ModelBuilder relu_model() {
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {"N", 4});
  b.node("Relu", {"X"}, {"Y"});
  b.output("Y");
  return b;
}

class BadInput : public ::testing::Test {
 protected:
  std::filesystem::path model(const std::string& name) const { return dir_ / name; }
  test::RunResult analyze(const std::filesystem::path& m, const std::string& extra = "") const {
    return run_cctx("analyze " + quoted(m) + " " + extra);
  }
  std::string profile(const std::string& yaml, const std::string& name = "p.yaml") const {
    write_file(dir_ / name, yaml);
    return "--profile " + quoted(dir_ / name);
  }
  test::TempDir dir_;
};

// ---- the model file ----------------------------------------------------------------------------

TEST_F(BadInput, ModelFileMissing) {
  expect_error(analyze(model("absent.onnx")), 3, "absent.onnx", "no such file");
}

TEST_F(BadInput, ModelFileEmpty) {
  write_file(model("empty.onnx"), "");
  expect_error(analyze(model("empty.onnx")), 3, "empty.onnx", "empty file");
}

TEST_F(BadInput, ModelFileTruncated) {
  const std::string bytes = read_file(test::seed_model());
  write_file(model("cut.onnx"), bytes.substr(0, bytes.size() - 7));
  expect_error(analyze(model("cut.onnx")), 3, "cut.onnx", "truncated or corrupt");
}

TEST_F(BadInput, ModelFileOfRandomBytes) {
  std::mt19937 rng(9);
  std::string bytes(4096, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
  write_file(model("random.onnx"), bytes);
  expect_error(analyze(model("random.onnx")), 3, "random.onnx", "not ");
}

TEST_F(BadInput, ModelFileHoldingAnotherProtobufMessage) {
  // A TensorProto's fields clash with ModelProto's wire types: not a model.
  write_file(model("tensor.onnx"), test::tensor_ints("t", {1, 2, 3}).SerializeAsString());
  expect_error(analyze(model("tensor.onnx")), 3, "tensor.onnx", "not a valid ONNX model");
  // A Dimension {dim_value: 3, dim_param: "N"} reads as ModelProto {ir_version: 3,
  // producer_name: "N"}: a clean parse, but no graph.
  onnx::TensorShapeProto::Dimension dim;
  dim.set_dim_value(3);
  write_file(model("dim.onnx"), dim.SerializeAsString());
  expect_error(analyze(model("dim.onnx")), 3, "dim.onnx", "not an ONNX model (no graph)");
}

TEST_F(BadInput, ModelFileIsADirectory) {
  std::filesystem::create_directory(model("folder.onnx"));
  expect_error(analyze(model("folder.onnx")), 3, "folder.onnx", "is a directory");
}

TEST_F(BadInput, ModelFileUnreadable) {
  save(relu_model(), model("locked.onnx"));
  ::chmod(model("locked.onnx").c_str(), 0);
  ::chmod(dir_.path().c_str(), 0755);
  // Root reads any file: run as nobody then, so that the permission check is real.
  const std::string prefix =
      ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups" : "";
  expect_error(run_cctx("analyze " + quoted(model("locked.onnx")), prefix), 3, "locked.onnx",
               "Permission denied");
}

// ---- the graph ---------------------------------------------------------------------------------

TEST_F(BadInput, GraphWithACycle) {
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {4});
  b.node("Add", {"X", "B"}, {"A"}, {}, "", "first");
  b.node("Relu", {"A"}, {"B"}, {}, "", "second");
  b.output("B");
  save(b, model("cycle.onnx"));
  expect_error(analyze(model("cycle.onnx")), 3, "cycle.onnx", "the graph has a cycle");
}

// Under a profile that rewrites the graph, the cycle is reported on the model's own nodes: a
// cyclic graph is not rewritten first (its Conv would otherwise be named ReorderInput), and the
// rewrites' walks cannot loop on it.
TEST_F(BadInput, GraphWithACycleUnderTheRewritingProfile) {
  test::ModelBuilder b(17);
  b.input("X", test::kFloat, {"N", 16, "H", "W"});
  b.initializer(test::tensor_zeros("w", test::kFloat, {16, 16, 3, 3}));
  b.node("Conv", {"A", "w"}, {"C"}, {test::attr("pads", std::vector<std::int64_t>{1, 1, 1, 1})}, "",
         "conv");
  b.node("Relu", {"C"}, {"R"}, {}, "", "relu");
  b.node("Add", {"R", "C"}, {"A"}, {}, "", "add");
  b.output("A");
  save(b, model("cycle_cnn.onnx"));
  const test::RunResult r = analyze(model("cycle_cnn.onnx"), "--profile onnxruntime-cpu-no-arena");
  expect_error(r, 3, "cycle_cnn.onnx", "the graph has a cycle through node 0 'conv' (Conv)");
}

TEST_F(BadInput, ValueProducedTwice) {
  test::ModelBuilder b = relu_model();
  b.node("Abs", {"X"}, {"Y"});
  save(b, model("twice.onnx"));
  expect_error(analyze(model("twice.onnx")), 3, "twice.onnx",
               "value 'Y' is produced more than once");
}

TEST_F(BadInput, InputThatNothingProduces) {
  test::ModelBuilder b = relu_model();
  b.node("Add", {"Y", "ghost"}, {"Z"});
  save(b, model("ghost.onnx"));
  expect_error(analyze(model("ghost.onnx")), 3, "ghost.onnx",
               "reads 'ghost', which no node, input or initializer defines");
}

TEST_F(BadInput, EmptyOpType) {
  test::ModelBuilder b = relu_model();
  b.node("", {"Y"}, {"Z"});
  save(b, model("noop.onnx"));
  expect_error(analyze(model("noop.onnx")), 3, "noop.onnx", "has no op_type");
}

TEST_F(BadInput, DomainWithoutOpsetImport) {
  test::ModelBuilder b = relu_model();
  b.node("Gelu", {"Y"}, {"Z"}, {}, "com.acme");
  save(b, model("domain.onnx"));
  expect_error(analyze(model("domain.onnx")), 3, "domain.onnx",
               "uses domain 'com.acme', which the model does not import");
}

TEST_F(BadInput, NegativeDim) {
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {std::int64_t{-3}, 4});
  b.node("Relu", {"X"}, {"Y"});
  b.output("Y");
  save(b, model("negative.onnx"));
  expect_error(analyze(model("negative.onnx")), 3, "negative.onnx",
               "value 'X' has a negative dim -3");
}

TEST_F(BadInput, DimsWhoseByteSizeOverflowsInt64) {
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {std::int64_t{1} << 40, std::int64_t{1} << 30});
  b.node("Relu", {"X"}, {"Y"});
  b.output("Y");
  save(b, model("huge.onnx"));
  expect_error(analyze(model("huge.onnx")), 3, "huge.onnx",
               "value 'X' has more bytes than a 64-bit size can hold");
}

TEST_F(BadInput, RankAboveTheLimit) {
  std::vector<test::DimSpec> dims(65, std::int64_t{1});
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, test::ShapeSpec(dims));
  b.node("Relu", {"X"}, {"Y"});
  b.output("Y");
  save(b, model("rank.onnx"));
  expect_error(analyze(model("rank.onnx")), 3, "rank.onnx",
               "value 'X' has rank 65, above 64 (limits.rank)");
  // The limit is the profile's to raise.
  auto r = analyze(model("rank.onnx"), profile("plugins: [{name: onnx}]\nlimits: {rank: 65}\n"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

/// X -> Relu -> v0 -> Relu -> ... -> v<nodes-1>.
onnx::ModelProto relu_chain(int nodes) {
  onnx::ModelProto m = relu_model().build().proto();
  onnx::GraphProto* g = m.mutable_graph();
  g->clear_node();
  g->clear_output();
  for (int k = 0; k < nodes; ++k) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type("Relu");
    n->add_input(k == 0 ? "X" : "v" + std::to_string(k - 1));
    n->add_output("v" + std::to_string(k));
  }
  g->add_output()->set_name("v" + std::to_string(nodes - 1));
  return m;
}

TEST_F(BadInput, HundredThousandNodeChainIsAnalysed) {
  save(relu_chain(100000), model("chain.onnx"));
  auto r = analyze(model("chain.onnx"), "--format csv --eval N=2");
  ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 500);
  EXPECT_NE(r.out.find("\n99999,"), std::string::npos);
  // Above the node limit: refused before any work.
  expect_error(analyze(model("chain.onnx"), profile("limits: {nodes: 1000}\n")), 3, "chain.onnx",
               "more than 1000 nodes (limits.nodes)");
}

// A report that cannot be written (here, to a full device) is an error with its reason and exit
// code 5, not a short file and status 0; the JSON report, streamed in pieces, fails the same way.
TEST_F(BadInput, OutputThatCannotBeWrittenIsAnError) {
  save(relu_chain(5000), model("chain.onnx"));  // a JSON report of several megabytes
  for (const std::string format : {"table", "csv", "json"}) {
    const std::string err = (dir_ / "err").string();
    const std::string command = test::cctx_binary().string() + " analyze " +
                                quoted(model("chain.onnx")) + " --format " + format +
                                " >/dev/full 2>" + err;
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status)) << format;
    EXPECT_EQ(WEXITSTATUS(status), 5) << format;
    EXPECT_EQ(read_file(err), "cctx: cannot write to standard output: No space left on device\n")
        << format;
  }
  // Written to a file, the streamed report is whole: every node, and the members after them.
  auto r = analyze(model("chain.onnx"), "--format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(r.out.size(), 3u << 20);
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["nodes"].size(), 5000u);
  EXPECT_EQ(doc["nodes"][4999]["outputs"][0], "v4999");
  EXPECT_TRUE(doc.contains("warnings"));
}

// An If whose then_branch holds another If, `depth` levels down; every level yields X.
onnx::ModelProto nested_ifs(int depth) {
  onnx::ModelProto m = relu_model().build().proto();
  onnx::GraphProto* g = m.mutable_graph();
  g->clear_node();
  g->clear_output();
  auto* cond = g->add_initializer();
  cond->set_name("cond");
  cond->set_data_type(onnx::TensorProto::BOOL);
  cond->add_int32_data(1);
  onnx::GraphProto* level = g;
  for (int d = 0; d < depth; ++d) {
    onnx::NodeProto* n = level->add_node();
    n->set_op_type("If");
    n->add_input("cond");
    const std::string out = "y" + std::to_string(d);
    n->add_output(out);
    // Outputs with an empty type, as onnx.helper writes them: with these the tag stage once
    // re-ran every body at every pass of its owner, 2^depth work.
    onnx::ValueInfoProto* declared = level->add_output();
    declared->set_name(out);
    declared->mutable_type();
    onnx::AttributeProto* other = n->add_attribute();
    other->set_name("else_branch");
    other->set_type(onnx::AttributeProto::GRAPH);
    onnx::NodeProto* id = other->mutable_g()->add_node();
    id->set_op_type("Identity");
    id->add_input("X");
    id->add_output("e" + std::to_string(d));
    onnx::ValueInfoProto* other_out = other->mutable_g()->add_output();
    other_out->set_name("e" + std::to_string(d));
    other_out->mutable_type();
    onnx::AttributeProto* then = n->add_attribute();
    then->set_name("then_branch");
    then->set_type(onnx::AttributeProto::GRAPH);
    level = then->mutable_g();
  }
  onnx::NodeProto* leaf = level->add_node();
  leaf->set_op_type("Identity");
  leaf->add_input("X");
  leaf->add_output("leaf");
  level->add_output()->set_name("leaf");
  return m;
}

TEST_F(BadInput, SubgraphsNestedAThousandDeep) {
  save(nested_ifs(1000), model("deep.onnx"));
  expect_error(analyze(model("deep.onnx")), 3, "deep.onnx",
               "subgraphs are nested more than 64 levels deep (limits.subgraph_depth)");
  // Raised to its maximum, the whole pipeline walks 2,000 levels without running out of stack,
  // even when the shell gives the main thread only 1 MiB (the analysis runs on its own stack).
  save(nested_ifs(2000), model("deeper.onnx"));
  auto r = run_cctx("analyze " + quoted(model("deeper.onnx")) + " " +
                        profile("plugins: [{name: onnx}]\nlimits: {subgraph_depth: 2000}\n"),
                    "ulimit -s 1024 &&");
  EXPECT_EQ(r.exit_code, 0) << r.err.substr(0, 500);
}

TEST_F(BadInput, AttributeOfTheWrongType) {
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {"N", 4});
  b.node("Transpose", {"X"}, {"Y"}, {test::attr("perm", 1.5f)}, "", "flip");
  b.output("Y");
  save(b, model("attr.onnx"));
  // Read as "no perm", it would silently reverse the axes: the schema's type decides.
  expect_error(analyze(model("attr.onnx")), 3, "attr.onnx",
               "attribute 'perm' of node 'flip' (Transpose) is FLOAT, but Transpose wants INTS");
}

TEST_F(BadInput, ReshapeWithTwoMinusOnes) {
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {"N", 4});
  b.initializer_ints("shape", {-1, -1});
  b.node("Reshape", {"X", "shape"}, {"Y"}, {}, "", "squash");
  b.output("Y");
  save(b, model("reshape.onnx"));
  auto r = analyze(model("reshape.onnx"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("-1"), std::string::npos) << r.err;
  expect_error(
      analyze(model("reshape.onnx"), profile("plugins: [{name: onnx}]\nshapes: {strict: true}\n")),
      4, "'squash'", "-1");
}

onnx::ModelProto with_external_weight(const std::string& location) {
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {"N", 4});
  b.node("MatMul", {"X", "W"}, {"Y"});
  b.output("Y");
  onnx::ModelProto m = b.build().proto();
  onnx::TensorProto* w = m.mutable_graph()->add_initializer();
  w->set_name("W");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(4);
  w->add_dims(4);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* entry = w->add_external_data();
  entry->set_key("location");
  entry->set_value(location);
  return m;
}

TEST_F(BadInput, ExternalDataOutsideTheModelFolder) {
  for (const std::string location : {"../../etc/passwd", "/etc/passwd", "a/../../b.bin"}) {
    save(with_external_weight(location), model("external.onnx"));
    expect_error(
        analyze(model("external.onnx")), 3, "external.onnx",
        "initializer 'W' has external data at '" + location + "', outside the model's folder");
  }
  // Inside the folder it is accepted, and never opened: the file need not even exist.
  save(with_external_weight("weights/w.bin"), model("external.onnx"));
  auto r = analyze(model("external.onnx"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// ---- the profile -------------------------------------------------------------------------------

class BadProfile : public BadInput {
 protected:
  test::RunResult with(const std::string& yaml) const {
    return run_cctx("analyze " + quoted(test::seed_model()) + " " + profile(yaml));
  }
};

TEST_F(BadProfile, YamlSyntaxError) {
  expect_error(with("plugins: [{name: onnx}\n"), 3, "p.yaml:", "YAML syntax error");
}

TEST_F(BadProfile, WrongType) {
  expect_error(with("shapes: {strict: maybe}\n"), 3, "p.yaml:1:", "strict");
  expect_error(with("limits: {nodes: many}\n"), 3, "p.yaml:1:", "nodes");
}

TEST_F(BadProfile, UnknownKey) {
  expect_error(with("limits: {node: 5}\n"), 3, "p.yaml:1:", "unknown key 'node'");
}

TEST_F(BadProfile, MissingPlugin) {
  expect_error(with("plugins: [{name: no_such_plugin}]\n"), 3, "p.yaml", "no_such_plugin");
}

TEST_F(BadProfile, PluginPathThatIsAFolder) {
  std::filesystem::create_directory(dir_ / "plugin.so");
  expect_error(with("plugins: [{path: plugin.so}]\n"), 3, "plugin.so",
               "is a folder, not a shared library");
}

TEST_F(BadProfile, ExtendsCycle) {
  write_file(dir_ / "a.yaml", "extends: b.yaml\n");
  write_file(dir_ / "b.yaml", "extends: a.yaml\n");
  expect_error(
      run_cctx("analyze " + quoted(test::seed_model()) + " --profile " + quoted(dir_ / "a.yaml")),
      3, "b.yaml", "'extends' cycle");
}

TEST_F(BadProfile, LimitAboveItsCeiling) {
  expect_error(with("limits: {subgraph_depth: 5000}\n"), 3, "p.yaml:1:", "subgraph_depth");
}

TEST_F(BadProfile, DeclarativeOpWithABadExpression) {
  expect_error(with("ops:\n  - domain: d\n    op_type: X\n    outputs: [{shape: in0}]\n"
                    "    scratch: 4 * in0[1] +\n"),
               3, "p.yaml:5:26:", "bad expression '4 * in0[1] +': expected an operand");
}

TEST_F(BadProfile, DeclarativeOpClashingWithAPluginRule) {
  expect_error(with("plugins: [{name: onnx}]\nops:\n  - {domain: '', op_type: Relu, outputs: "
                    "[{shape: in0}]}\n"),
               3, "p.yaml:3:5:", "shape rule ai.onnx::Relu@1 is already registered by onnx 0.1.0");
}

// ---- expressions -------------------------------------------------------------------------------

test::ModelBuilder with_dim_param(const std::string& dim) {
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {dim, 4});
  b.node("Relu", {"X"}, {"Y"});
  b.output("Y");
  return b;
}

TEST_F(BadInput, DimParamOfAMegabyte) {
  save(with_dim_param(std::string(1 << 20, 'N')), model("mega.onnx"));
  expect_error(analyze(model("mega.onnx")), 3, "mega.onnx",
               "value 'X' has a dim_param of 1048576 characters, above 4096");
}

TEST_F(BadInput, DimParamOfHundredThousandNestedParentheses) {
  save(with_dim_param(std::string(100000, '(') + "N" + std::string(100000, ')')),
       model("parens.onnx"));
  expect_error(analyze(model("parens.onnx")), 3, "parens.onnx",
               "has a dim_param of 200001 characters, above 4096");
}

TEST(BadExpression, DeepNestingIsASyntaxErrorNotAStackOverflow) {
  auto r = run_cctx("eval '" + std::string(1000, '(') + "N" + std::string(1000, ')') + "'");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("nesting deeper than 200 levels"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1);
  // Longer than the expression limit: refused before parsing.
  r = run_cctx("eval '" + std::string(50000, '(') + "N" + std::string(50000, ')') + "'");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("expression of 100001 characters, above 4096 (limits.expression_chars)"),
            std::string::npos)
      << r.err.substr(0, 300);
}

TEST(BadExpression, EvalWithANonIntegerOrAnUnknownSymbol) {
  const std::string seed = quoted(test::seed_model());
  expect_error(run_cctx("analyze " + seed + " --eval N=1.5"), 2, "--eval",
               "'1.5' is not an integer");
  expect_error(run_cctx("analyze " + seed + " --eval Q=1"), 2, "--eval", "no symbol 'Q'");
}

// ---- --write-model -----------------------------------------------------------------------------

TEST_F(BadInput, WriteModelOverTheInputItself) {
  std::filesystem::copy_file(test::seed_model(), model("m.onnx"));
  auto r = analyze(model("m.onnx"), "--write-model " + quoted(model("m.onnx")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto listing = run_cctx("print " + quoted(model("m.onnx")));
  ASSERT_EQ(listing.exit_code, 0) << listing.err;
  EXPECT_NE(listing.out.find("output: float[2*N,4] Z"), std::string::npos) << listing.out;
  // No temporary file is left behind.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_.path()))
    files += e.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST_F(BadInput, FailedWriteLeavesTheTargetAlone) {
  // Strict mode fails the analysis: the existing target keeps its bytes.
  save(with_dim_param("N"), model("m.onnx"));
  test::ModelBuilder b = relu_model();
  b.node("Unheard", {"Y"}, {"Z"}, {}, "com.acme");
  b.opset("com.acme", 1);
  save(b, model("unknown_op.onnx"));
  write_file(model("target.onnx"), "keep me");
  auto r = analyze(model("unknown_op.onnx"),
                   profile("plugins: [{name: onnx}]\nshapes: {strict: true}\n") +
                       " --write-model " + quoted(model("target.onnx")));
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_EQ(read_file(model("target.onnx")), "keep me");
  // A target that cannot be replaced (a folder): refused, and no temporary file left.
  std::filesystem::create_directory(model("taken.onnx"));
  r = analyze(model("m.onnx"), "--write-model " + quoted(model("taken.onnx")));
  expect_error(r, 3, "taken.onnx", "is a directory");
  for (const auto& e : std::filesystem::directory_iterator(dir_.path())) {
    EXPECT_EQ(e.path().filename().string().find(".cctx-"), std::string::npos) << e.path();
  }
}

}  // namespace
}  // namespace cctx
