// The public ExprPool surface: argument checks and forwarding to the implementation.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "expr/pool_impl.hpp"
#include "expr/sympy_floor.hpp"

namespace cctx {

using namespace detail;

namespace {

constexpr std::size_t kMaxDimText = 4096;

void check_bounds(std::string_view name, Interval bounds) {
  if (bounds.lo > bounds.hi) {
    throw ExprError(ExprError::Kind::kOutOfBounds, "empty bounds [" + std::to_string(bounds.lo) +
                                                       ", " + std::to_string(bounds.hi) +
                                                       "] for symbol '" + quote_text(name) + "'");
  }
}

}  // namespace

ExprPool::ExprPool() : ExprPool(ExprLimits{}) {}
ExprPool::ExprPool(ExprLimits limits) : impl_(std::make_unique<Impl>(limits)) {}
ExprPool::~ExprPool() = default;

// ---- construction -------------------------------------------------------------------------------

Expr ExprPool::integer(std::int64_t value) { return impl_->integer(value); }

Expr ExprPool::symbol(std::string_view name) { return declare_symbol(name, kDimBounds); }

Expr ExprPool::declare_symbol(std::string_view name, Interval bounds) {
  if (const auto it = impl_->symbol_index.find(name); it != impl_->symbol_index.end()) {
    return impl_->symbol_node(it->second);
  }
  if (name.empty()) throw ExprError(ExprError::Kind::kSyntax, "empty symbol name");
  check_bounds(name, bounds);
  return impl_->symbol_node(
      impl_->new_symbol(std::string(name), SymbolKind::kDeclared, bounds, ""));
}

Expr ExprPool::declare_parameter(std::string_view name, std::int64_t value,
                                 std::string_view origin) {
  // A count of something the runtime has (threads): at least one, also where a profile's
  // `symbols:` (or an assignment of 0, which widens a symbol's bounds) said otherwise.
  const Expr sym = declare_symbol(name, Interval{1, kPosInf});
  const auto index = static_cast<std::size_t>(impl_->nodes[sym.id].aux);
  if (impl_->symbols[index].bounds.lo < 1) {
    narrow_bounds(sym, Interval{1, kPosInf}, "required by the runtime: at least one");
  }
  SymbolInfo& info = impl_->symbols[index];
  if (value < info.bounds.lo || value > info.bounds.hi) {
    throw ExprError(ExprError::Kind::kOutOfBounds, "the default " + std::to_string(value) +
                                                       " of '" + quote_text(info.name) +
                                                       "' is outside its bounds");
  }
  info.origin = std::string(origin);
  // The definition is the interned integer: eval() expands a symbol without a value into its
  // definition, as it does a size cap's, and leaf_symbols() sees no symbol behind it.
  impl_->symbol_definition[index] = impl_->integer(value).id;
  return sym;
}

bool ExprPool::parameter_default(std::string_view symbol, std::int64_t* value) const {
  const std::optional<Expr> d = definition(symbol);
  if (!d) return false;
  const detail::Node& n = impl_->nodes[d->id];
  if (n.kind != detail::Kind::kInt) return false;  // a size cap's expression
  if (value != nullptr) *value = n.aux;
  return true;
}

Expr ExprPool::fresh_symbol(std::string_view base, Interval bounds, std::string_view origin) {
  check_bounds(base, bounds);
  return impl_->fresh(base, bounds, std::string(origin));
}

Expr ExprPool::opaque_symbol(std::string_view text) {
  if (text.empty()) return impl_->fresh("unk", kDimBounds, "empty dim_param");
  if (const auto it = impl_->symbol_index.find(text); it != impl_->symbol_index.end()) {
    return impl_->symbol_node(it->second);
  }
  return impl_->symbol_node(
      impl_->new_symbol(std::string(text), SymbolKind::kOpaque, kDimBounds, ""));
}

Expr ExprPool::add(Expr a, Expr b) { return impl_->add(a, b); }
Expr ExprPool::sub(Expr a, Expr b) { return impl_->sub(a, b); }
Expr ExprPool::mul(Expr a, Expr b) { return impl_->mul(a, b); }
Expr ExprPool::neg(Expr a) { return impl_->neg(a); }
Expr ExprPool::floor_div(Expr a, Expr b) { return impl_->floor_div(a, b); }
Expr ExprPool::exact_div(Expr a, Expr b) { return impl_->exact_div(a, b); }
Expr ExprPool::mod(Expr a, Expr b) { return impl_->mod(a, b); }
Expr ExprPool::ceil_div(Expr a, Expr b) { return impl_->ceil_div(a, b); }
Expr ExprPool::max(std::span<const Expr> args) { return impl_->minmax(true, args); }
Expr ExprPool::min(std::span<const Expr> args) { return impl_->minmax(false, args); }
Expr ExprPool::sum(std::span<const Expr> terms) { return impl_->sum(terms); }

Expr ExprPool::product(std::span<const Expr> factors) {
  Expr r = impl_->integer(1);
  for (const Expr f : factors) r = impl_->mul(r, f);
  return r;
}

// ---- text ---------------------------------------------------------------------------------------

Expr ExprPool::parse(std::string_view text) { return impl_->parse(text); }

namespace {

/// `text` with every lone '/' (neither '//' nor '/:') written '//'; nullopt when it has none, or
/// when one is not followed by an integer: `n / 2` is a half, `Tanh/Tanh_output_0_dim_0` (as
/// PyTorch's exporter names dims after its nodes' paths) is a name.
std::optional<std::string> floor_divisions(std::string_view text) {
  std::string out;
  bool changed = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] != '/') continue;
    const bool pair = (i + 1 < text.size() && (text[i + 1] == '/' || text[i + 1] == ':'));
    if (pair) {
      out += text[++i];
      continue;
    }
    std::size_t next = i + 1;
    while (next < text.size() && (text[next] == ' ' || text[next] == '\t')) ++next;
    if (next == text.size() || text[next] < '0' || text[next] > '9') return std::nullopt;
    out += '/';
    changed = true;
  }
  if (!changed) return std::nullopt;
  return out;
}

}  // namespace

Expr ExprPool::parse_dim(std::string_view text) {
  if (text.empty()) return impl_->fresh("unk", kDimBounds, "empty dim_param");
  if (text.size() > kMaxDimText) {
    impl_->warn("note: dim_param of " + std::to_string(text.size()) +
                " bytes is longer than 4096; kept as an opaque symbol");
    return opaque_symbol(text);
  }
  try {
    return impl_->parse(text);
  } catch (const ExprError& e) {
    // sympy's floor(...) and ceiling(...) of rational sums (ONNX Runtime's symbolic shape
    // inference, which onnxruntime.quantization's quant_pre_process runs) are exact integer
    // divisions.
    if (const std::optional<std::string> exact = detail::sympy_floors(text)) {
      try {
        return impl_->parse(*exact);
      } catch (const ExprError&) {
      }
    }
    // Exporters write integer halves as `n / 2` (Hugging Face Optimum's Whisper encoder output,
    // `encoder_sequence_length / 2`): a dim is an integer, so a lone '/' is read as '//'. Only
    // for a name: the literal `7/2` stays the opaque text it is.
    if (const std::optional<std::string> floored = floor_divisions(text)) {
      std::optional<Expr> read;
      try {
        read = impl_->parse(*floored);
      } catch (const ExprError&) {
      }
      if (read && has_symbols(*read)) {
        impl_->warn("note: dim_param '" + quote_text(text) + "' read as '" + quote_text(*floored) +
                    "' (a dim is an integer: '/' divides as '//')");
        return *read;
      }
    }
    impl_->warn("note: dim_param '" + quote_text(text) + "' kept as an opaque symbol (" + e.what() +
                ")");
  }
  return opaque_symbol(text);
}

const std::string& ExprPool::print(Expr e) { return impl_->print(e); }

// ---- queries ------------------------------------------------------------------------------------

bool ExprPool::is_int(Expr e) const { return impl_->is_int(e); }

std::optional<std::int64_t> ExprPool::as_int(Expr e) const {
  if (!impl_->is_int(e)) return std::nullopt;
  return impl_->int_value(e);
}

bool ExprPool::is_symbol(Expr e) const { return impl_->kind(e) == Kind::kSym; }

bool ExprPool::has_symbols(Expr e) const { return impl_->node(e).sig != 0; }

std::vector<std::string> ExprPool::symbols_of(Expr e) {
  std::vector<std::uint32_t> ids;
  impl_->collect_symbols(e, ids);
  std::vector<std::string> names;
  names.reserve(ids.size());
  for (const std::uint32_t id : ids) names.push_back(impl_->symbols[id].name);
  std::sort(names.begin(), names.end());
  return names;
}

Interval ExprPool::interval(Expr e) { return impl_->interval(e); }

bool ExprPool::prove_ge(Expr a, Expr b) { return impl_->prove_ge(a, b); }
bool ExprPool::dominates_termwise(Expr a, Expr b) { return impl_->dominates_termwise(a, b); }

bool ExprPool::prove_gt(Expr a, Expr b) {
  try {
    return impl_->prove_ge(a, impl_->add(b, impl_->integer(1)));
  } catch (const ExprError&) {
    return false;
  }
}

bool ExprPool::prove_eq(Expr a, Expr b) {
  if (a == b) return true;
  try {
    const Expr d = impl_->sub(a, b);
    if (impl_->is_int(d)) return impl_->int_value(d) == 0;
    const Interval iv = impl_->interval(d);
    return iv.lo == 0 && iv.hi == 0;
  } catch (const ExprError&) {
    return false;
  }
}

bool ExprPool::prove_ne(Expr a, Expr b) {
  if (a == b) return false;
  try {
    const Interval iv = impl_->interval(impl_->sub(a, b));
    if (iv.lo > 0 || iv.hi < 0) return true;
  } catch (const ExprError&) {
  }
  return prove_gt(a, b) || prove_gt(b, a);
}

bool ExprPool::prove_nonneg(Expr e) { return impl_->prove_nonneg(e); }

Relation ExprPool::compare(Expr a, Expr b) {
  // Two integers (a broadcast of 64 against 1, two kernel sizes): decided without the proofs,
  // which would intern a - b, b + 1 and a + 1 first.
  if (impl_->is_int(a) && impl_->is_int(b)) {
    const std::int64_t x = impl_->int_value(a), y = impl_->int_value(b);
    return x == y ? Relation::kEq : x < y ? Relation::kLt : Relation::kGt;
  }
  if (prove_eq(a, b)) return Relation::kEq;
  const bool ge = prove_ge(a, b);
  const bool le = prove_ge(b, a);
  if (ge && le) return Relation::kEq;
  if (ge) return prove_gt(a, b) ? Relation::kGt : Relation::kGe;
  if (le) return prove_gt(b, a) ? Relation::kLt : Relation::kLe;
  if (prove_gt(a, b)) return Relation::kGt;
  if (prove_gt(b, a)) return Relation::kLt;
  return prove_ne(a, b) ? Relation::kNe : Relation::kUnknown;
}

// ---- evaluation ---------------------------------------------------------------------------------

std::int64_t ExprPool::eval(Expr e, const Assignment& values) { return impl_->eval(e, values); }
std::vector<std::int64_t> ExprPool::eval_all(std::span<const Expr> es, const Assignment& values) {
  return impl_->eval_all(es, values);
}

Expr ExprPool::substitute(Expr e, const std::map<std::string, Expr, std::less<>>& values) {
  std::vector<std::pair<std::uint32_t, Expr>> map;
  for (const auto& [name, value] : values) {
    const auto it = impl_->symbol_index.find(name);
    if (it == impl_->symbol_index.end()) continue;
    const Interval b = impl_->symbols[it->second].bounds;
    const Interval v = impl_->interval(value);
    if (v.lo < b.lo || v.hi > b.hi) {
      throw ExprError(ExprError::Kind::kOutOfBounds, "value '" + quote_text(impl_->print(value)) +
                                                         "' for symbol '" + quote_text(name) +
                                                         "' may lie outside the symbol's bounds");
    }
    map.emplace_back(it->second, value);
  }
  return impl_->substitute_syms(e, map, nullptr);
}

// ---- symbols ------------------------------------------------------------------------------------

const SymbolInfo* ExprPool::find_symbol(std::string_view name) const {
  const auto it = impl_->symbol_index.find(name);
  return it == impl_->symbol_index.end() ? nullptr : &impl_->symbols[it->second];
}

std::span<const SymbolInfo> ExprPool::symbols() const { return impl_->symbols; }

std::vector<Expr> ExprPool::factors(Expr e) const {
  const detail::PoolImpl& p = *impl_;
  Expr mono = e;
  if (p.kind(e) == detail::Kind::kSum && p.node(e).aux == 0 && p.node(e).len == 3) {
    mono = Expr{p.payload[p.node(e).off]};  // one term c*M: its monomial
  }
  if (p.kind(mono) != detail::Kind::kMono) return {mono};
  std::vector<Expr> atoms;
  const detail::Node& n = p.node(mono);
  for (std::uint32_t k = 0; k < n.len; k += 2) atoms.push_back(Expr{p.payload[n.off + k]});
  return atoms;
}

bool ExprPool::narrow_bounds(Expr symbol, Interval within, std::string_view reason) {
  detail::PoolImpl& p = *impl_;
  if (symbol.id >= p.nodes.size() || p.kind(symbol) != detail::Kind::kSym) return false;
  SymbolInfo& info = p.symbols[static_cast<std::size_t>(p.node(symbol).aux)];
  const Interval next{std::max(info.bounds.lo, within.lo), std::min(info.bounds.hi, within.hi)};
  if (next == info.bounds || next.lo > next.hi) return false;
  info.bounds = next;
  info.narrowed_by = std::string(reason);
  // Cached facts were decided on the wider bounds: an interval may now be tighter, a proof that
  // failed may now succeed, and a memoised constructor may now simplify further.
  for (detail::PoolImpl::Extra& x : p.extra) x.state = 0;
  std::fill(p.op_memo.begin(), p.op_memo.end(), detail::MemoEntry{});
  p.refuting_points.clear();
  p.refuting_symbols = 0;
  return true;
}

std::optional<Expr> ExprPool::definition(std::string_view symbol) const {
  const auto it = impl_->symbol_index.find(symbol);
  if (it == impl_->symbol_index.end()) return std::nullopt;
  const std::uint32_t node = impl_->symbol_definition[it->second];
  if (node == detail::PoolImpl::kNoDefinition) return std::nullopt;
  return Expr{node};
}

std::vector<std::string> ExprPool::take_warnings() {
  std::vector<std::string> out;
  out.swap(impl_->warnings);
  return out;
}

std::size_t ExprPool::node_count() const { return impl_->nodes.size(); }

void ExprPool::reserve(std::size_t expressions) { impl_->reserve(expressions); }

const ExprLimits& ExprPool::limits() const { return impl_->limits; }

ExprPoolStats ExprPool::stats() const {
  return ExprPoolStats{impl_->memo_hits, impl_->memo_misses, impl_->proof_units};
}

}  // namespace cctx
