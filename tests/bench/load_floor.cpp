// `make bench` (issue 23): the floor under `cctx analyze` on a model file, the cost of reading
// its structure, which no analysis can beat. Per file, best of --rounds:
//   parse  the file's wire format read and walked with the tensor payloads left out
//          (detail::strip_file_payloads, as Model::load reads it) and the rest parsed by
//          protobuf: the floor;
//   load   Model::load, that parse and the model's validation (what cctx analyze starts with).
// Prints one JSON object per file for weights_bench.py: {"file", "parse_s", "load_s"}.
//
//   bench_load_floor [--rounds N] FILE...
#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "cctx/model.hpp"
#include "model/structure_parse.hpp"
#include "model/tensor_payloads.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The structure of `path`, parsed as Model::load does it, without the checks.
double timed_parse(const std::string& path) {
  const Clock::time_point start = Clock::now();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(path + ": cannot open");
  struct stat st {};
  ::fstat(fd, &st);
  cctx::detail::TensorPayloads payloads(path);
  std::string structure;
  int read_error = 0;
  const bool walked = cctx::detail::strip_file_payloads(fd, static_cast<std::uint64_t>(st.st_size),
                                                        payloads, structure, &read_error);
  ::close(fd);
  onnx::ModelProto proto;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(structure.data()),
                                            static_cast<int>(structure.size()));
  in.SetRecursionLimit(cctx::detail::kWireRecursionLimit);
  const bool parsed = walked && proto.ParseFromCodedStream(&in);
  if (!parsed) throw std::runtime_error(path + ": not a model");
  return seconds_since(start);
}

double timed_load(const std::string& path) {
  const Clock::time_point start = Clock::now();
  const cctx::Model model = cctx::Model::load(path);
  return seconds_since(start);
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 5;
  std::vector<std::string> files;
  for (int k = 1; k < argc; ++k) {
    const std::string arg = argv[k];
    if (arg == "--rounds" && k + 1 < argc) {
      rounds = std::max(1, std::stoi(argv[++k]));
    } else {
      files.push_back(arg);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s [--rounds N] FILE...\n", argv[0]);
    return 2;
  }
  try {
    for (const std::string& file : files) {
      double parse = std::numeric_limits<double>::infinity(), load = parse;
      for (int r = 0; r < rounds; ++r) {  // interleaved: this VM's speed drifts
        parse = std::min(parse, timed_parse(file));
        load = std::min(load, timed_load(file));
      }
      std::printf("{\"file\": \"%s\", \"parse_s\": %.6f, \"load_s\": %.6f}\n", file.c_str(), parse,
                  load);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
