// Canonical printing (expressions.md section 3). Order comes only from texts and degrees, never
// from handles, so the output is the same whatever order the pool built things in.
#include <algorithm>

#include "expr/pool_impl.hpp"

namespace cctx {

using namespace detail;

namespace {

std::string quoted_name(std::string_view name) {
  std::string out = "`";
  for (const char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  out += '`';
  return out;
}

std::string coefficient_text(std::int64_t c, bool first) {
  // INT64_MIN has no positive literal; `+-9223372036854775808` keeps it a unary-minus operand.
  if (c == kNegInf) return first ? "-9223372036854775808" : "+-9223372036854775808";
  if (c < 0 || first) return std::to_string(c);
  return "+" + std::to_string(c);
}

}  // namespace

std::string_view detail::PoolImpl::factor_key(Expr atom) {
  const Node& n = nodes[atom.id];
  if (n.kind == Kind::kSym) return symbols[static_cast<std::size_t>(n.aux)].name;
  return text(atom);
}

const std::string& detail::PoolImpl::text(Expr e) {
  if (const std::uint32_t id = extra[e.id].text_id; id != 0) return texts[id - 1];
  const Node n = nodes[e.id];
  std::string s = text_of_parts(n.kind, n.aux, payload.data() + n.off, n.len);
  texts.push_back(std::move(s));
  extra[e.id].text_id = static_cast<std::uint32_t>(texts.size());
  return texts.back();
}

const std::string& detail::PoolImpl::print(Expr e) {
  const Node& n = nodes[e.id];
  if (n.kind == Kind::kSym) {
    const auto index = static_cast<std::size_t>(n.aux);
    const std::string& name = symbols[index].name;
    if (!is_identifier(name)) {
      // A non-identifier name is printed raw as a whole expression (a written-back dim_param is
      // unchanged) and quoted inside compounds.
      if (symbol_raw_text[index] == 0) {
        texts.push_back(name);
        symbol_raw_text[index] = static_cast<std::uint32_t>(texts.size());
      }
      return texts[symbol_raw_text[index] - 1];
    }
  }
  return text(e);
}

std::string detail::PoolImpl::text_of_parts(Kind k, std::int64_t aux, const std::uint32_t* w,
                                            std::uint32_t n) {
  auto is_div_atom = [&](std::uint32_t id) { return is_division(nodes[id].kind); };
  // Factors of a monomial (Mono payload words) sorted by key; division atoms parenthesised.
  auto factors_text = [&](const std::uint32_t* mw, std::uint32_t len) {
    std::vector<std::pair<std::string_view, std::uint32_t>> fs;  // (key, atom)
    for (std::uint32_t i = 0; i < len; i += 2) {
      for (std::uint32_t e = 0; e < mw[i + 1]; ++e) fs.emplace_back(factor_key(Expr{mw[i]}), mw[i]);
    }
    std::stable_sort(fs.begin(), fs.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    std::string out;
    for (std::size_t i = 0; i < fs.size(); ++i) {
      if (i > 0) out += '*';
      const std::string& t = text(Expr{fs[i].second});
      if (is_div_atom(fs[i].second)) {
        out += '(';
        out += t;
        out += ')';
      } else {
        out += t;
      }
    }
    return out;
  };
  // A term's monomial; a lone division atom is bare only when `bare` (coefficient +1).
  auto monomial_text = [&](std::uint32_t mono, bool bare) {
    const Node& m = nodes[mono];
    if (m.kind == Kind::kMono) return factors_text(payload.data() + m.off, m.len);
    const std::string& t = text(Expr{mono});
    return (is_div_atom(mono) && !bare) ? "(" + t + ")" : t;
  };

  switch (k) {
    case Kind::kInt:
      return std::to_string(aux);
    case Kind::kSym: {
      const std::string& name = symbols[static_cast<std::size_t>(aux)].name;
      return is_identifier(name) ? name : quoted_name(name);
    }
    case Kind::kMono:
      return factors_text(w, n);
    case Kind::kSum: {
      struct Item {
        std::uint32_t mono;
        std::int64_t coef;
        std::uint32_t degree;
        std::vector<std::string_view> keys;
      };
      std::vector<Item> items;
      items.reserve(n / 3);
      for (std::uint32_t i = 0; i < n; i += 3) {
        Item it{w[i], get_i64(w + i + 1), 0, {}};
        const Node& m = nodes[it.mono];
        if (m.kind == Kind::kMono) {
          const std::uint32_t* mw = payload.data() + m.off;
          for (std::uint32_t f = 0; f < m.len; f += 2) {
            for (std::uint32_t e = 0; e < mw[f + 1]; ++e)
              it.keys.push_back(factor_key(Expr{mw[f]}));
          }
        } else {
          it.keys.push_back(factor_key(Expr{it.mono}));
        }
        std::sort(it.keys.begin(), it.keys.end());
        it.degree = static_cast<std::uint32_t>(it.keys.size());
        items.push_back(std::move(it));
      }
      std::sort(items.begin(), items.end(), [](const Item& x, const Item& y) {
        if (x.degree != y.degree) return x.degree > y.degree;
        return x.keys < y.keys;
      });
      std::string out;
      for (std::size_t i = 0; i < items.size(); ++i) {
        const Item& it = items[i];
        const bool first = i == 0;
        if (it.coef == 1) {
          if (!first) out += '+';
          out += monomial_text(it.mono, true);
        } else if (it.coef == -1) {
          out += '-';
          out += monomial_text(it.mono, false);
        } else {
          out += coefficient_text(it.coef, first);
          out += '*';
          out += monomial_text(it.mono, false);
        }
      }
      if (aux != 0) out += coefficient_text(aux, false);
      return out;
    }
    case Kind::kFloorDiv:
    case Kind::kExactDiv:
    case Kind::kMod: {
      const Node& num = nodes[w[0]];
      const Node& den = nodes[w[1]];
      const bool bare_num =
          num.kind == Kind::kSym || is_minmax(num.kind) || (num.kind == Kind::kInt && num.aux >= 0);
      const bool bare_den =
          den.kind == Kind::kSym || is_minmax(den.kind) || (den.kind == Kind::kInt && den.aux > 0);
      const std::string& ns = text(Expr{w[0]});
      const std::string& ds = text(Expr{w[1]});
      std::string out;
      out.reserve(ns.size() + ds.size() + 6);
      if (bare_num) {
        out += ns;
      } else {
        out += '(';
        out += ns;
        out += ')';
      }
      out += k == Kind::kFloorDiv ? "//" : (k == Kind::kExactDiv ? "/:" : "%");
      if (bare_den) {
        out += ds;
      } else {
        out += '(';
        out += ds;
        out += ')';
      }
      return out;
    }
    case Kind::kMax:
    case Kind::kMin: {
      std::vector<std::string_view> args;
      args.reserve(n);
      for (std::uint32_t i = 0; i < n; ++i) args.push_back(text(Expr{w[i]}));
      std::sort(args.begin(), args.end());
      std::string out = k == Kind::kMax ? "max(" : "min(";
      for (std::size_t i = 0; i < args.size(); ++i) {
        if (i > 0) out += ',';
        out += args[i];
      }
      out += ')';
      return out;
    }
  }
  return {};
}

}  // namespace cctx
