// The SDK's ExprApi function table over the host's ExprPool. Nothing may throw across the
// boundary: an engine error becomes a fresh symbol and a message the caller attaches to the node.
// Nothing a plugin hands back is trusted either: a handle that names no expression of the pool
// fails the running rule call (see reject()).
#pragma once

#include <cctx/sdk/dims.hpp>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "cctx/expr.hpp"

namespace cctx {

/// An expression handle a plugin passed to the host that names no expression, and the entry
/// point it came through ("ExprApi::binary", "IShapeSink::set_output"); `where` is null when
/// there is none.
struct InvalidHandle {
  std::uint32_t handle = 0;
  const char* where = nullptr;
  /// For a read the node cannot answer (ExprBridge::misread), what was read.
  std::string misread;
  explicit operator bool() const { return where != nullptr; }
};

/// The rule error for an invalid handle: "returned an invalid expression handle 3000000000
/// through IScratchSink::set_bytes".
std::string invalid_handle_error(const InvalidHandle& bad);

class ExprBridge {
 public:
  explicit ExprBridge(ExprPool& pool);
  ExprBridge(const ExprBridge&) = delete;
  ExprBridge& operator=(const ExprBridge&) = delete;

  const sdk::ExprApi& api() const { return api_; }
  ExprPool& pool() const { return *pool_; }
  /// Errors raised since the last call, in order.
  std::vector<std::string> take_errors() { return std::exchange(errors_, {}); }

  /// True when `handle` names an expression of the pool. Handle 0 never does (the pool keeps it
  /// for "never set": an SDK `Dim()`). The pool only grows, so a count read once stays a lower
  /// bound: a handle below it passes with two compares, and only one at or above it reads the
  /// pool's count again.
  bool valid(std::uint32_t handle) {
    if (handle != 0 && handle < known_count_) [[likely]]
      return true;
    return recount(handle);
  }
  /// Marks the running rule call as failed by a read the node cannot answer (`what`: "dim 2 of
  /// input 0 'X', whose rank is 2") through `where`, and returns handle 0, which names nothing:
  /// a rule that goes on with it fails anyway.
  [[gnu::cold]] std::uint32_t misread(const char* where, std::string what);
  /// Marks the running rule call as failed by `handle` (the first one is kept) and returns a
  /// harmless valid handle, the integer 1, for the plugin to go on with: its results are thrown
  /// away once it returns.
  [[gnu::cold]] std::uint32_t reject(std::uint32_t handle, const char* where);
  /// True when a handle was rejected since the last take_invalid(); checked after every rule.
  bool has_invalid() const { return invalid_.where != nullptr; }
  /// The first invalid handle since the last call, if any, and clears it. A control-flow rule
  /// runs its bodies' rules from inside its own call: the shape stage takes the state before a
  /// body and puts it back after, so each call sees only its own.
  InvalidHandle take_invalid() { return std::exchange(invalid_, InvalidHandle{}); }
  void restore_invalid(InvalidHandle outer) { invalid_ = std::move(outer); }

  // Used by the table's static functions.
  Expr recover(const std::exception& e);

 private:
  sdk::ExprApi api_;
  ExprPool* pool_;
  std::vector<std::string> errors_;
  bool recount(std::uint32_t handle);

  std::size_t known_count_ = 0;
  InvalidHandle invalid_;
};

inline Expr to_expr(std::uint32_t handle) { return Expr{handle}; }

/// Of two handles, the one to check: ExprBridge::valid(worst(a, b)) holds exactly when both are
/// valid. Invalid handles are 0 and those past the pool; on `h - 1` (0 wraps to the top) the
/// larger is invalid whenever either is, so one check covers a whole list.
constexpr std::uint32_t worst(std::uint32_t a, std::uint32_t b) { return b - 1 > a - 1 ? b : a; }
/// The handle to check of `count` handles (count >= 1).
inline std::uint32_t worst_of(const std::uint32_t* handles, std::size_t count) {
  std::uint32_t w = handles[0];
  for (std::size_t k = 1; k < count; ++k) w = worst(w, handles[k]);
  return w;
}

}  // namespace cctx
