// The payload walk (src/model/structure_parse.hpp) gives the same structure whatever pieces the
// file arrives in: plain fields are copied in runs while they lie in the buffer at hand, and one
// that straddles two buffers goes field by field. Fields whose varints are not in their shortest
// form (valid wire format) must come out as protobuf reads them.
#include "model/structure_parse.hpp"

#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <string>
#include <string_view>

#include "model/tensor_payloads.hpp"
#include "model/wire_varint.hpp"

namespace cctx::detail {
namespace {

using namespace std::string_view_literals;

/// A graph of named nodes with attributes, a small Constant (kept) and a large initializer
/// (stripped), serialized.
std::string model_bytes() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto& g = *model.mutable_graph();
  g.set_name("walk");
  for (int k = 0; k < 40; ++k) {
    onnx::NodeProto& n = *g.add_node();
    n.set_name("/block." + std::to_string(k) + "/Transpose_with_a_rather_long_name");
    n.set_op_type("Transpose");
    n.add_input(k == 0 ? "x" : "t" + std::to_string(k - 1));
    n.add_output("t" + std::to_string(k));
    onnx::AttributeProto& perm = *n.add_attribute();
    perm.set_name("perm");
    perm.set_type(onnx::AttributeProto::INTS);
    perm.add_ints(1);
    perm.add_ints(0);
  }
  onnx::NodeProto& c = *g.add_node();
  c.set_op_type("Constant");
  c.add_output("shape");
  onnx::AttributeProto& value = *c.add_attribute();
  value.set_name("value");
  value.set_type(onnx::AttributeProto::TENSOR);
  value.mutable_t()->add_dims(2);
  value.mutable_t()->set_data_type(onnx::TensorProto::INT64);
  value.mutable_t()->add_int64_data(3);
  value.mutable_t()->add_int64_data(5);
  onnx::TensorProto& w = *g.add_initializer();
  w.set_name("w");
  w.add_dims(4096);
  w.set_data_type(onnx::TensorProto::FLOAT);
  w.set_raw_data(std::string(4096 * 4, '\x11'));
  return model.SerializeAsString();
}

std::string strip_in_blocks(const std::string& bytes, int block, TensorPayloads& payloads) {
  google::protobuf::io::ArrayInputStream input(bytes.data(), static_cast<int>(bytes.size()), block);
  std::string structure;
  EXPECT_TRUE(strip_payloads(input, bytes.size(), payloads, structure)) << "block " << block;
  return structure;
}

onnx::ModelProto parsed(const std::string& structure) {
  onnx::ModelProto model;
  EXPECT_TRUE(model.ParseFromString(structure));
  return model;
}

TEST(StructureParse, SameStructureWhateverPiecesTheFileComesIn) {
  const std::string bytes = model_bytes();
  TensorPayloads whole_payloads("whole");
  const std::string whole = strip_in_blocks(bytes, -1, whole_payloads);
  ASSERT_EQ(whole_payloads.count(), 1U);  // the initializer's data, not the Constant's
  ASSERT_LT(whole.size(), bytes.size() / 2);
  const onnx::ModelProto model = parsed(whole);
  ASSERT_EQ(model.graph().node_size(), 41);
  EXPECT_EQ(model.graph().node(7).name(), "/block.7/Transpose_with_a_rather_long_name");
  EXPECT_EQ(model.graph().node(40).attribute(0).t().int64_data_size(), 2);
  EXPECT_FALSE(model.graph().initializer(0).has_raw_data());
  for (const int block : {1, 2, 3, 5, 7, 13, 64, 100, 1000}) {
    TensorPayloads payloads("pieces");
    const std::string pieces = strip_in_blocks(bytes, block, payloads);
    EXPECT_EQ(pieces, whole) << "block " << block;
    EXPECT_EQ(payloads.count(), 1U);
  }
}

TEST(StructureParse, VarintsNotInShortestFormAreReadAsProtobufReadsThem) {
  // A node of a graph whose tags and lengths take more bytes than they need: the name's length
  // as two bytes, the op_type's tag as two, an attribute's int as ten.
  std::string node;
  node += '\x1a';  // name (3), length-delimited
  node += "\x85\x00"sv;
  node += "n_one";
  node += "\xa2\x00"sv;  // op_type (4), length-delimited, tag in two bytes
  node += '\x04';
  node += "Relu";
  std::string attribute;
  attribute += '\x0a';  // name
  attribute += '\x01';
  attribute += 'k';
  attribute += '\x18';  // i (3), varint: 1 in ten bytes
  attribute += "\x81\x80\x80\x80\x80\x80\x80\x80\x80\x00"sv;
  attribute += '\xa0';  // type (20), varint
  attribute += '\x01';
  attribute += '\x02';  // INT
  node += '\x2a';       // attribute (5)
  append_varint(node, attribute.size());
  node += attribute;
  std::string graph;
  graph += '\x0a';  // node (1)
  graph += static_cast<char>(0x80 | (node.size() & 0x7f));
  graph += static_cast<char>(node.size() >> 7);  // padded to two bytes
  graph += node;
  std::string bytes;
  bytes += '\x08';  // ir_version
  bytes += '\x08';
  bytes += '\x3a';  // graph (7)
  append_varint(bytes, graph.size());
  bytes += graph;

  onnx::ModelProto reference;
  ASSERT_TRUE(reference.ParseFromString(bytes));
  ASSERT_EQ(reference.graph().node(0).attribute(0).i(), 1);
  for (const int block : {-1, 1, 2, 3, 4, 6, 9}) {
    TensorPayloads payloads("odd");
    const onnx::ModelProto model = parsed(strip_in_blocks(bytes, block, payloads));
    EXPECT_EQ(model.SerializeAsString(), reference.SerializeAsString()) << "block " << block;
  }
}

TEST(StructureParse, BrokenWireFormatIsRefusedInAnyPieces) {
  std::string bytes = model_bytes();
  bytes.resize(bytes.size() - 5000);  // inside the initializer's data: its length runs past
  for (const int block : {-1, 1, 7, 64}) {
    google::protobuf::io::ArrayInputStream input(bytes.data(), static_cast<int>(bytes.size()),
                                                 block);
    TensorPayloads payloads("cut");
    std::string structure;
    EXPECT_FALSE(strip_payloads(input, bytes.size(), payloads, structure)) << "block " << block;
  }
  std::string cut_in_a_name = model_bytes().substr(0, 60);  // inside the first node
  TensorPayloads payloads("cut");
  std::string structure;
  EXPECT_FALSE(strip_payloads(cut_in_a_name, payloads, structure));
}

}  // namespace
}  // namespace cctx::detail
