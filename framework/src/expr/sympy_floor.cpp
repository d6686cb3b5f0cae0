#include "expr/sympy_floor.hpp"

#include <cstdint>
#include <numeric>
#include <vector>

namespace cctx::detail {

namespace {

constexpr std::int64_t kMaxDenominator = 1'000'000;

bool ident_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

/// A positive integer literal, or nullopt.
std::optional<std::int64_t> positive_integer(std::string_view s) {
  s = trim(s);
  if (s.empty() || s.size() > 7) return std::nullopt;
  std::int64_t v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v > 0 ? std::optional<std::int64_t>(v) : std::nullopt;
}

struct Term {
  bool negative = false;
  std::string_view body;     ///< the expression divided
  std::int64_t divisor = 1;  ///< 1: not divided
};

/// The argument's top-level terms; nullopt when a '/' is not a term's last division by an
/// integer, or when parentheses do not balance.
std::optional<std::vector<Term>> terms_of(std::string_view arg) {
  std::vector<Term> out;
  int depth = 0;
  std::size_t start = 0;
  bool negative = false;
  auto close = [&](std::size_t end) -> bool {
    std::string_view t = trim(arg.substr(start, end - start));
    if (t.empty()) return false;
    Term term{negative, t, 1};
    // The last top-level '/' (not '//') divides the term by an integer.
    int d = 0;
    for (std::size_t i = t.size(); i-- > 0;) {
      const char c = t[i];
      if (c == ')') ++d;
      if (c == '(') --d;
      if (d != 0 || c != '/') continue;
      if ((i > 0 && t[i - 1] == '/') || (i + 1 < t.size() && t[i + 1] == '/')) return false;
      const std::optional<std::int64_t> k = positive_integer(t.substr(i + 1));
      if (!k) return false;
      term.body = trim(t.substr(0, i));
      term.divisor = *k;
      break;
    }
    if (term.body.empty()) return false;
    out.push_back(term);
    return true;
  };
  for (std::size_t i = 0; i < arg.size(); ++i) {
    const char c = arg[i];
    if (c == '(') ++depth;
    if (c == ')' && --depth < 0) return std::nullopt;
    if (depth != 0 || (c != '+' && c != '-')) continue;
    // A sign that starts the argument or follows an operator is the next term's.
    const std::string_view before = trim(arg.substr(start, i - start));
    if (before.empty() || before.back() == '*' || before.back() == '/') {
      if (before.empty() && c == '-') {
        negative = !negative;
        start = i + 1;
      }
      continue;
    }
    if (!close(i)) return std::nullopt;
    negative = c == '-';
    start = i + 1;
  }
  if (depth != 0 || !close(arg.size())) return std::nullopt;
  return out;
}

/// `floor(arg)` (or ceiling) as an integer expression over the terms' common denominator.
std::optional<std::string> rational_floor(std::string_view arg, bool ceiling) {
  const std::optional<std::vector<Term>> terms = terms_of(arg);
  if (!terms) return std::nullopt;
  std::int64_t lcm = 1;
  for (const Term& t : *terms) {
    lcm = std::lcm(lcm, t.divisor);
    if (lcm > kMaxDenominator) return std::nullopt;
  }
  std::string numerator;
  for (const Term& t : *terms) {
    numerator += t.negative ? " - " : (numerator.empty() ? "" : " + ");
    numerator += "(" + std::string(t.body) + ")";
    if (lcm / t.divisor != 1) numerator += "*" + std::to_string(lcm / t.divisor);
  }
  if (lcm == 1) return "(" + numerator + ")";
  if (ceiling) return "(-((-(" + numerator + "))//" + std::to_string(lcm) + "))";
  return "((" + numerator + ")//" + std::to_string(lcm) + ")";
}

}  // namespace

std::optional<std::string> sympy_floors(std::string_view text) {
  static constexpr std::string_view kNames[] = {"floor", "Floor", "ceiling", "Ceiling"};
  std::string out;
  bool changed = false;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t name_end = 0;
    bool ceiling = false;
    if (i == 0 || !ident_char(text[i - 1])) {
      for (const std::string_view name : kNames) {
        if (text.substr(i, name.size()) == name && i + name.size() < text.size() &&
            text[i + name.size()] == '(') {
          name_end = i + name.size();
          ceiling = name.front() == 'c' || name.front() == 'C';
        }
      }
    }
    if (name_end == 0) {
      out += text[i++];
      continue;
    }
    // The matching parenthesis; the argument's own calls are read first.
    int depth = 0;
    std::size_t close = name_end;
    for (; close < text.size(); ++close) {
      if (text[close] == '(') ++depth;
      if (text[close] == ')' && --depth == 0) break;
    }
    if (close == text.size()) return std::nullopt;
    const std::string_view inner = text.substr(name_end + 1, close - name_end - 1);
    std::string arg(inner);
    if (const std::optional<std::string> nested = sympy_floors(inner)) arg = *nested;
    const std::optional<std::string> read = rational_floor(arg, ceiling);
    if (!read) return std::nullopt;
    out += *read;
    changed = true;
    i = close + 1;
  }
  if (!changed) return std::nullopt;
  return out;
}

}  // namespace cctx::detail
