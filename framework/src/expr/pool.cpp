// Arena, interning, operation memo, symbols and size caps.
#include <algorithm>
#include <cstring>
#include <string>

#include "expr/pool_impl.hpp"
#include "util/hash_mix.hpp"
#include "util/prefetch.hpp"

namespace cctx {
namespace detail {

void throw_overflow(const std::string& context) {
  throw ExprError(ExprError::Kind::kOverflow, context.empty() ? std::string("integer overflow")
                                                              : "integer overflow in " + context);
}

void throw_overflow(std::int64_t a, char op, std::int64_t b) {
  const std::string rhs = b < 0 ? "(" + std::to_string(b) + ")" : std::to_string(b);
  throw_overflow("'" + std::to_string(a) + op + rhs + "'");
}

bool is_identifier(std::string_view s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!alpha(s[0])) return false;
  return std::all_of(s.begin() + 1, s.end(),
                     [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

std::string quote_text(std::string_view text, std::size_t max_len) {
  std::string out;
  const bool shorten = text.size() > max_len;
  const std::string_view shown = shorten ? text.substr(0, max_len) : text;
  out.reserve(shown.size() + 8);
  static constexpr char kHex[] = "0123456789abcdef";
  for (const char ch : shown) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  if (shorten) out += "...";
  return out;
}

namespace {

/// The intern table's hash of a sum given its terms' part (sum_terms_hash).
inline std::uint32_t sum_hash(std::int64_t c0, std::uint32_t len, std::uint64_t terms_hash) {
  const std::uint64_t base =
      (static_cast<std::uint64_t>(Kind::kSum) + len * 0x100ULL) * kGoldenMul ^
      static_cast<std::uint64_t>(c0);
  return static_cast<std::uint32_t>(mix64(base + terms_hash));
}

inline std::uint32_t hash_node(Kind k, std::int64_t aux, const std::uint32_t* w, std::uint32_t n) {
  if (k == Kind::kSum) return sum_hash(aux, n, sum_terms_hash(w, n));
  std::uint64_t h =
      (static_cast<std::uint64_t>(k) + n * 0x100ULL) * kGoldenMul ^ static_cast<std::uint64_t>(aux);
  std::uint32_t i = 0;
  for (; i + 1 < n; i += 2) {
    h = (h ^ (static_cast<std::uint64_t>(w[i]) | static_cast<std::uint64_t>(w[i + 1]) << 32)) *
        kGoldenMul;
    h ^= h >> 31;
  }
  if (i < n) h = (h ^ w[i]) * kGoldenMul;
  return static_cast<std::uint32_t>(mix64(h));
}

inline std::uint32_t sat_add32(std::uint32_t a, std::uint64_t b) {
  const std::uint64_t s = a + b;
  return s > 0xffffffffULL ? 0xffffffffU : static_cast<std::uint32_t>(s);
}

inline std::uint64_t symbol_bit(std::int64_t index) {
  return std::uint64_t{1} << (static_cast<std::uint64_t>(index) & 63U);
}

constexpr std::uint8_t kDeepFlags = kFlagMinMax | kFlagMaybeUndef;
constexpr std::size_t kMemoSize = std::size_t{1} << 16;

}  // namespace
}  // namespace detail

using namespace detail;

detail::PoolImpl::PoolImpl(ExprLimits lim) : limits(lim) {
  op_memo.resize(kMemoSize);
  small_ints.assign(static_cast<std::size_t>(kSmallMax - kSmallMin + 1), 0xffffffffU);
  nodes.reserve(256);
  payload.reserve(1024);
  // Handle 0 names no expression: a default-constructed handle (an SDK `Dim()` never set) must be
  // refused, not read as whichever expression was interned first. Entry 0 is a reserved integer
  // 0 kept outside the intern table, so no interned expression ever has id 0.
  nodes.emplace_back();
  extra.emplace_back();
}

void detail::PoolImpl::warn(std::string msg) { warnings.push_back(std::move(msg)); }

void detail::PoolImpl::reserve(std::size_t more) {
  // A sum of a few terms takes about a dozen payload words; over-reserving costs address space
  // only, the pages are touched when filled.
  constexpr std::size_t kWordsPerExpression = 12;
  const std::size_t target = nodes.size() + more;
  nodes.reserve(target);
  extra.reserve(target);
  payload.reserve(payload.size() + more * kWordsPerExpression);
  table.reserve(table.size() + more);
}

Expr detail::PoolImpl::intern(Kind k, std::int64_t aux, const std::uint32_t* w, std::uint32_t n) {
  return intern_hashed(k, aux, w, n, hash_node(k, aux, w, n));
}

Expr detail::PoolImpl::intern_sum(std::int64_t c0, const std::uint32_t* w, std::uint32_t len,
                                  std::uint64_t terms_hash) {
  if (len == 0) return integer(c0);
  if (len == 3 && get_i64(w + 1) == 1 && c0 == 0) return Expr{w[0]};
  return intern_hashed(Kind::kSum, c0, w, len, sum_hash(c0, len, terms_hash));
}

void detail::PoolImpl::prefetch_sum_slot(std::int64_t c0, std::uint32_t len,
                                         std::uint64_t terms_hash) const {
  if (len == 0) return;  // an integer
  table.prefetch(sum_hash(c0, len, terms_hash));
}

Expr detail::PoolImpl::intern_hashed(Kind k, std::int64_t aux, const std::uint32_t* w,
                                     std::uint32_t n, std::uint32_t h) {
  const HashIndex::Probe probe = table.probe(h, [&](std::uint32_t id) {
    const Node& cand = nodes[id];
    return cand.kind == k && cand.aux == aux && cand.len == n &&
           (n == 0 || std::memcmp(payload.data() + cand.off, w, n * sizeof(std::uint32_t)) == 0);
  });
  if (probe.index != HashIndex::kAbsent) return Expr{probe.index};

  // New node: derive its cached facts from the children.
  Node nd;
  nd.kind = k;
  nd.aux = aux;
  nd.len = n;
  switch (k) {
    case Kind::kInt:
      nd.weight = 1;
      break;
    case Kind::kSym:
      nd.weight = 1;
      nd.degree = 1;
      nd.sig = symbol_bit(aux);
      break;
    case Kind::kSum: {
      nd.weight = aux != 0 ? 2 : 1;
      for (std::uint32_t t = 0; t < n; t += 3) {
        const Node& m = nodes[w[t]];
        nd.weight = sat_add32(nd.weight, std::uint64_t{m.weight} + 1);
        nd.degree = std::max(nd.degree, m.degree);
        nd.sig |= m.sig;
        nd.flags |= m.flags;
      }
      break;
    }
    case Kind::kMono: {
      std::uint64_t degree = 0;
      for (std::uint32_t t = 0; t < n; t += 2) {
        const Node& a = nodes[w[t]];
        nd.weight = sat_add32(nd.weight, std::uint64_t{a.weight} * w[t + 1]);
        degree += w[t + 1];
        nd.sig |= a.sig;
        nd.flags |= a.flags & kDeepFlags;
        if (a.kind == Kind::kExactDiv) nd.flags |= kFlagExactFactor;
      }
      nd.degree = static_cast<std::uint16_t>(std::min<std::uint64_t>(degree, 0xffff));
      break;
    }
    case Kind::kFloorDiv:
    case Kind::kExactDiv:
    case Kind::kMod: {
      const Node& num = nodes[w[0]];
      const Node& den = nodes[w[1]];
      nd.weight = sat_add32(sat_add32(1, num.weight), den.weight);
      nd.degree = 1;
      nd.sig = num.sig | den.sig;
      nd.flags = static_cast<std::uint8_t>((num.flags | den.flags) & kDeepFlags);
      const bool literal = den.kind == Kind::kInt;
      if (k == Kind::kExactDiv) nd.flags |= kFlagExactFactor | kFlagMaybeUndef;
      if (!literal || den.aux == 0) nd.flags |= kFlagMaybeUndef;
      if (k != Kind::kExactDiv && literal && den.aux > 0) nd.flags |= kFlagLitDiv;
      break;
    }
    case Kind::kMax:
    case Kind::kMin:
      nd.degree = 1;
      nd.flags = kFlagMinMax;
      for (std::uint32_t t = 0; t < n; ++t) {
        const Node& a = nodes[w[t]];
        nd.weight = sat_add32(nd.weight, a.weight);
        nd.sig |= a.sig;
        nd.flags |= a.flags & kDeepFlags;
      }
      break;
  }

  // Size caps (expressions.md "Simplification: Size cap"): the node is not stored, a bounded fresh
  // symbol stands in.
  if (k != Kind::kInt && k != Kind::kSym) {
    std::string reason;
    if (nd.weight > limits.max_weight) {
      reason = "weight " + std::to_string(nd.weight) + " > " + std::to_string(limits.max_weight);
    } else if (k == Kind::kSum && n / 3 > limits.max_terms) {
      reason = std::to_string(n / 3) + " terms > " + std::to_string(limits.max_terms);
    } else if (nd.degree > limits.max_degree) {
      reason = "degree " + std::to_string(nd.degree) + " > " + std::to_string(limits.max_degree);
    } else if (is_minmax(k) && n > limits.max_args) {
      reason = std::to_string(n) + " arguments > " + std::to_string(limits.max_args);
    }
    if (!reason.empty()) return make_cap(nd, w, reason);
  }

  const auto id = static_cast<std::uint32_t>(nodes.size());
  nd.off = static_cast<std::uint32_t>(payload.size());
  payload.insert(payload.end(), w, w + n);
  nodes.push_back(nd);
  extra.emplace_back();
  table.insert(probe, h, id);
  return Expr{id};
}

Expr detail::PoolImpl::make_cap(const Node& discarded, const std::uint32_t* w,
                                const std::string& reason) {
  const Kind k = discarded.kind;
  const std::int64_t aux = discarded.aux;
  const std::uint32_t n = discarded.len;
  std::string key;
  key.push_back(static_cast<char>(k));
  key.append(reinterpret_cast<const char*>(&aux), sizeof aux);
  if (n != 0) key.append(reinterpret_cast<const char*>(w), n * sizeof(std::uint32_t));
  if (const auto it = caps.find(key); it != caps.end()) return Expr{it->second};

  // Copy the parts: computing text and interval reads the payload but the words may be scratch.
  const std::vector<std::uint32_t> parts(w, w + n);
  const Interval bounds = interval_of_parts(k, aux, parts.data(), n);
  std::string shown = text_of_parts(k, aux, parts.data(), n);
  if (shown.size() > 80) shown = shown.substr(0, 80) + "...";
  const std::string name = "cap_" + std::to_string(++cap_count);
  const Expr sym = fresh(name, bounds, "size cap (" + reason + "): " + shown);
  // The discarded node stays as the symbol's definition (expressions.md "Size cap"), so that
  // evaluation never lacks a value: stored after the symbol, outside the intern table.
  const auto index = static_cast<std::size_t>(nodes[sym.id].aux);
  Node definition = discarded;
  definition.off = static_cast<std::uint32_t>(payload.size());
  payload.insert(payload.end(), parts.begin(), parts.end());
  symbol_definition[index] = static_cast<std::uint32_t>(nodes.size());
  nodes.push_back(definition);
  extra.emplace_back();
  const std::string& actual = symbols[index].name;
  warn("expression size cap (" + reason + "): '" + quote_text(shown, 100) + "' replaced by " +
       actual);
  caps.emplace(std::move(key), sym.id);
  return sym;
}

detail::MemoEntry& detail::PoolImpl::memo_slot(Op op, Expr a, Expr b) {
  const std::uint64_t h = mix64((static_cast<std::uint64_t>(a.id) << 32 | b.id) * kGoldenMul +
                                static_cast<std::uint64_t>(op));
  return op_memo[h & (op_memo.size() - 1)];
}

std::optional<Expr> detail::PoolImpl::memo_find(Op op, Expr a, Expr b) {
  const MemoEntry& e = memo_slot(op, a, b);
  if (e.op == op && e.a == a.id && e.b == b.id) {
    ++memo_hits;
    return Expr{e.result};
  }
  ++memo_misses;
  return std::nullopt;
}

void detail::PoolImpl::memo_store(Op op, Expr a, Expr b, Expr r) {
  memo_slot(op, a, b) = MemoEntry{a.id, b.id, r.id, op};
}

Expr detail::PoolImpl::integer(std::int64_t v) {
  if (v >= kSmallMin && v <= kSmallMax) {
    std::uint32_t& slot = small_ints[static_cast<std::size_t>(v - kSmallMin)];
    if (slot == 0xffffffffU) slot = intern(Kind::kInt, v, nullptr, 0).id;
    return Expr{slot};
  }
  return intern(Kind::kInt, v, nullptr, 0);
}

std::uint32_t detail::PoolImpl::new_symbol(std::string name, SymbolKind kind, Interval bounds,
                                           std::string origin) {
  const auto index = static_cast<std::uint32_t>(symbols.size());
  symbol_index.emplace(name, index);
  symbols.push_back(SymbolInfo{std::move(name), kind, bounds, std::move(origin), {}});
  symbol_nodes.push_back(intern(Kind::kSym, index, nullptr, 0).id);
  symbol_raw_text.push_back(0);
  symbol_definition.push_back(kNoDefinition);
  return index;
}

Expr detail::PoolImpl::fresh(std::string_view base, Interval bounds, std::string origin) {
  std::string stem(base.empty() ? std::string_view("unk") : base);
  std::string name = stem;
  if (symbol_index.find(name) != symbol_index.end()) {
    auto [it, inserted] = fresh_next.try_emplace(stem, 2);
    do {
      name = stem + "_" + std::to_string(it->second++);
    } while (symbol_index.find(name) != symbol_index.end());
  }
  return symbol_node(new_symbol(std::move(name), SymbolKind::kFresh, bounds, std::move(origin)));
}

Expr detail::PoolImpl::lookup_or_opaque(std::string_view name) {
  if (const auto it = symbol_index.find(name); it != symbol_index.end()) {
    return symbol_node(it->second);
  }
  const SymbolKind kind = is_identifier(name) ? SymbolKind::kDeclared : SymbolKind::kOpaque;
  return symbol_node(new_symbol(std::string(name), kind, kDimBounds, ""));
}

Poly detail::PoolImpl::acquire_poly() {
  if (spare_polys.empty()) return Poly{};
  Poly p = std::move(spare_polys.back());
  spare_polys.pop_back();
  p.c0 = 0;
  p.terms.clear();
  return p;
}

void detail::PoolImpl::release_poly(Poly&& p) {
  if (spare_polys.size() < 64) spare_polys.push_back(std::move(p));
}

void detail::PoolImpl::collect_symbols(Expr e, std::vector<std::uint32_t>& out) const {
  // Iterative walk; shared sub-DAGs are visited once (generation-stamped marks, no set).
  if (visit_stamp.size() < nodes.size()) visit_stamp.resize(nodes.size() + nodes.size() / 2, 0);
  if (++visit_gen == 0) {
    std::fill(visit_stamp.begin(), visit_stamp.end(), 0);
    visit_gen = 1;
  }
  std::vector<std::uint32_t> stack{e.id};
  while (!stack.empty()) {
    const std::uint32_t id = stack.back();
    stack.pop_back();
    const Node& n = nodes[id];
    if (n.sig == 0 || visit_stamp[id] == visit_gen) continue;
    visit_stamp[id] = visit_gen;
    const std::uint32_t* w = payload.data() + n.off;
    switch (n.kind) {
      case Kind::kInt:
        break;
      case Kind::kSym:
        out.push_back(static_cast<std::uint32_t>(n.aux));
        break;
      case Kind::kSum:
        for (std::uint32_t t = 0; t < n.len; t += 3) stack.push_back(w[t]);
        break;
      case Kind::kMono:
        for (std::uint32_t t = 0; t < n.len; t += 2) stack.push_back(w[t]);
        break;
      default:
        for (std::uint32_t t = 0; t < n.len; ++t) stack.push_back(w[t]);
        break;
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

}  // namespace cctx
