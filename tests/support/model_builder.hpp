// Builds small ONNX models in C++ for tests (one node or a few), and runs the real pipeline on
// them with the default profile (the real libcctx_onnx.so).
//
//   test::ModelBuilder b(18);
//   b.input("X", test::kFloat, {"N", 4});
//   b.initializer_ints("shape", {-1, 2});
//   b.node("Reshape", {"X", "shape"}, {"Y"});
//   test::Analysis a = test::analyze(b);
//   EXPECT_EQ(a.dims("Y"), (test::Dims{"2*N", "2"}));
#pragma once

#include <onnx/onnx_pb.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "cctx/compute_context.hpp"
#include "cctx/host.hpp"
#include "cctx/model.hpp"

namespace cctx::test {

inline constexpr int kFloat = onnx::TensorProto::FLOAT;
inline constexpr int kFloat16 = onnx::TensorProto::FLOAT16;
inline constexpr int kDouble = onnx::TensorProto::DOUBLE;
inline constexpr int kInt64 = onnx::TensorProto::INT64;
inline constexpr int kInt32 = onnx::TensorProto::INT32;
inline constexpr int kInt8 = onnx::TensorProto::INT8;
inline constexpr int kUint8 = onnx::TensorProto::UINT8;
inline constexpr int kBool = onnx::TensorProto::BOOL;
inline constexpr int kString = onnx::TensorProto::STRING;

/// A dim of a declared shape: an integer or a dim_param text ("" = neither).
using DimSpec = std::variant<std::int64_t, std::string>;
struct ShapeSpec {
  bool has_shape = true;
  std::vector<DimSpec> dims;
  ShapeSpec(std::initializer_list<DimSpec> d) : dims(d) {}
  ShapeSpec(std::vector<DimSpec> d) : dims(std::move(d)) {}
  static ShapeSpec unknown() {
    ShapeSpec s({});
    s.has_shape = false;
    return s;
  }
};
/// Expected dims as canonical text.
using Dims = std::vector<std::string>;

// ---- attributes --------------------------------------------------------------------------------
onnx::AttributeProto attr(const std::string& name, std::int64_t v);
onnx::AttributeProto attr(const std::string& name, int v);
onnx::AttributeProto attr(const std::string& name, float v);
onnx::AttributeProto attr(const std::string& name, const char* v);
onnx::AttributeProto attr(const std::string& name, const std::string& v);
onnx::AttributeProto attr(const std::string& name, std::vector<std::int64_t> v);
onnx::AttributeProto attr(const std::string& name, std::vector<float> v);
onnx::AttributeProto attr(const std::string& name, std::vector<std::string> v);
onnx::AttributeProto attr(const std::string& name, const onnx::TensorProto& v);
onnx::AttributeProto attr(const std::string& name, const onnx::GraphProto& v);

/// Tensors for initializers and attributes.
onnx::TensorProto tensor_ints(const std::string& name, std::vector<std::int64_t> values,
                              std::vector<std::int64_t> dims = {-1}, int dtype = kInt64);
onnx::TensorProto tensor_floats(const std::string& name, std::vector<float> values,
                                std::vector<std::int64_t> dims = {-1});
/// A tensor of `dims` filled with zeros (no small payload needed).
onnx::TensorProto tensor_zeros(const std::string& name, int dtype, std::vector<std::int64_t> dims);

class ModelBuilder {
 public:
  explicit ModelBuilder(std::int64_t opset = 18, std::int64_t ir_version = 8);

  ModelBuilder& opset(const std::string& domain, std::int64_t version);
  ModelBuilder& input(const std::string& name, int dtype, ShapeSpec shape);
  ModelBuilder& output(const std::string& name, int dtype = 0,
                       ShapeSpec shape = ShapeSpec::unknown());
  ModelBuilder& value_info(const std::string& name, int dtype, ShapeSpec shape);
  ModelBuilder& initializer(const onnx::TensorProto& t);
  ModelBuilder& initializer_ints(const std::string& name, std::vector<std::int64_t> values,
                                 std::vector<std::int64_t> dims = {-1});
  ModelBuilder& initializer_floats(const std::string& name, std::vector<float> values,
                                   std::vector<std::int64_t> dims = {-1});
  ModelBuilder& node(const std::string& op, std::vector<std::string> inputs,
                     std::vector<std::string> outputs, std::vector<onnx::AttributeProto> attrs = {},
                     const std::string& domain = "", const std::string& name = "");

  /// The graph alone (for If/Loop/Scan bodies): inputs, outputs, nodes, initializers.
  onnx::GraphProto graph() const;
  Model build() const;

 private:
  std::unique_ptr<onnx::ModelProto> model_;
};

/// A graph body for control flow: same API, no opsets.
using GraphBuilder = ModelBuilder;

/// The analysed model and its context, with lookups by value name.
struct Analysis {
  std::unique_ptr<Model> model;
  std::unique_ptr<Host> host;
  std::unique_ptr<ComputeContext> ctx;

  ValueId id(const std::string& name) const;
  const ValueShape& shape(const std::string& name) const;
  /// Canonical dims; {"<unknown rank>"} for an unknown rank.
  Dims dims(const std::string& name) const;
  /// Canonical text of the known value's elements; empty when none.
  Dims value(const std::string& name) const;
  std::int32_t dtype(const std::string& name) const;
  /// Canonical text of node n's scratch bytes.
  std::string scratch(NodeId n) const;
  std::string print(Expr e) const;
  /// Every warning joined by newlines (for failure messages).
  std::string warnings() const;
  bool has_warning(const std::string& needle) const;
  /// The runtime's own bytes once `nodes_run` nodes have run under `profile`
  /// (memory.run_overhead_*), counted by hand: a base, a slot per main-graph value, a part per
  /// node.
  std::int64_t run_frame_bytes(const Profile& profile, std::size_t nodes_run) const;
};

/// Runs the full pipeline with the default profile (profile changes applied by `adjust`).
Analysis analyze(const ModelBuilder& builder, void (*adjust)(Profile&) = nullptr);
Analysis analyze(Model model, const Profile& profile);

}  // namespace cctx::test
