#include "pipeline/expr_bridge.hpp"

#include <algorithm>
#include <cstring>

namespace cctx {

namespace {

ExprBridge& self(void* p) { return *static_cast<ExprBridge*>(p); }

std::uint32_t api_integer(void* p, std::int64_t value) noexcept {
  try {
    return self(p).pool().integer(value).id;
  } catch (const std::exception& e) {
    return self(p).recover(e).id;
  }
}

std::uint32_t api_binary(void* p, sdk::ExprOp op, std::uint32_t a, std::uint32_t b) noexcept {
  ExprBridge& bridge = self(p);
  if (const std::uint32_t top = worst(a, b); !bridge.valid(top)) {
    return bridge.reject(top, "ExprApi::binary");
  }
  ExprPool& pool = bridge.pool();
  try {
    Expr x{a}, y{b};
    switch (op) {
      case sdk::ExprOp::kAdd:
        return pool.add(x, y).id;
      case sdk::ExprOp::kSub:
        return pool.sub(x, y).id;
      case sdk::ExprOp::kMul:
        return pool.mul(x, y).id;
      case sdk::ExprOp::kFloorDiv:
        return pool.floor_div(x, y).id;
      case sdk::ExprOp::kExactDiv:
        return pool.exact_div(x, y).id;
      case sdk::ExprOp::kMod:
        return pool.mod(x, y).id;
      case sdk::ExprOp::kCeilDiv:
        return pool.ceil_div(x, y).id;
      case sdk::ExprOp::kMax:
        return pool.max(x, y).id;
      case sdk::ExprOp::kMin:
        return pool.min(x, y).id;
    }
    throw std::invalid_argument("unknown expression operation " +
                                std::to_string(static_cast<int>(op)));
  } catch (const std::exception& e) {
    return self(p).recover(e).id;
  }
}

std::uint32_t api_nary(void* p, sdk::ExprOp op, const std::uint32_t* args,
                       std::uint32_t count) noexcept {
  ExprBridge& bridge = self(p);
  ExprPool& pool = bridge.pool();
  try {
    std::vector<Expr> exprs(count);
    for (std::uint32_t k = 0; k < count; ++k) {
      if (!bridge.valid(args[k])) return bridge.reject(args[k], "ExprApi::nary");
      exprs[k] = Expr{args[k]};
    }
    switch (op) {
      case sdk::ExprOp::kAdd:
        return pool.sum(exprs).id;
      case sdk::ExprOp::kMul:
        return pool.product(exprs).id;
      case sdk::ExprOp::kMax:
        return pool.max(exprs).id;
      case sdk::ExprOp::kMin:
        return pool.min(exprs).id;
      default:
        if (count == 2) return api_binary(p, op, args[0], args[1]);
        throw std::invalid_argument("operation " + std::to_string(static_cast<int>(op)) +
                                    " is not n-ary");
    }
  } catch (const std::exception& e) {
    return self(p).recover(e).id;
  }
}

std::int32_t api_as_int(void* p, std::uint32_t e, std::int64_t* out) noexcept {
  if (!self(p).valid(e)) {
    self(p).reject(e, "ExprApi::as_int");
    return 0;
  }
  std::optional<std::int64_t> v = self(p).pool().as_int(Expr{e});
  if (!v) return 0;
  *out = *v;
  return 1;
}

sdk::DimRelation api_compare(void* p, std::uint32_t a, std::uint32_t b) noexcept {
  if (const std::uint32_t top = worst(a, b); !self(p).valid(top)) {
    self(p).reject(top, "ExprApi::compare");
    return sdk::DimRelation::kUnknown;
  }
  try {
    switch (self(p).pool().compare(Expr{a}, Expr{b})) {
      case Relation::kEq:
        return sdk::DimRelation::kEq;
      case Relation::kLt:
        return sdk::DimRelation::kLt;
      case Relation::kLe:
        return sdk::DimRelation::kLe;
      case Relation::kGt:
        return sdk::DimRelation::kGt;
      case Relation::kGe:
        return sdk::DimRelation::kGe;
      case Relation::kNe:
        return sdk::DimRelation::kNe;
      case Relation::kUnknown:
        break;
    }
  } catch (const std::exception&) {
  }
  return sdk::DimRelation::kUnknown;
}

std::size_t api_print(void* p, std::uint32_t e, char* buffer, std::size_t capacity) noexcept {
  if (!self(p).valid(e)) {
    self(p).reject(e, "ExprApi::print");
    return 0;
  }
  try {
    const std::string& text = self(p).pool().print(Expr{e});
    // Not NUL-terminated: the plugin reads the returned length (ExprApi::print).
    std::copy_n(text.data(), std::min(capacity, text.size()), buffer);
    return text.size();
  } catch (const std::exception&) {
    return 0;
  }
}

std::uint32_t api_parse(void* p, const char* text, std::size_t size) noexcept {
  try {
    return self(p).pool().parse_dim(std::string_view(text, size)).id;
  } catch (const std::exception& e) {
    return self(p).recover(e).id;
  }
}

void api_bounds(void* p, std::uint32_t e, std::int64_t* lo, std::int64_t* hi) noexcept {
  if (!self(p).valid(e)) {
    self(p).reject(e, "ExprApi::bounds");
    *lo = kNegInf;
    *hi = kPosInf;
    return;
  }
  try {
    Interval i = self(p).pool().interval(Expr{e});
    *lo = i.lo;
    *hi = i.hi;
  } catch (const std::exception&) {
    *lo = kNegInf;
    *hi = kPosInf;
  }
}

}  // namespace

ExprBridge::ExprBridge(ExprPool& pool) : pool_(&pool) {
  api_.struct_size = sizeof(sdk::ExprApi);
  api_.pool = this;
  api_.integer = &api_integer;
  api_.binary = &api_binary;
  api_.nary = &api_nary;
  api_.as_int = &api_as_int;
  api_.compare = &api_compare;
  api_.print = &api_print;
  api_.parse = &api_parse;
  api_.bounds = &api_bounds;
}

std::string invalid_handle_error(const InvalidHandle& bad) {
  if (!bad.misread.empty()) {
    return "read " + bad.misread + " (" + bad.where + ")";
  }
  if (bad.handle == 0) {
    return std::string("used a Dim that was never set (handle 0) through ") + bad.where;
  }
  return "returned an invalid expression handle " + std::to_string(bad.handle) + " through " +
         bad.where;
}

bool ExprBridge::recount(std::uint32_t handle) {
  known_count_ = pool_->node_count();
  return handle != 0 && handle < known_count_;
}

std::uint32_t ExprBridge::misread(const char* where, std::string what) {
  if (!invalid_) invalid_ = InvalidHandle{0, where, std::move(what)};
  return 0;
}

std::uint32_t ExprBridge::reject(std::uint32_t handle, const char* where) {
  if (!invalid_) invalid_ = InvalidHandle{handle, where, {}};
  try {
    return pool_->integer(1).id;
  } catch (...) {
    return 0;  // unreachable in practice: small integers do not fail
  }
}

Expr ExprBridge::recover(const std::exception& e) {
  errors_.emplace_back(e.what());
  try {
    return pool_->fresh_symbol("expr_error", Interval{kNegInf, kPosInf}, e.what());
  } catch (...) {
    return pool_->integer(0);  // unreachable in practice: fresh symbols do not fail
  }
}

}  // namespace cctx
