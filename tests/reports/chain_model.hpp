// A long model for the report tests at scale: a chain of MatMul, Add, Relu, Reshape, Sigmoid and
// Mul nodes over a symbolic `batch`, with shared initializers so the file stays small.
#pragma once

#include <cstddef>
#include <filesystem>

namespace cctx::test {

/// Writes a chain of `nodes` named nodes ("matmul_0", "add_1", ...) to `path`.
void write_chain_model(const std::filesystem::path& path, std::size_t nodes);

}  // namespace cctx::test
