/// @file dims.hpp
/// Symbolic dimensions for plugins: value-semantics handles into the host's interned expression
/// engine, with arithmetic operators. A plugin never owns expression memory; every operation is
/// a call through the host's function table `ExprApi`.
///
/// @code
///   Dim n = node.input_dim(0, 0);
///   Dim out = floor_div(n + 2 * pad - kernel, stride) + 1;   // canonical and simplified
/// @endcode
#pragma once

#include <cstddef>
#include <cstdint>

#include "cctx/sdk/abi.hpp"

namespace cctx::sdk {
inline namespace v1 {

/// Operations of the host function table.
/// @since 1.0, every enumerator
enum class ExprOp : std::int32_t {
  kAdd = 0,
  kSub = 1,
  kMul = 2,
  kFloorDiv = 3,  ///< a // b, floor
  kExactDiv = 4,  ///< a /: b, the caller guarantees exactness
  kMod = 5,       ///< a % b, sign of the divisor
  kCeilDiv = 6,   ///< CeilToInt(a, b)
  kMax = 7,       ///< n-ary, dominated arguments dropped under the symbols' bounds
  kMin = 8,
};

/// What the host could prove about two expressions (never a guess: kUnknown otherwise).
/// @since 1.0, every enumerator
enum class DimRelation : std::int32_t { kEq, kLt, kLe, kGt, kGe, kNe, kUnknown };

/// Host function table. Owned by the host, valid while the rule that received it runs. Functions
/// never fail: an arithmetic error (int64 overflow, a size cap, a divisor of 0) yields a fresh
/// symbol and a diagnostic recorded by the host against the node being analysed. A handle that
/// names no expression of the host is never followed: the function returns a harmless value (the
/// integer 1, "not an integer", kUnknown, unbounded) and the rule call that passed it fails,
/// whatever it returns ("returned an invalid expression handle ...").
struct ExprApi {
  std::uint32_t struct_size;  ///< sizeof(ExprApi) as the host compiled it  @since 1.0
  void* pool;                 ///< opaque host state, passed back to every function  @since 1.0
  std::uint32_t (*integer)(void* pool, std::int64_t value) noexcept;  ///< @since 1.0
  std::uint32_t (*binary)(void* pool, ExprOp op, std::uint32_t a,
                          std::uint32_t b) noexcept;  ///< @since 1.0
  std::uint32_t (*nary)(void* pool, ExprOp op, const std::uint32_t* args,
                        std::uint32_t count) noexcept;  ///< @since 1.0
  /// 1 and *out set when the expression is an integer, else 0.
  std::int32_t (*as_int)(void* pool, std::uint32_t e, std::int64_t* out) noexcept;  ///< @since 1.0
  DimRelation (*compare)(void* pool, std::uint32_t a, std::uint32_t b) noexcept;    ///< @since 1.0
  /// Writes at most `capacity` bytes of the canonical text (not NUL-terminated); returns the
  /// full length.
  std::size_t (*print)(void* pool, std::uint32_t e, char* buffer,
                       std::size_t capacity) noexcept;  ///< @since 1.0
  /// Lenient parse of a dimension expression (an unparseable text becomes an opaque symbol).
  std::uint32_t (*parse)(void* pool, const char* text, std::size_t size) noexcept;  ///< @since 1.0
  /// Lower and upper bound of the expression's interval (INT64_MIN/INT64_MAX = unbounded).
  void (*bounds)(void* pool, std::uint32_t e, std::int64_t* lo,
                 std::int64_t* hi) noexcept;  ///< @since 1.0
};

/// A symbolic dimension: an interned expression handle plus the table that made it. Cheap to copy.
/// Two Dims are `same()` exactly when their canonical forms are equal.
class Dim {
 public:
  constexpr Dim() noexcept = default;
  constexpr Dim(const ExprApi* api, std::uint32_t handle) noexcept : api_(api), handle_(handle) {}
  /// A concrete dimension.
  static Dim constant(const ExprApi& api, std::int64_t value) noexcept {
    return Dim(&api, api.integer(api.pool, value));
  }

  constexpr bool valid() const noexcept { return api_ != nullptr; }
  constexpr std::uint32_t handle() const noexcept { return handle_; }
  constexpr const ExprApi* api() const noexcept { return api_; }

  /// True and *out set when the dimension is a known integer.
  bool get_int(std::int64_t* out) const noexcept {
    return api_ != nullptr && api_->as_int(api_->pool, handle_, out) != 0;
  }
  bool is_const() const noexcept {
    std::int64_t v;
    return get_int(&v);
  }
  /// True when the dimension is the integer `v`.
  bool is(std::int64_t v) const noexcept {
    std::int64_t x;
    return get_int(&x) && x == v;
  }
  /// Structural identity of canonical forms (an O(1) handle compare).
  constexpr bool same(Dim other) const noexcept { return handle_ == other.handle_; }

  DimRelation compare(Dim other) const noexcept {
    const ExprApi* api = api_ != nullptr ? api_ : other.api_;
    if (api == nullptr) return DimRelation::kUnknown;
    return api->compare(api->pool, handle_, other.handle_);
  }
  bool provably_eq(Dim o) const noexcept { return same(o) || compare(o) == DimRelation::kEq; }
  bool provably_ne(Dim o) const noexcept {
    DimRelation r = compare(o);
    return r == DimRelation::kNe || r == DimRelation::kLt || r == DimRelation::kGt;
  }
  bool provably_ge(Dim o) const noexcept {
    // Against a constant the bounds usually decide (seq >= 1), and they cost a lookup where a
    // comparison runs proofs.
    std::int64_t c, lo, hi;
    if (o.get_int(&c)) {
      bounds(&lo, &hi);
      if (lo >= c) return true;
    }
    DimRelation r = compare(o);
    return r == DimRelation::kEq || r == DimRelation::kGe || r == DimRelation::kGt;
  }
  bool provably_gt(Dim o) const noexcept { return compare(o) == DimRelation::kGt; }
  void bounds(std::int64_t* lo, std::int64_t* hi) const noexcept {
    if (api_ == nullptr) {
      *lo = INT64_MIN;
      *hi = INT64_MAX;
      return;
    }
    api_->bounds(api_->pool, handle_, lo, hi);
  }

  /// The integer v, from this Dim's table (an unset Dim lifts to an unset Dim).
  Dim lift(std::int64_t v) const noexcept { return api_ == nullptr ? Dim() : constant(*api_, v); }

  /// A Dim never set (`Dim()`, handle 0) has no table: the other operand's serves, and the
  /// host refuses handle 0, failing the rule ("used a Dim that was never set"). Two unset Dims
  /// give an unset Dim.
  friend Dim apply(ExprOp op, Dim a, Dim b) noexcept {
    const ExprApi* api = a.api_ != nullptr ? a.api_ : b.api_;
    if (api == nullptr) return Dim();
    return Dim(api, api->binary(api->pool, op, a.handle_, b.handle_));
  }
  friend Dim operator+(Dim a, Dim b) noexcept { return apply(ExprOp::kAdd, a, b); }
  friend Dim operator-(Dim a, Dim b) noexcept { return apply(ExprOp::kSub, a, b); }
  friend Dim operator*(Dim a, Dim b) noexcept { return apply(ExprOp::kMul, a, b); }
  friend Dim operator-(Dim a) noexcept { return a.lift(0) - a; }
  friend Dim operator+(Dim a, std::int64_t b) noexcept { return a + a.lift(b); }
  friend Dim operator+(std::int64_t a, Dim b) noexcept { return b.lift(a) + b; }
  friend Dim operator-(Dim a, std::int64_t b) noexcept { return a - a.lift(b); }
  friend Dim operator-(std::int64_t a, Dim b) noexcept { return b.lift(a) - b; }
  friend Dim operator*(Dim a, std::int64_t b) noexcept { return a * a.lift(b); }
  friend Dim operator*(std::int64_t a, Dim b) noexcept { return b.lift(a) * b; }
  Dim& operator+=(Dim b) noexcept { return *this = *this + b; }
  Dim& operator-=(Dim b) noexcept { return *this = *this - b; }
  Dim& operator*=(Dim b) noexcept { return *this = *this * b; }

  friend Dim floor_div(Dim a, Dim b) noexcept { return apply(ExprOp::kFloorDiv, a, b); }
  friend Dim floor_div(Dim a, std::int64_t b) noexcept { return floor_div(a, a.lift(b)); }
  friend Dim exact_div(Dim a, Dim b) noexcept { return apply(ExprOp::kExactDiv, a, b); }
  friend Dim exact_div(Dim a, std::int64_t b) noexcept { return exact_div(a, a.lift(b)); }
  friend Dim ceil_div(Dim a, Dim b) noexcept { return apply(ExprOp::kCeilDiv, a, b); }
  friend Dim ceil_div(Dim a, std::int64_t b) noexcept { return ceil_div(a, a.lift(b)); }
  friend Dim mod(Dim a, Dim b) noexcept { return apply(ExprOp::kMod, a, b); }
  friend Dim mod(Dim a, std::int64_t b) noexcept { return mod(a, a.lift(b)); }
  friend Dim max(Dim a, Dim b) noexcept { return apply(ExprOp::kMax, a, b); }
  friend Dim max(Dim a, std::int64_t b) noexcept { return max(a, a.lift(b)); }
  friend Dim min(Dim a, Dim b) noexcept { return apply(ExprOp::kMin, a, b); }
  friend Dim min(Dim a, std::int64_t b) noexcept { return min(a, a.lift(b)); }

  /// Canonical text into `buffer` (at most `capacity` bytes, not NUL-terminated); returns the
  /// full length.
  std::size_t print(char* buffer, std::size_t capacity) const noexcept {
    return api_ == nullptr ? 0 : api_->print(api_->pool, handle_, buffer, capacity);
  }

 private:
  const ExprApi* api_ = nullptr;
  std::uint32_t handle_ = 0;
};

}  // namespace v1
}  // namespace cctx::sdk
