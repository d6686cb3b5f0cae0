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

constexpr const char* kProtoName = "onnx/onnx-ml.proto";

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
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " OUTPUT.pb\n";
    return 2;
  }
  const google::protobuf::FileDescriptor* file = onnx::ModelProto::descriptor()->file();
  // The name framework/CMakeLists.txt asks protoc to generate, and Debian's onnx-ml.pb.h is of.
  if (file->name() != kProtoName) {
    std::cerr << argv[0] << ": ONNX's messages come from " << file->name() << ", not " << kProtoName
              << "\n";
    return 1;
  }
  google::protobuf::FileDescriptorSet set;
  std::set<std::string> added;
  add_with_dependencies(file, added, set);
  std::ofstream out(argv[1], std::ios::binary);
  if (!set.SerializeToOstream(&out)) {
    std::cerr << argv[0] << ": cannot write " << argv[1] << "\n";
    return 1;
  }
  return 0;
}
