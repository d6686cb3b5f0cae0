// The framework's access to an ExprPool's storage (RunningSum, the cache hints): ExprPool names
// this struct a friend, so its public interface need not carry them.
#pragma once

#include "cctx/expr.hpp"
#include "expr/pool_impl.hpp"

namespace cctx::detail {

struct PoolAccess {
  static PoolImpl& impl(ExprPool& pool) { return *pool.impl_; }
  static const PoolImpl& impl(const ExprPool& pool) { return *pool.impl_; }
};

}  // namespace cctx::detail
