// The long chain model of the scale tests (see chain_model.hpp).
#include "chain_model.hpp"

#include <array>
#include <cctype>
#include <string>

#include "model_builder.hpp"

namespace cctx::test {

void write_chain_model(const std::filesystem::path& path, std::size_t nodes) {
  ModelBuilder b(17);
  b.input("X", kFloat, {"batch", 16});
  b.initializer(tensor_zeros("W", kFloat, {16, 16}));
  b.initializer(tensor_zeros("B", kFloat, {16}));
  b.initializer_ints("S", {-1, 16});
  static constexpr std::array<const char*, 6> kOps = {"MatMul",  "Add",     "Relu",
                                                      "Reshape", "Sigmoid", "Mul"};
  std::string current = "X";
  for (std::size_t k = 0; k < nodes; ++k) {
    const std::string op = kOps[k % kOps.size()], out = "v" + std::to_string(k);
    std::vector<std::string> inputs = {current};
    if (op == "MatMul") inputs.push_back("W");
    if (op == "Add") inputs.push_back("B");
    if (op == "Reshape") inputs.push_back("S");
    if (op == "Mul") inputs.push_back("v" + std::to_string(k - 2));  // keeps a value alive longer
    std::string name = op;
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    b.node(op, inputs, {out}, {}, "", name + "_" + std::to_string(k));
    current = out;
  }
  b.output(current);
  b.build().save(path);
}

}  // namespace cctx::test
