#include "rewrite/rewrite_rule.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>
#include <system_error>
#include <utility>

#include "cctx/errors.hpp"
#include "cctx/model.hpp"

namespace cctx {

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

/// A recursive-descent reader of one side of a rule (docs/design/rewrites.md, "The form").
class Reader {
 public:
  Reader(std::string_view text, const std::string& rule, const char* side)
      : text_(text), rule_(rule), side_(side) {}

  std::vector<RewriteNode> nodes(bool replacement) {
    std::vector<RewriteNode> out;
    for (;;) {
      skip_separators();
      if (at_end()) break;
      out.push_back(node(replacement));
      skip_blanks();
      if (!at_end() && peek() != ';' && peek() != '\n') fail("expected ';' or a new line");
    }
    // An empty replacement removes what the pattern matched (parse_rewrite_rule checks that
    // nothing of it is read).
    if (out.empty() && !replacement) fail("no node");
    return out;
  }

 private:
  struct OutputName {
    std::string name;
    bool graph_output = false;      ///< written `$y` (pattern only): must be a graph output
    bool not_graph_output = false;  ///< written `~y` (pattern only): must not be one
  };

  OutputName output_name(bool replacement) {
    skip_blanks();
    OutputName out;
    if (accept('$')) {
      if (replacement) fail("'$' marks a pattern's graph output");
      out.graph_output = true;
    } else if (accept('~')) {
      if (replacement) fail("'~' marks a pattern's value that is no graph output");
      out.not_graph_output = true;
    }
    out.name = identifier("an output name");
    return out;
  }

  static void add_output(RewriteNode& n, OutputName o) {
    n.outputs.push_back(std::move(o.name));
    n.graph_outputs.push_back(o.graph_output);
    n.not_graph_outputs.push_back(o.not_graph_output);
  }

  RewriteNode node(bool replacement) {
    RewriteNode n;
    OutputName first = output_name(replacement);
    skip_blanks();
    const bool word =
        !first.graph_output && !first.not_graph_output && !at_end() && ident_start(peek());
    if (word && first.name == "reroute") {
      if (!replacement) fail("'reroute' is a replacement statement");
      n.kind = RewriteNode::Kind::kReroute;
      n.inputs.push_back(variable(identifier("the value rerouted")));
      skip_blanks();
      if (!accept('-') || !accept('>')) fail("expected '->'");
      n.inputs.push_back(variable(identifier("the value its readers read instead")));
      if (identifier("'for'") != "for") fail("expected 'for'");
      n.ops = ops(false);
      return n;
    }
    if ((word || (!at_end() && (peek() == '$' || peek() == '~'))) && !first.graph_output &&
        !first.not_graph_output && (first.name == "keep" || first.name == "not")) {
      if (replacement) fail("'" + first.name + "' marks a pattern node");
      (first.name == "keep" ? n.keep : n.absent) = true;
      first = output_name(replacement);
      skip_blanks();
    }
    add_output(n, std::move(first));
    if (replacement && accept('<')) {  // y <- x
      if (!accept('-')) fail("expected '<-'");
      n.kind = RewriteNode::Kind::kTakeName;
      n.inputs.push_back(variable(identifier("the value whose producer takes the name")));
      return n;
    }
    while (accept(',')) {
      add_output(n, output_name(replacement));
      skip_blanks();
    }
    expect('=');
    skip_blanks();
    const std::size_t start = pos_;
    if (replacement && !at_end() && ident_start(peek())) {
      const std::string source = identifier("a variable");
      skip_blanks();
      if (n.outputs.size() == 1 && (at_end() || peek() == ';' || peek() == '\n')) {
        n.kind = RewriteNode::Kind::kRename;
        n.inputs.push_back(variable(source));  // a rename: y = x
        return n;
      }
      pos_ = start;
    }
    n.ops = ops(replacement);
    skip_blanks();
    if (accept('{')) {
      if (replacement) fail("attribute tests belong to pattern nodes");
      n.attr_tests = attr_tests(&n.ordered);
    }
    expect('(');
    skip_blanks();
    if (!accept(')')) {
      for (;;) {
        n.inputs.push_back(argument());
        skip_blanks();
        if (accept(')')) break;
        expect(',');
      }
    }
    skip_blanks();
    if (accept('[')) {
      if (!replacement) fail("attributes are given in the replacement only");
      for (;;) {
        n.attributes.push_back(attribute());
        skip_blanks();
        if (accept(']')) break;
        expect(',');
      }
    }
    skip_blanks();
    if (accept('@')) {
      if (!replacement) fail("a pattern node tests a mark with '@mark' in place of an operator");
      n.mark = identifier("a mark");
    }
    return n;
  }

  /// `[!][DOMAIN:]Op|Other` or `[!]DOMAIN:*`; a replacement node names one operator.
  RewriteOps ops(bool replacement) {
    RewriteOps o;
    skip_blanks();
    if (accept('!')) {
      if (replacement) fail("a replacement node names its operator");
      o.negated = true;
    }
    // `@mark` alternatives: after the operators, or alone.
    auto mark = [&]() {
      if (!accept('@')) return false;
      if (replacement) fail("a replacement node names its operator; its mark follows it");
      o.marks.push_back(identifier("a mark"));
      skip_blanks();
      return true;
    };
    auto more_marks = [&]() {
      while (accept('|')) {
        skip_blanks();
        if (!mark()) fail("expected '@mark'");
      }
    };
    if (mark()) {
      more_marks();
      return o;
    }
    std::string first = identifier("an operator");
    skip_blanks();
    if (accept(':')) {
      o.domain = std::string(normalize_domain(first));
      skip_blanks();
      if (accept('*')) {
        if (replacement) fail("a replacement node names its operator");
        o.any_op = true;
        skip_blanks();
        more_marks();
        return o;
      }
      first = identifier("an operator");
      skip_blanks();
    }
    o.op_types.push_back(first);
    while (accept('|')) {
      skip_blanks();
      if (mark()) {
        more_marks();
        break;
      }
      o.op_types.push_back(identifier("an operator"));
      skip_blanks();
    }
    if (replacement && o.op_types.size() > 1) fail("a replacement node has one operator");
    return o;
  }

  static RewriteArg variable(std::string name) {
    RewriteArg a;
    a.var = std::move(name);
    return a;
  }

  RewriteArg argument() {
    RewriteArg a;
    skip_blanks();
    if (accept('*')) {
      a.rest = true;
      a.var = identifier("a variable after '*'");
      return a;
    }
    if (accept('?')) a.optional = true;
    a.var = identifier("an input variable");
    if (a.var == "const") {
      a.constant = true;
      a.var = identifier("a variable after 'const'");
    }
    skip_blanks();
    if (accept('{')) {
      for (;;) {
        std::vector<RewriteArg::DimTest> clause;
        for (;;) {
          clause.push_back(dim_test());
          skip_blanks();
          if (!accept('|')) break;
        }
        a.dim_tests.push_back(std::move(clause));
        skip_blanks();
        if (accept('}')) break;
        expect(',');
      }
      // A value that is not a constant has no dims to read before the shapes are known; its
      // rank is what the runtime's inference gives (ValueTypeQuery).
      for (const auto& clause : a.dim_tests) {
        for (const RewriteArg::DimTest& t : clause) {
          using Op = RewriteArg::DimTest::Op;
          if (!a.constant && (t.op == Op::kScalar || t.op == Op::kValue || t.op == Op::kZeros ||
                              t.op == Op::kWhole || t.op == Op::kElement)) {
            fail(
                "'scalar', 'value=V', 'zeros', 'whole' and 'eK=V' check a constant: write 'const " +
                a.var + "{...}'");
          }
          if (a.constant && (t.op == Op::kLike || t.op == Op::kSame || t.op == Op::kReaders))
            fail("'like=v', 'same=v' and 'readers=N' check a value that is not a constant");
        }
      }
    }
    return a;
  }

  RewriteArg::DimTest dim_test() {
    using Op = RewriteArg::DimTest::Op;
    RewriteArg::DimTest t;
    skip_blanks();
    if (text_.substr(pos_, 5) == "whole") {
      pos_ += 5;
      t.op = Op::kWhole;
      return t;
    }
    if (!at_end() && peek() == 'e' && pos_ + 1 < text_.size() &&
        std::isdigit(static_cast<unsigned char>(text_[pos_ + 1])) != 0) {
      ++pos_;
      t.op = Op::kElement;
      t.dim = static_cast<std::int32_t>(number());
      expect('=');
      skip_blanks();
      const bool negative = accept('-');
      t.value = negative ? -number() : number();
      return t;
    }
    if (text_.substr(pos_, 5) == "zeros") {
      pos_ += 5;
      t.op = Op::kZeros;
      return t;
    }
    if (text_.substr(pos_, 6) == "scalar") {
      pos_ += 6;
      t.op = Op::kScalar;
      return t;
    }
    if (text_.substr(pos_, 5) == "type=") {
      pos_ += 4;
      expect('=');
      t.op = Op::kType;
      t.value = number();
      return t;
    }
    if (text_.substr(pos_, 8) == "readers=") {
      pos_ += 7;
      expect('=');
      t.op = Op::kReaders;
      t.value = number();
      return t;
    }
    if (text_.substr(pos_, 4) == "rank") {
      pos_ += 4;
      expect('=');
      t.op = Op::kRank;
      t.value = number();
      return t;
    }
    if (text_.substr(pos_, 4) == "like" || text_.substr(pos_, 4) == "same" ||
        text_.substr(pos_, 5) == "!same") {
      // `like=v`, `same=v`, `!same=v`: a comparison with variable v.
      t.negated = accept('!');
      t.op = text_.substr(pos_, 4) == "like" ? Op::kLike : Op::kSame;
      pos_ += 4;
      expect('=');
      t.other =
          identifier(t.op == Op::kLike ? "a variable after 'like='" : "a variable after 'same='");
      return t;
    }
    if (text_.substr(pos_, 5) == "value") {
      pos_ += 5;
      expect('=');
      t.op = Op::kValue;
      skip_blanks();
      const bool negative = accept('-');
      t.value = negative ? -number() : number();
      return t;
    }
    expect('d');
    t.dim = static_cast<std::int32_t>(number());
    skip_blanks();
    if (accept('%')) {
      t.op = Op::kMultipleOf;
    } else if (accept('<')) {
      t.op = Op::kBelow;
    } else if (accept('>')) {
      t.op = Op::kAbove;
    } else if (accept('=')) {
      t.op = Op::kEquals;
    } else {
      fail("expected '%', '<', '>' or '=' after a dim");
    }
    t.value = number();
    if (t.op == Op::kMultipleOf && t.value <= 0) fail("a dim's multiple must be positive");
    return t;
  }

  /// `{group?=1, !activation}` after a pattern node's operator.
  std::vector<AttrTest> attr_tests(bool* ordered) {
    std::vector<AttrTest> out;
    for (;;) {
      AttrTest t;
      skip_blanks();
      if (text_.substr(pos_, 7) == "ordered") {
        const std::size_t after = pos_ + 7;
        std::size_t k = after;
        while (k < text_.size() && (text_[k] == ' ' || text_[k] == '\t')) ++k;
        if (k < text_.size() && (text_[k] == ',' || text_[k] == '}')) {
          pos_ = after;
          *ordered = true;
          skip_blanks();
          if (accept('}')) return out;
          expect(',');
          continue;
        }
      }
      if (accept('!')) {
        t.op = AttrTest::Op::kAbsent;
        t.name = identifier("an attribute");
      } else {
        t.name = identifier("an attribute");
        skip_blanks();
        if (!at_end() && (peek() == ',' || peek() == '}')) {
          t.op = AttrTest::Op::kPresent;
          out.push_back(std::move(t));
          if (accept('}')) return out;
          expect(',');
          continue;
        }
        if (accept('?')) {
          expect('=');
          t.op = AttrTest::Op::kEqualsOrAbsent;
        } else if (accept('!')) {
          expect('=');
          t.op = AttrTest::Op::kDiffers;
        } else {
          expect('=');
          t.op = AttrTest::Op::kEquals;
        }
        skip_blanks();
        if ((t.op == AttrTest::Op::kEquals || t.op == AttrTest::Op::kEqualsOrAbsent) &&
            accept('"')) {
          t.is_string = true;
          while (!at_end() && peek() != '"') t.text += text_[pos_++];
          expect('"');
        } else if (t.op == AttrTest::Op::kEquals && accept('[')) {
          t.is_list = true;
          for (skip_blanks(); !accept(']');) {
            if (!t.values.empty()) expect(',');
            skip_blanks();
            const bool negative = accept('-');
            t.values.push_back(negative ? -number() : number());
            skip_blanks();
          }
        } else {
          const bool negative = accept('-');
          t.value = negative ? -number() : number();
        }
      }
      out.push_back(std::move(t));
      skip_blanks();
      if (accept('}')) return out;
      expect(',');
    }
  }

  RewriteAttr attribute() {
    RewriteAttr a;
    a.name = identifier("an attribute");
    skip_blanks();
    if (!accept('=')) {
      a.kind = RewriteAttr::Kind::kCopyFrom;
      a.from = std::move(a.name);
      a.name.clear();
      return a;
    }
    skip_blanks();
    if (accept('@')) {
      a.kind = RewriteAttr::Kind::kOpTypeOf;
      a.from = identifier("a variable after '@'");
    } else if (text_.substr(pos_, 5) == "ints(") {
      pos_ += 5;
      a.kind = RewriteAttr::Kind::kIntsOf;
      a.from = identifier("a constant's variable");
      expect(')');
    } else if (text_.substr(pos_, 9) == "uint8_of(") {
      pos_ += 9;
      a.kind = RewriteAttr::Kind::kUint8Of;
      a.from = identifier("a constant's variable");
      expect(')');
    } else if (text_.substr(pos_, 4) == "dim(") {
      pos_ += 4;
      a.kind = RewriteAttr::Kind::kDimOf;
      a.from = identifier("a constant's variable");
      expect(',');
      a.integer = number();
      expect(')');
    } else if (text_.substr(pos_, 7) == "tensor(" || accept('(')) {
      a.kind = RewriteAttr::Kind::kInts;
      if (text_.substr(pos_, 7) == "tensor(") {
        pos_ += 7;
        a.kind = RewriteAttr::Kind::kTensor;
        skip_blanks();
        if (!at_end() && ident_start(peek())) {
          a.kind = RewriteAttr::Kind::kTensorOfAttr;
          // (Identifiers may hold dots: the last one splits the variable from the attribute.)
          const std::string both = identifier("'v.attribute' in 'tensor(...)'");
          const std::size_t dot = both.rfind('.');
          if (dot == std::string::npos || dot == 0 || dot + 1 == both.size()) {
            fail("expected 'v.attribute' in 'tensor(...)'");
          }
          a.from = both.substr(0, dot);
          a.text = both.substr(dot + 1);
          expect(')');
          return a;
        }
      }
      for (skip_blanks(); !accept(')');) {
        if (!a.integers.empty()) expect(',');
        skip_blanks();
        const bool negative = accept('-');
        a.integers.push_back(negative ? -number() : number());
        skip_blanks();
      }
    } else if (accept('"')) {
      a.kind = RewriteAttr::Kind::kString;
      while (!at_end() && peek() != '"') a.text += text_[pos_++];
      expect('"');
    } else if (const std::optional<float> real = real_number()) {
      a.kind = RewriteAttr::Kind::kFloat;
      a.real = *real;
    } else {
      a.kind = RewriteAttr::Kind::kInt;
      const bool negative = accept('-');
      a.integer = negative ? -number() : number();
    }
    return a;
  }

  std::string identifier(const char* what) {
    skip_blanks();
    if (at_end() || !ident_start(peek())) fail(std::string("expected ") + what);
    const std::size_t start = pos_;
    while (!at_end() && ident_char(peek())) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }
  /// A number written with a fraction or an exponent (`0.5`, `-1e-5`), consumed; nullopt (and
  /// nothing consumed) for an integer.
  std::optional<float> real_number() {
    skip_blanks();
    std::size_t end = pos_;
    if (end < text_.size() && (text_[end] == '-' || text_[end] == '+')) ++end;
    bool fraction = false;
    while (end < text_.size()) {
      const char c = text_[end];
      if (c == '.' || c == 'e' || c == 'E') {
        fraction = true;
      } else if (!std::isdigit(static_cast<unsigned char>(c)) &&
                 !((c == '-' || c == '+') && (text_[end - 1] == 'e' || text_[end - 1] == 'E'))) {
        break;
      }
      ++end;
    }
    if (!fraction) return std::nullopt;
    // from_chars: the C locale's decimal point whatever the process's locale; no leading '+'.
    const char* first = text_.data() + pos_ + (text_[pos_] == '+' ? 1 : 0);
    const char* last = text_.data() + end;
    float value = 0.0F;
    const auto [stop, error] = std::from_chars(first, last, value);
    if (error != std::errc() || stop != last || !std::isfinite(value)) fail("expected a number");
    pos_ = end;
    return value;
  }

  std::int64_t number() {
    skip_blanks();
    if (at_end() || !std::isdigit(static_cast<unsigned char>(peek()))) fail("expected a number");
    std::int64_t v = 0;
    while (!at_end() && std::isdigit(static_cast<unsigned char>(peek()))) {
      if (v > 1'000'000'000'000LL) fail("number too large");
      v = v * 10 + (text_[pos_++] - '0');
    }
    return v;
  }
  void expect(char c) {
    skip_blanks();
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }
  bool accept(char c) {
    if (at_end() || peek() != c) return false;
    ++pos_;
    return true;
  }
  void skip_blanks() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\r')) ++pos_;
    if (!at_end() && peek() == '#') {  // a comment runs to the end of its line
      while (!at_end() && peek() != '\n') ++pos_;
    }
  }
  void skip_separators() {
    for (;;) {
      skip_blanks();
      if (at_end() || (peek() != ';' && peek() != '\n')) return;
      ++pos_;
    }
  }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return text_[pos_]; }
  [[noreturn]] void fail(const std::string& what) const {
    throw PluginError("rewrite '" + rule_ + "': " + side_ + " at character " +
                      std::to_string(pos_ + 1) + ": " + what);
  }

  std::string_view text_;
  const std::string& rule_;
  const char* side_;
  std::size_t pos_ = 0;
};

/// The checks that make matching well defined (see the header).
void check_rule(const RewriteRule& r) {
  auto fail = [&r](const std::string& what) {
    throw PluginError("rewrite '" + r.name + "': " + what);
  };
  std::set<std::string> produced;
  for (const RewriteNode& n : r.pattern) {
    for (const std::string& o : n.outputs) {
      if (o != "_" && !produced.insert(o).second) fail("pattern output '" + o + "' made twice");
    }
  }
  if (r.pattern.back().absent) {
    fail("the pattern's last node cannot be a 'not' condition");
  }
  // Every pattern node but the last is reached from the last through inputs.
  std::vector<std::size_t> frontier{r.pattern.size() - 1};
  std::set<std::size_t> seen{r.pattern.size() - 1};
  while (!frontier.empty()) {
    const RewriteNode& n = r.pattern[frontier.back()];
    frontier.pop_back();
    for (const RewriteArg& a : n.inputs) {
      auto maker = r.produced_by.find(a.var);
      if (maker != r.produced_by.end() && seen.insert(maker->second).second) {
        frontier.push_back(maker->second);
      }
    }
  }
  if (seen.size() != r.pattern.size()) {
    fail("a pattern node is not an input, direct or not, of the pattern's last node");
  }
  std::set<std::string> bound;  // every variable the pattern binds
  for (const RewriteNode& n : r.pattern) {
    for (const std::string& o : n.outputs) bound.insert(o);
    for (const RewriteArg& a : n.inputs) {
      bound.insert(a.var);
      if (a.constant && produced.count(a.var) != 0) {
        fail("'" + a.var + "' is made by the pattern; it cannot be 'const'");
      }
    }
  }
  for (const RewriteNode& n : r.pattern) {
    for (const RewriteArg& a : n.inputs) {
      for (const auto& clause : a.dim_tests) {
        for (const RewriteArg::DimTest& t : clause) {
          if (!t.other.empty() && bound.count(t.other) == 0) {
            fail("'" + a.var + "' is compared with '" + t.other +
                 "', which the pattern does not bind");
          }
        }
      }
    }
  }
  std::set<std::string> made;
  for (const RewriteNode& n : r.replacement) {
    for (const RewriteArg& a : n.inputs) {
      if (a.var == "_") continue;  // an absent input
      if (bound.count(a.var) == 0 && made.count(a.var) == 0) {
        fail("the replacement reads '" + a.var + "', which the pattern does not bind");
      }
    }
    for (const RewriteAttr& a : n.attributes) {
      if (a.kind == RewriteAttr::Kind::kDimOf || a.kind == RewriteAttr::Kind::kIntsOf ||
          a.kind == RewriteAttr::Kind::kUint8Of) {
        if (bound.count(a.from) == 0) {
          fail("the replacement's attribute reads the dims of '" + a.from +
               "', which the pattern does not bind");
        }
        continue;
      }
      if (!a.from.empty() && produced.count(a.from) == 0) {
        fail("the replacement's attribute refers to '" + a.from + "', which no pattern node makes");
      }
    }
    for (const std::string& o : n.outputs) {
      if (produced.count(o) == 0 && bound.count(o) != 0) {
        fail("the replacement writes '" + o + "', an input of the pattern");
      }
      made.insert(o);
    }
    if (n.is_rename() && produced.count(n.inputs[0].var) != 0) {
      fail("a rename reads a value the pattern makes ('" + n.inputs[0].var + "')");
    }
    if (n.kind == RewriteNode::Kind::kTakeName &&
        (produced.count(n.inputs[0].var) != 0 || produced.count(n.outputs[0]) == 0)) {
      fail("'y <- x' gives the name of a value the pattern makes (y) to one it reads (x)");
    }
    if (n.kind == RewriteNode::Kind::kReroute && produced.count(n.inputs[0].var) == 0) {
      fail("a reroute moves the readers of a value the pattern makes, not of '" + n.inputs[0].var +
           "'");
    }
  }
}

}  // namespace

bool RewriteOps::accepts(std::string_view node_domain, std::string_view op_type,
                         std::string_view mark) const {
  const bool named =
      mark.empty()
          ? (any_op || std::find(op_types.begin(), op_types.end(), op_type) != op_types.end()) &&
                normalize_domain(node_domain) == domain
          : std::find(marks.begin(), marks.end(), mark) != marks.end();
  return named != negated;
}

RewriteRule parse_rewrite_rule(std::string name, std::string_view pattern,
                               std::string_view replacement, std::int32_t pass) {
  if (name.empty()) throw PluginError("a rewrite without a name");
  RewriteRule r;
  r.name = std::move(name);
  r.pattern_text = std::string(pattern);
  r.replacement_text = std::string(replacement);
  r.pass = pass;
  if (pattern.starts_with("builtin:")) {
    r.builtin = std::string(pattern.substr(8));
    if (r.builtin != kCommonSubexpressions && r.builtin != kSameTypeCasts &&
        r.builtin != kConstantReshapeShapes && r.builtin != kUniqueDequantizePerReader) {
      throw PluginError("rewrite '" + r.name + "': no built-in rewrite '" + r.builtin +
                        "' (there are builtin:" + std::string(kCommonSubexpressions) +
                        ", builtin:" + std::string(kSameTypeCasts) +
                        ", builtin:" + std::string(kConstantReshapeShapes) +
                        " and builtin:" + std::string(kUniqueDequantizePerReader) + ")");
    }
    if (!replacement.empty()) {
      throw PluginError("rewrite '" + r.name + "': a built-in rewrite takes no replacement");
    }
    return r;
  }
  r.pattern = Reader(pattern, r.name, "pattern").nodes(false);
  r.replacement = Reader(replacement, r.name, "replacement").nodes(true);
  for (std::size_t k = 0; k < r.pattern.size(); ++k) {
    for (const std::string& o : r.pattern[k].outputs) {
      if (o != "_") r.produced_by.emplace(o, k);
    }
  }
  if (r.replacement.empty()) {
    for (const RewriteNode& n : r.pattern) {
      if (n.keep || n.absent) continue;
      for (const std::string& o : n.outputs) {
        if (o != "_") {
          throw PluginError("rewrite '" + r.name +
                            "': an empty replacement removes unread nodes only: write the "
                            "output '" +
                            o + "' as '_'");
        }
      }
    }
  }
  check_rule(r);
  return r;
}

}  // namespace cctx
