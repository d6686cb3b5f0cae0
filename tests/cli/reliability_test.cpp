// The third hostile-input round (docs/robustness.md, "Bad input" and "Limits"), through the real
// `cctx` binary: exponential function inlining, negative sizes, a written model past protobuf's 2
// GiB, wide nodes and maps, assignment sweeps, signals while writing, profiles that are FIFOs or
// secrets, over-long length varints, versions from the future, malformed reports for `diff`,
// repeated options and out of memory.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using namespace std::string_literals;
using test::contains;
using test::expect_error;
using test::quoted;
using test::run_cctx;
using test::write_file;

class Reliability : public ::testing::Test {
 protected:
  std::filesystem::path path(const std::string& name) const { return dir_ / name; }
  std::string profile(const std::string& yaml, const std::string& name = "p.yaml") const {
    write_file(dir_ / name, yaml);
    return " --profile " + quoted(dir_ / name);
  }
  void save(const test::ModelBuilder& b, const std::string& name) const {
    write_file(path(name), b.build().proto().SerializeAsString());
  }
  test::RunResult analyze(const std::string& model, const std::string& extra = "") const {
    return run_cctx("analyze " + quoted(path(model)) + extra);
  }
  test::TempDir dir_;
};

// ---- 3: exponential inlining --------------------------------------------------------------------

/// A model whose local function f0 calls f1 twice, f1 calls f2 twice, ..., f{levels-1} holds one
/// Relu: 2^(levels-1) nodes once inlined, a few kilobytes on disk.
std::string doubling_functions(int levels) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* onnx_opset = m.add_opset_import();
  onnx_opset->set_version(18);
  auto* local = m.add_opset_import();
  local->set_domain("local");
  local->set_version(1);
  for (int k = 0; k < levels; ++k) {
    onnx::FunctionProto* f = m.add_functions();
    f->set_name("f" + std::to_string(k));
    f->set_domain("local");
    f->add_input("x");
    f->add_output("y");
    *f->add_opset_import() = *onnx_opset;
    *f->add_opset_import() = *local;
    if (k + 1 == levels) {
      onnx::NodeProto* n = f->add_node();
      n->set_op_type("Relu");
      n->add_input("x");
      n->add_output("y");
      continue;
    }
    for (int call = 0; call < 2; ++call) {
      onnx::NodeProto* n = f->add_node();
      n->set_op_type("f" + std::to_string(k + 1));
      n->set_domain("local");
      n->add_input(call == 0 ? "x" : "t");
      n->add_output(call == 0 ? "t" : "y");
    }
  }
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("g");
  auto* x = g->add_input();
  x->set_name("X");
  x->mutable_type()->mutable_tensor_type()->set_elem_type(1);
  x->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param("N");
  onnx::NodeProto* call = g->add_node();
  call->set_op_type("f0");
  call->set_domain("local");
  call->add_input("X");
  call->add_output("Y");
  g->add_output()->set_name("Y");
  return m.SerializeAsString();
}

TEST_F(Reliability, ExponentialInliningIsRefusedBeforeTheCopy) {
  write_file(path("f40.onnx"), doubling_functions(40));
  const auto start = std::chrono::steady_clock::now();
  expect_error(
      analyze("f40.onnx"), 3,
      {"f40.onnx: more than 5000000 nodes once its local functions are inlined", "(limits.nodes)"});
  // No timing assertion: a copy of 2^39 nodes would not end at all (it grew until killed).
  (void)start;
  write_file(path("f17.onnx"), doubling_functions(17));  // 65,536 nodes inlined
  const std::string small = profile("extends: default\nlimits: {nodes: 1000}\n");
  expect_error(analyze("f17.onnx", small), 3, {"more than 1000 nodes once its local functions"});
  write_file(path("f9.onnx"), doubling_functions(9));  // 256 nodes: within the limit
  const test::RunResult ok = analyze("f9.onnx", small + " --eval N=2");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

// ---- 4: negative sizes
// ---------------------------------------------------------------------------

TEST_F(Reliability, DimParamThatMayBeNegativeNarrowsItsSymbol) {
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {"N-10", 4});
  b.node("Relu", {"X"}, {"Y"});
  b.output("Y");
  save(b, "m.onnx");
  const test::RunResult below = analyze("m.onnx", " --eval N=2");
  EXPECT_NE(below.exit_code, 0) << below.out;
  EXPECT_TRUE(contains(below.err, "N")) << below.err;
  EXPECT_FALSE(contains(below.out, "-")) << below.out;
  const test::RunResult json = analyze("m.onnx", " --eval N=12 --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["peak"]["evaluations"][0]["bytes"].get<std::int64_t>(), 2 * 2 * 4 * 4);
  bool narrowed = false;
  for (const auto& s : doc["symbols"]) {
    if (s["name"] == "N") narrowed = s["bounds"][0].get<std::int64_t>() == 10;
  }
  EXPECT_TRUE(narrowed) << doc["symbols"].dump();
}

TEST_F(Reliability, NegativeDimParamsAreRefused) {
  for (const std::string dim : {"-1", "0-N", "-N"}) {
    test::ModelBuilder b(18);
    b.input("X", test::kFloat, {dim, 4});
    b.node("Relu", {"X"}, {"Y"});
    b.output("Y");
    save(b, "neg.onnx");
    expect_error(analyze("neg.onnx"), 3, {"neg.onnx: value 'X' has a negative dim", "cannot run"});
  }
}

TEST_F(Reliability, NegativeSplitSizesAreRefused) {
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {4, 8});
  b.initializer_ints("sizes", {-2, 6});
  b.node("Split", {"X", "sizes"}, {"A", "B"}, {}, "", "split");
  b.output("A");
  b.output("B");
  save(b, "split.onnx");
  expect_error(analyze("split.onnx"), 3,
               {"node 0 'split' (Split): 'A' would get a negative dim -2", "cannot run"});
}

TEST_F(Reliability, NegativeLoopTripCountRunsNoIteration) {
  test::GraphBuilder body;
  body.input("i", test::kInt64, {});
  body.input("cond", test::kBool, {});
  body.initializer_floats("c", {1.5F, 2.5F}, {2});
  body.node("Identity", {"cond"}, {"cond_out"});
  body.node("Identity", {"c"}, {"scan"});
  body.output("cond_out", test::kBool, {});
  body.output("scan", test::kFloat, {2});
  onnx::AttributeProto attr;
  attr.set_name("body");
  attr.set_type(onnx::AttributeProto::GRAPH);
  *attr.mutable_g() = body.graph();
  test::ModelBuilder b(18);
  b.initializer_ints("M", {-5}, {});
  b.node("Loop", {"M", ""}, {"Y"}, {attr});
  b.output("Y");
  save(b, "loop.onnx");
  const test::RunResult r = run_cctx("shapes " + quoted(path("loop.onnx")) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["values"]["Y"]["shape"], nlohmann::json::parse("[0, 2]")) << r.out.substr(0, 800);
}

// ---- 5: a written model past protobuf's limit
// ----------------------------------------------------

void append_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

std::string field(int number, int wire, const std::string& payload) {
  std::string out;
  append_varint(out, static_cast<std::uint64_t>(number) << 3 | static_cast<std::uint64_t>(wire));
  if (wire == 2) append_varint(out, payload.size());
  return out + payload;
}

/// A valid model of `total` bytes: Identity of one uint8 initializer whose raw_data fills it. The
/// data is a hole of the file (sparse): nothing is written for it, and cctx never reads it.
void sparse_model(const std::filesystem::path& p, std::uint64_t total) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(18);
  onnx::GraphProto g;
  g.set_name("g");
  onnx::NodeProto* n = g.add_node();
  n->set_op_type("Identity");
  n->add_input("W");
  n->add_output("Y");
  g.add_output()->set_name("Y");
  const std::string model_head = m.SerializeAsString(), graph_head = g.SerializeAsString();
  // Lengths nest: pick the raw_data length so that the whole comes to `total` bytes.
  for (std::uint64_t raw = total - 8; raw > total - 200; --raw) {
    onnx::TensorProto t;
    t.add_dims(static_cast<std::int64_t>(raw));
    t.set_data_type(onnx::TensorProto::UINT8);
    t.set_name("W");
    std::string tensor_head = t.SerializeAsString();
    std::string raw_header;
    append_varint(raw_header, 9 << 3 | 2);
    append_varint(raw_header, raw);
    const std::uint64_t tensor = tensor_head.size() + raw_header.size() + raw;
    std::string init_header;
    append_varint(init_header, 5 << 3 | 2);
    append_varint(init_header, tensor);
    const std::uint64_t graph = graph_head.size() + init_header.size() + tensor;
    std::string graph_header;
    append_varint(graph_header, 7 << 3 | 2);
    append_varint(graph_header, graph);
    const std::uint64_t size = model_head.size() + graph_header.size() + graph;
    if (size != total) continue;
    const std::string head =
        model_head + graph_header + graph_head + init_header + tensor_head + raw_header;
    write_file(p, head);
    ASSERT_EQ(::truncate(p.c_str(), static_cast<off_t>(total)), 0);
    return;
  }
  FAIL() << "no raw_data length gives " << total << " bytes";
}

TEST_F(Reliability, WrittenModelPastTwoGibIsRefusedAndTheTargetKept) {
  constexpr std::uint64_t kLimit = (std::uint64_t{1} << 31) - 1;
  sparse_model(path("big.onnx"), kLimit - 40);  // valid: protobuf reads it
  const std::string lift = profile("extends: default\nlimits: {file_bytes: 2147483647}\n");
  const test::RunResult shapes = run_cctx("shapes " + quoted(path("big.onnx")) + lift);
  ASSERT_EQ(shapes.exit_code, 0) << shapes.err;
  struct stat before {};
  ASSERT_EQ(::stat(path("big.onnx").c_str(), &before), 0);
  // The annotations add more than 40 bytes: written over its own input, the only copy.
  const test::RunResult r =
      analyze("big.onnx", lift + " --write-model " + quoted(path("big.onnx")));
  expect_error(
      r, 5,
      {"big.onnx: the model would be", "above the 2147483647 (2 GiB - 1)", "nothing was written"});
  struct stat after {};
  ASSERT_EQ(::stat(path("big.onnx").c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(after.st_size, before.st_size);
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
    EXPECT_FALSE(contains(entry.path().filename().string(), ".cctx-")) << entry.path();
  }
  EXPECT_EQ(run_cctx("shapes " + quoted(path("big.onnx")) + lift).exit_code, 0);
}

// ---- 6 and 10: wide nodes and wide maps
// ----------------------------------------------------------

TEST_F(Reliability, SumOfOneHundredThousandInputsIsLinear) {
  // Each input of the Sum is an intermediate (a Relu's output): every one is a reuse candidate.
  // The ctest TIMEOUT of this test is the bound; the quadratic scan took 37 s here.
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {"N"});
  std::vector<std::string> inputs;
  constexpr int kInputs = 100000;
  for (int k = 0; k < kInputs; ++k) {
    inputs.push_back("r" + std::to_string(k));
    b.node("Relu", {"X"}, {inputs.back()});
  }
  b.node("Sum", inputs, {"Y"}, {}, "", "sum");
  b.output("Y");
  save(b, "sum.onnx");
  const test::RunResult r = analyze("sum.onnx", " --eval N=3 --format csv");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(Reliability, ProfileMapOfOneHundredThousandKeysIsLinear) {
  std::string yaml = "extends: default\nsymbols:\n";
  for (int k = 0; k < 100000; ++k) yaml += "  S" + std::to_string(k) + ": [1, 8]\n";
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {"S7"});
  b.node("Relu", {"X"}, {"Y"});
  b.output("Y");
  save(b, "m.onnx");
  const test::RunResult r = analyze("m.onnx", profile(yaml) + " --eval S7=8");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string twice = "extends: default\nsymbols:\n";
  for (int k = 0; k < 50000; ++k) twice += "  S" + std::to_string(k) + ": [1, 8]\n";
  twice += "  S3: [1, 4]\n";
  expect_error(analyze("m.onnx", profile(twice, "twice.yaml")), 3,
               {"twice.yaml:50003:3: duplicate key 'S3' in 'symbols' (first at line 6)"});
}

// ---- 7: assignment sweeps
// -------------------------------------------------------------------------

TEST_F(Reliability, AssignmentSweepsAreCappedBeforeAnyWork) {
  test::ModelBuilder b(18);
  std::string evals;
  for (int k = 0; k < 8; ++k) {
    const std::string s = "S" + std::to_string(k);
    b.input("X" + std::to_string(k), test::kFloat, {s});
    b.node("Relu", {"X" + std::to_string(k)}, {"Y" + std::to_string(k)});
    b.output("Y" + std::to_string(k));
    evals += " --eval " + s + "=1,2,3,4,5,6,7,8,9,10";
  }
  save(b, "m.onnx");
  expect_error(analyze("m.onnx", evals), 2,
               {"--eval: 10 x 10 x 10 x 10 x 10 x 10 x 10 x 10 values make more than 10000 "
                "assignments (limits.assignments"});
  // Raised by a profile: 10^4 assignments of two symbols' 100 values each.
  std::string hundred;
  for (int v = 1; v <= 100; ++v) hundred += (v == 1 ? "" : ",") + std::to_string(v);
  const std::string two = " --eval S0=" + hundred + " --eval S1=" + hundred;
  EXPECT_EQ(analyze("m.onnx", two + " --eval S2=1,2").exit_code, 2);
  const test::RunResult raised =
      analyze("m.onnx", profile("extends: default\nlimits: {assignments: 20000}\n") + two +
                            " --eval S2=1,2 --format csv");
  EXPECT_EQ(raised.exit_code, 2) << raised.err;  // S3..S7 unassigned: a usage error, after the cap
  EXPECT_TRUE(contains(raised.err, "S3")) << raised.err;
}

// ---- 8: a signal while the model is written
// -------------------------------------------------------

TEST_F(Reliability, InterruptWhileWritingLeavesNoTemporaryFile) {
  sparse_model(path("w.onnx"), std::uint64_t{900} << 20);  // 900 MiB to copy
  write_file(path("out.onnx"), "old bytes");
  const std::string command = test::cctx_binary().string() + " analyze " + quoted(path("w.onnx")) +
                              " --write-model " + quoted(path("out.onnx")) + " > /dev/null";
  bool interrupted = false;
  for (int attempt = 0; attempt < 3 && !interrupted; ++attempt) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      // As a user's shell starts it: whoever started this test may have left SIGINT ignored
      // (a background job without job control), which exec would pass on.
      ::signal(SIGINT, SIG_DFL);
      ::execl("/bin/sh", "sh", "-c", ("exec " + command).c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Wait for the temporary file to appear (the bytes are being written), then Ctrl-C.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    bool seen = false;
    while (!seen && std::chrono::steady_clock::now() < deadline) {
      for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
        seen = seen || contains(entry.path().filename().string(), ".out.onnx.cctx-");
      }
      if (!seen) std::this_thread::sleep_for(std::chrono::microseconds(200));
      int status = 0;
      if (!seen && ::waitpid(child, &status, WNOHANG) == child) break;  // finished: try again
    }
    if (!seen) continue;
    ::kill(child, SIGINT);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    if (WIFSIGNALED(status)) {
      EXPECT_EQ(WTERMSIG(status), SIGINT);
      EXPECT_EQ(test::read_file(path("out.onnx")), "old bytes");
      interrupted = true;
    }
    write_file(path("out.onnx"), "old bytes");
  }
  ASSERT_TRUE(interrupted) << "the write ended before it could be interrupted";
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
    EXPECT_FALSE(contains(entry.path().filename().string(), ".cctx-")) << entry.path();
  }
}

// ---- 9: out of memory
// ------------------------------------------------------------------------------

#ifndef __SANITIZE_ADDRESS__  // ASan reserves terabytes of shadow memory: no address-space limit
TEST_F(Reliability, OutOfMemoryIsExitThreeNamingTheFileInEveryCommand) {
  // Two thousand nodes of a 4-deep broadcast chain: more than 200 MB of analysis state would be
  // needed only with a much larger model, so the address space is cut instead.
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {"N", 64});
  std::string last = "X";
  for (int k = 0; k < 20000; ++k) {
    const std::string next = "t" + std::to_string(k);
    b.node("Relu", {last}, {next});
    last = next;
  }
  b.output(last);
  save(b, "chain.onnx");
  for (const std::string& command :
       {"analyze " + quoted(path("chain.onnx")),
        "diff " + quoted(path("chain.onnx")) + " --profile onnxruntime-cpu-unoptimized",
        "explain " + quoted(path("chain.onnx")) + " 3"}) {
    const test::RunResult r = run_cctx(command, "ulimit -v 700000 &&");
    EXPECT_NE(r.exit_code, 134) << command << "\n" << r.err;  // not abort()
    if (r.exit_code == 0) continue;  // the limit was enough on this machine
    EXPECT_EQ(r.exit_code, 3) << command << "\n" << r.err;
    EXPECT_TRUE(contains(r.err, "out of memory")) << r.err;
  }
}
#endif

// ---- 11: eval of a capped product
// -----------------------------------------------------------------

TEST_F(Reliability, EvalOfAProductPastTheSizeCapGivesItsValue) {
  const test::RunResult r = run_cctx("eval 'N*N*N*N*N*N*N*N*N' N=2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "512\n");
}

// ---- 12: the smaller ones
// ---------------------------------------------------------------------------

TEST_F(Reliability, FifoProfileOrPluginIsRefusedInsteadOfWaitingForever) {
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {"N"});
  b.node("Relu", {"X"}, {"Y"});
  b.output("Y");
  save(b, "m.onnx");
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  expect_error(analyze("m.onnx", profile("extends: fifo\n")), 3,
               {"'extends': ", "fifo: is a FIFO that nothing wrote to in 5 s"});
  expect_error(analyze("m.onnx", profile("plugins:\n  - path: fifo\n", "plug.yaml")), 3,
               {"fifo is not a regular file"});
  // A pipe that is written is read (`--profile <(...)`).
  const test::RunResult piped =
      run_cctx("analyze " + quoted(path("m.onnx")) + " --profile /dev/stdin --eval N=2",
               "printf 'extends: default\\nsymbols: {N: [1, 4]}\\n' |");
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
}

TEST_F(Reliability, ProfileThatIsNotAProfileIsNotEchoed) {
  write_file(path("secret"), "root:$y$j9T$s3cr3tHashValue:19000:0:99999:7:::\n");
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {"N"});
  b.node("Relu", {"X"}, {"Y"});
  b.output("Y");
  save(b, "m.onnx");
  const test::RunResult r = analyze("m.onnx", profile("extends: secret\n"));
  expect_error(r, 3, {"secret:1:1: unknown key of 45 characters (not a key of a profile"});
  write_file(path("secret"), "just one line of text, $ecret\n");
  const test::RunResult text = analyze("m.onnx", profile("extends: secret\n"));
  expect_error(text, 3, {"the top level of a profile must be a map of keys, got text"});
  EXPECT_FALSE(contains(text.err, "$ecret")) << text.err;
  EXPECT_FALSE(contains(r.err, "s3cr3t")) << r.err;
  EXPECT_FALSE(contains(r.err, "root:")) << r.err;
}

TEST_F(Reliability, LengthVarintPastTwoGibIsRefused) {
  std::string bytes = field(1, 0, "");
  bytes += '\x08';                                       // ir_version 8
  bytes += '\x3a';                                       // graph (7), length-delimited
  bytes += "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01"s;  // 2^63
  bytes += std::string(64, '\0');
  write_file(path("v.onnx"), bytes);
  onnx::ModelProto reference;
  EXPECT_FALSE(reference.ParseFromString(bytes));
  expect_error(analyze("v.onnx"), 3, {"v.onnx: not a valid ONNX model"});
}

TEST_F(Reliability, VersionsFromTheFutureAreAnalysedWithAWarning) {
  test::ModelBuilder b(99, 99);
  b.input("X", test::kFloat, {"N"});
  b.node("Relu", {"X"}, {"Y"});
  b.output("Y");
  save(b, "future.onnx");
  const test::RunResult r = analyze("future.onnx", " --eval N=2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "IR version 99 is newer than any cctx knows")) << r.err;
  EXPECT_TRUE(contains(r.err, "imports ai.onnx opset 99, newer than the newest")) << r.err;
}

TEST_F(Reliability, DiffRefusesAReportWhoseAmountIsNotAnInteger) {
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {"N"});
  b.node("Relu", {"X"}, {"Y"});
  b.output("Y");
  save(b, "m.onnx");
  const test::RunResult json = analyze("m.onnx", " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto doc = nlohmann::json::parse(json.out);
  write_file(path("a.json"), doc.dump());
  doc["peak"]["total_bytes"] = 1.5;
  write_file(path("b.json"), doc.dump());
  expect_error(run_cctx("diff " + quoted(path("a.json")) + " " + quoted(path("b.json"))), 3,
               {"b.json: not a cctx.analysis/1 report: peak.total_bytes is 1.5"});
  doc = nlohmann::json::parse(json.out);
  doc["nodes"][0]["memory"]["total_bytes"] = 7.0;
  write_file(path("c.json"), doc.dump());
  expect_error(run_cctx("diff " + quoted(path("a.json")) + " " + quoted(path("c.json"))), 3,
               {"nodes[0].memory.total_bytes is 7.0"});
}

TEST_F(Reliability, RepeatedOrUnknownSymbolsInOptionsAreUsageErrors) {
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {"N", "M"});
  b.node("Relu", {"X"}, {"Y"});
  b.output("Y");
  save(b, "m.onnx");
  expect_error(analyze("m.onnx", " --eval N=2 --eval N=3 --eval M=1"), 2,
               {"--eval 'N=3': 'N' is given twice"});
  expect_error(analyze("m.onnx", " --bounds N=1:4 --bounds N=2:8"), 2,
               {"--bounds 'N=2:8': 'N' is given twice"});
  expect_error(analyze("m.onnx", " --bounds Q=1:4"), 2,
               {"--bounds 'Q=1:4': the model has no symbol 'Q' (its symbols: M, N)"});
  expect_error(run_cctx("shapes " + quoted(path("m.onnx")) + " --bounds Q=1:4"), 2,
               {"the model has no symbol 'Q'"});
}

}  // namespace
}  // namespace cctx
