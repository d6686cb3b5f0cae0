// Weights are never read (docs/performance.md, "Weights"): Model::load parses a model without the
// data of tensors above 64 elements, the analysis is the same as with every byte parsed, and
// --write-model copies the skipped bytes back from the file (or, for a stream, from memory).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "cctx/errors.hpp"
#include "cctx/model.hpp"
#include "model/wire_varint.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;
using test::run_cctx;

onnx::TensorProto* add_float_tensor(onnx::TensorProto* t, const std::string& name,
                                    std::vector<std::int64_t> dims, bool raw, std::mt19937& rng) {
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  std::int64_t n = 1;
  for (std::int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  std::uniform_real_distribution<float> value(-1.0F, 1.0F);
  std::vector<float> data(static_cast<std::size_t>(n));
  for (float& x : data) x = value(rng);
  if (raw) {
    t->set_raw_data(std::string(reinterpret_cast<const char*>(data.data()), data.size() * 4));
  } else {
    for (float x : data) t->add_float_data(x);
  }
  return t;
}

/// Y = Reshape(MatMul(X, W), shape) + Constant, with W of `rows` x 96 floats in raw_data, a
/// 100-element Constant in float_data (packed), a small int64 shape whose values the analysis
/// needs, and a sparse initializer: every kind of payload the loader skips or keeps.
onnx::ModelProto weighted_model(std::int64_t rows) {
  std::mt19937 rng(7);
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("weights");
  auto* x = g->add_input();
  x->set_name("X");
  auto* xt = x->mutable_type()->mutable_tensor_type();
  xt->set_elem_type(onnx::TensorProto::FLOAT);
  xt->mutable_shape()->add_dim()->set_dim_param("N");
  xt->mutable_shape()->add_dim()->set_dim_value(rows);
  add_float_tensor(g->add_initializer(), "W", {rows, 96}, true, rng);
  onnx::TensorProto* shape = g->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(3);
  for (std::int64_t v : {-1, 4, 24}) shape->add_int64_data(v);
  onnx::SparseTensorProto* sparse = g->add_sparse_initializer();
  add_float_tensor(sparse->mutable_values(), "S", {80}, false, rng);
  sparse->mutable_indices()->set_name("S_indices");
  sparse->mutable_indices()->set_data_type(onnx::TensorProto::INT64);
  sparse->mutable_indices()->add_dims(80);
  for (int k = 0; k < 80; ++k) sparse->mutable_indices()->add_int64_data(2 * k);
  sparse->add_dims(4);
  sparse->add_dims(40);
  auto* mm = g->add_node();
  mm->set_op_type("MatMul");
  mm->add_input("X");
  mm->add_input("W");
  mm->add_output("M");
  auto* rs = g->add_node();
  rs->set_op_type("Reshape");
  rs->add_input("M");
  rs->add_input("shape");
  rs->add_output("R");
  auto* c = g->add_node();
  c->set_op_type("Constant");
  c->add_output("C");
  auto* value = c->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  add_float_tensor(value->mutable_t(), "", {1, 4, 25}, false, rng)
      ->mutable_float_data()
      ->Truncate(96);
  value->mutable_t()->set_dims(2, 24);
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->add_input("R");
  add->add_input("C");
  add->add_output("Y");
  auto* y = g->add_output();
  y->set_name("Y");
  y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return m;
}

/// `t` without the annotations cctx writes into it (fields this onnx version does not know).
template <class Proto>
std::string without_annotations(const Proto& t) {
  Proto copy = t;
  copy.mutable_unknown_fields()->Clear();
  return copy.SerializeAsString();
}

/// Every tensor of `expected` (initializers, sparse initializers, node attributes) is in `actual`,
/// byte for byte.
void expect_same_tensors(const onnx::ModelProto& actual, const onnx::ModelProto& expected) {
  const onnx::GraphProto& a = actual.graph();
  const onnx::GraphProto& e = expected.graph();
  ASSERT_EQ(a.initializer_size(), e.initializer_size());
  for (int k = 0; k < e.initializer_size(); ++k) {
    EXPECT_EQ(without_annotations(a.initializer(k)), e.initializer(k).SerializeAsString()) << k;
  }
  ASSERT_EQ(a.sparse_initializer_size(), e.sparse_initializer_size());
  for (int k = 0; k < e.sparse_initializer_size(); ++k) {
    EXPECT_EQ(without_annotations(a.sparse_initializer(k)),
              e.sparse_initializer(k).SerializeAsString());
  }
  ASSERT_EQ(a.node_size(), e.node_size());
  for (int k = 0; k < e.node_size(); ++k) {
    ASSERT_EQ(a.node(k).attribute_size(), e.node(k).attribute_size());
    for (int j = 0; j < e.node(k).attribute_size(); ++j) {
      EXPECT_EQ(without_annotations(a.node(k).attribute(j)),
                e.node(k).attribute(j).SerializeAsString());
    }
  }
}

onnx::ModelProto parse(const std::string& bytes) {
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(bytes));
  return m;
}

class Weights : public ::testing::Test {
 protected:
  void SetUp() override {
    original_ = weighted_model(97);
    test::write_file(dir_ / "m.onnx", original_.SerializeAsString());
  }
  test::TempDir dir_;
  onnx::ModelProto original_;
};

TEST_F(Weights, AnalysisIsTheSameWithTheWeightsSkipped) {
  // The same graph with its weights held elsewhere: only dims and types are left to read.
  onnx::ModelProto twin = original_;
  for (onnx::TensorProto& t : *twin.mutable_graph()->mutable_initializer()) {
    if (t.name() != "W") continue;
    t.clear_raw_data();
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    auto* e = t.add_external_data();
    e->set_key("location");
    e->set_value("w.bin");
  }
  test::write_file(dir_ / "twin.onnx", twin.SerializeAsString());
  auto a = run_cctx("analyze " + quoted(dir_ / "m.onnx") + " --format json");
  auto b = run_cctx("analyze " + quoted(dir_ / "twin.onnx") + " --format json");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const auto at = b.out.find("twin.onnx");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(a.out, b.out.replace(at, 9, "m.onnx"));
  // The kept int64 shape still feeds the Reshape: R is [N*97*96/96, 4, 24] = [N, 4, 24].
  const nlohmann::json report = nlohmann::json::parse(a.out);
  EXPECT_EQ(report["values"]["R"]["shape"], nlohmann::json::parse(R"(["N", 4, 24])"))
      << report["values"]["R"].dump();
}

TEST_F(Weights, WrittenModelHoldsEveryByteOfTheOriginal) {
  auto r = run_cctx("analyze " + quoted(dir_ / "m.onnx") + " --write-model " +
                    quoted(dir_ / "out.onnx"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const onnx::ModelProto written = parse(test::read_file(dir_ / "out.onnx"));
  EXPECT_GT(written.graph().value_info_size(), 0);  // annotated
  expect_same_tensors(written, original_);

  // From a stream, which cannot be read twice, the same bytes.
  auto piped = run_cctx("analyze /dev/stdin --write-model " + quoted(dir_ / "piped.onnx"),
                        "cat " + quoted(dir_ / "m.onnx") + " |");
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  expect_same_tensors(parse(test::read_file(dir_ / "piped.onnx")), original_);
  EXPECT_EQ(parse(test::read_file(dir_ / "piped.onnx")).graph().value_info_size(),
            written.graph().value_info_size());
}

TEST_F(Weights, ModelOverwrittenInPlaceItselfIsWrittenWhole) {
  // The output replaces the input: the weights are read from the old file before the rename.
  auto r =
      run_cctx("analyze " + quoted(dir_ / "m.onnx") + " --write-model " + quoted(dir_ / "m.onnx"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_same_tensors(parse(test::read_file(dir_ / "m.onnx")), original_);
}

TEST_F(Weights, FileChangedBeforeSavingIsRefusedAndTheTargetKept) {
  Model model = Model::load(dir_ / "m.onnx");
  // Rewritten in place (same inode, other bytes): the skipped weights are no longer there.
  test::write_file(dir_ / "m.onnx", weighted_model(61).SerializeAsString());
  test::write_file(dir_ / "target.onnx", "old");
  try {
    model.save(dir_ / "target.onnx");
    FAIL() << "saved";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("m.onnx: changed since it was read"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(test::read_file(dir_ / "target.onnx"), "old");
}

TEST_F(Weights, ModelFromAStreamWithoutItsWeightsCannotBeSaved) {
  // Analysed from a pipe, the weights are dropped (kDrop): the analysis is whole...
  auto r = run_cctx("analyze /dev/stdin --format json", "cat " + quoted(dir_ / "m.onnx") + " |");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["model"]["graph"], "weights");
  // ...but the model read without them refuses to be saved rather than write a model whose
  // tensors lost their data.
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const std::string bytes = test::read_file(dir_ / "m.onnx");
  std::thread writer([&] {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(pipe_fds[1], bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::close(pipe_fds[1]);
  });
  const std::string stream = "/dev/fd/" + std::to_string(pipe_fds[0]);
  Model model = Model::load(stream, {}, StreamPayloads::kDrop);
  writer.join();
  ::close(pipe_fds[0]);
  test::write_file(dir_ / "target.onnx", "old");
  EXPECT_THROW(model.save(dir_ / "target.onnx"), Error);
  EXPECT_EQ(test::read_file(dir_ / "target.onnx"), "old");
  // With --write-model the stream's weights are kept and written back whole.
  auto kept = run_cctx("analyze /dev/stdin --write-model " + quoted(dir_ / "copy.onnx"),
                       "cat " + quoted(dir_ / "m.onnx") + " |");
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  onnx::ModelProto original, copy;
  ASSERT_TRUE(original.ParseFromString(bytes));
  ASSERT_TRUE(copy.ParseFromString(test::read_file(dir_ / "copy.onnx")));
  ASSERT_EQ(copy.graph().initializer_size(), original.graph().initializer_size());
  for (int k = 0; k < original.graph().initializer_size(); ++k) {
    const onnx::TensorProto& a = original.graph().initializer(k);
    const onnx::TensorProto& b = copy.graph().initializer(k);
    EXPECT_EQ(a.name(), b.name());
    EXPECT_TRUE(a.raw_data() == b.raw_data()) << a.name();
    EXPECT_EQ(a.float_data_size(), b.float_data_size()) << a.name();
    EXPECT_EQ(a.int64_data_size(), b.int64_data_size()) << a.name();
  }
}

/// The model with one more initializer of 4096 x 8192 floats, a 128 MiB file, written in pieces
/// so that this process stays small (a child's peak counts the parent's pages at the fork):
/// fields appended to a serialized message merge into it.
std::filesystem::path write_big_model(const test::TempDir& dir) {
  const std::int64_t rows = 4096, columns = 8192;
  onnx::ModelProto m = weighted_model(rows);
  std::string bytes = m.SerializeAsString();
  onnx::TensorProto header;
  header.set_name("B");
  header.set_data_type(onnx::TensorProto::FLOAT);
  header.add_dims(rows);
  header.add_dims(columns);
  const std::uint64_t data_bytes = std::uint64_t(rows * columns * 4);
  std::string tensor = header.SerializeAsString();
  detail::append_varint(tensor, (9 << 3) | 2);  // raw_data
  detail::append_varint(tensor, data_bytes);
  std::string graph;
  detail::append_varint(graph, (5 << 3) | 2);  // initializer
  detail::append_varint(graph, tensor.size() + data_bytes);
  graph += tensor;
  detail::append_varint(bytes, (7 << 3) | 2);  // graph
  detail::append_varint(bytes, graph.size() + data_bytes);
  bytes += graph;
  std::ofstream out(dir / "big.onnx", std::ios::binary);
  out << bytes;
  const std::string piece(std::size_t{1} << 20, '\x3f');
  for (std::uint64_t done = 0; done < data_bytes; done += piece.size()) out << piece;
  return dir / "big.onnx";
}

#ifndef __SANITIZE_ADDRESS__  // ASan's allocator and shadow memory have other sizes
TEST(WeightsMemory, LargeWeightsAreNeverHeld) {
  test::TempDir dir;
  const std::filesystem::path big = write_big_model(dir);
  auto r = run_cctx("analyze " + quoted(big) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"B\""), std::string::npos);
  struct rusage usage {};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  EXPECT_LT(std::int64_t{usage.ru_maxrss} * 1024, std::int64_t{64} << 20);
}
#endif

/// Bytes this process has had from read() and its kind so far (/proc/self/io's rchar).
std::int64_t bytes_read_so_far() {
  std::ifstream io("/proc/self/io");
  std::string key;
  std::int64_t value = -1;
  while (io >> key >> value) {
    if (key == "rchar:") return value;
  }
  return -1;
}

// The loader reads the file through a small buffer and seeks over a payload longer than what it
// holds (structure_parse.hpp): of the 128 MiB initializer, nothing is read.
TEST(WeightsMemory, LargeWeightsAreNeverRead) {
  test::TempDir dir;
  const std::filesystem::path big = write_big_model(dir);
  const std::int64_t before = bytes_read_so_far();
  ASSERT_GE(before, 0) << "no /proc/self/io";
  const Model model = Model::load(big);
  const std::int64_t read = bytes_read_so_far() - before;
  EXPECT_GT(read, 0);
  EXPECT_LT(read, std::int64_t{1} << 20);
  const auto& initializers = model.proto().graph().initializer();
  ASSERT_FALSE(initializers.empty());
  EXPECT_EQ(initializers.rbegin()->name(), "B");
}

}  // namespace
}  // namespace cctx
