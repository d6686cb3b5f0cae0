// The SDK's ExprApi function table over the host's ExprPool. Nothing may throw across the
// boundary: an engine error becomes a fresh symbol and a message the caller attaches to the node.
#pragma once

#include <cctx/sdk/dims.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cctx/expr.hpp"

namespace cctx {

class ExprBridge {
 public:
  explicit ExprBridge(ExprPool& pool);
  ExprBridge(const ExprBridge&) = delete;
  ExprBridge& operator=(const ExprBridge&) = delete;

  const sdk::ExprApi& api() const { return api_; }
  ExprPool& pool() const { return *pool_; }
  /// Errors raised since the last call, in order.
  std::vector<std::string> take_errors() { return std::exchange(errors_, {}); }

  // Used by the table's static functions.
  Expr recover(const std::exception& e);

 private:
  sdk::ExprApi api_;
  ExprPool* pool_;
  std::vector<std::string> errors_;
};

inline Expr to_expr(std::uint32_t handle) { return Expr{handle}; }

}  // namespace cctx
