// Writes the descriptor of ONNX's messages, as compiled into the installed libonnx_proto, as a
// FileDescriptorSet: protoc generates the `cctx` executable's own copy of the message classes
// from it (framework/CMakeLists.txt, "cctx_onnx_messages"), so that copy is the installed onnx's
// schema exactly, with no .proto file of ONNX's in this repository.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <onnx/onnx_pb.h>

#include <fstream>
#include <iostream>
#include <set>
#include <string>

namespace {

void add_with_dependencies(const google::protobuf::FileDescriptor* file,
                           std::set<std::string>& added, google::protobuf::FileDescriptorSet& set) {
  if (!added.insert(file->name()).second) return;
  for (int i = 0; i < file->dependency_count(); ++i) {
    add_with_dependencies(file->dependency(i), added, set);
  }
  file->CopyTo(set.add_file());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " OUTPUT.pb PROTO_NAME_OUTPUT\n";
    return 2;
  }
  const google::protobuf::FileDescriptor* file = onnx::ModelProto::descriptor()->file();
  google::protobuf::FileDescriptorSet set;
  std::set<std::string> added;
  add_with_dependencies(file, added, set);
  std::ofstream out(argv[1], std::ios::binary);
  if (!set.SerializeToOstream(&out)) {
    std::cerr << argv[0] << ": cannot write " << argv[1] << "\n";
    return 1;
  }
  // The file's name inside the set (onnx/onnx-ml.proto), which protoc is asked to generate.
  std::ofstream name(argv[2]);
  name << file->name();
  return name ? 0 : 1;
}
