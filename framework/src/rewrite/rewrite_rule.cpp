#include "rewrite/rewrite_rule.hpp"

#include <cctype>
#include <set>
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
    if (out.empty()) fail("no node");
    return out;
  }

 private:
  RewriteNode node(bool replacement) {
    RewriteNode n;
    for (;;) {
      n.outputs.push_back(identifier("an output name"));
      skip_blanks();
      if (!accept(',')) break;
    }
    expect('=');
    std::string first = identifier("an operator or a variable");
    skip_blanks();
    if (replacement && n.outputs.size() == 1 && (at_end() || peek() == ';' || peek() == '\n')) {
      n.inputs.push_back(RewriteArg{first});  // a rename: y = x
      return n;
    }
    if (accept(':')) {
      n.domain = std::string(normalize_domain(first));
      first = identifier("an operator");
    }
    n.op_types.push_back(first);
    skip_blanks();
    while (accept('|')) {
      n.op_types.push_back(identifier("an operator"));
      skip_blanks();
    }
    if (replacement && n.op_types.size() > 1) fail("a replacement node has one operator");
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
    return n;
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
      if (!a.constant) fail("'{...}' checks a constant: write 'const " + a.var + "{...}'");
      skip_blanks();
      if (text_.substr(pos_, 6) == "scalar") {
        pos_ += 6;
        a.scalar = true;
        expect('}');
        return a;
      }
      expect('d');
      a.dim_index = static_cast<std::int32_t>(number());
      expect('%');
      a.dim_multiple = number();
      if (a.dim_multiple <= 0) fail("a dim's multiple must be positive");
      expect('}');
      if (!a.constant) fail("'{d..}' checks a constant's dims: write 'const " + a.var + "{...}'");
    }
    return a;
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
    } else if (accept('"')) {
      a.kind = RewriteAttr::Kind::kString;
      while (!at_end() && peek() != '"') a.text += text_[pos_++];
      expect('"');
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
  // Every pattern node but the last is reached from the last through inputs.
  std::set<std::string> reached;
  std::vector<const RewriteNode*> todo{&r.pattern.back()};
  std::set<const RewriteNode*> seen{&r.pattern.back()};
  while (!todo.empty()) {
    const RewriteNode* n = todo.back();
    todo.pop_back();
    for (const RewriteArg& a : n->inputs) {
      for (const RewriteNode& m : r.pattern) {
        for (const std::string& o : m.outputs) {
          if (o == a.var && seen.insert(&m).second) todo.push_back(&m);
        }
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
  std::set<std::string> made;
  for (const RewriteNode& n : r.replacement) {
    for (const RewriteArg& a : n.inputs) {
      if (bound.count(a.var) == 0 && made.count(a.var) == 0) {
        fail("the replacement reads '" + a.var + "', which the pattern does not bind");
      }
    }
    for (const RewriteAttr& a : n.attributes) {
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
  }
}

}  // namespace

RewriteRule parse_rewrite_rule(std::string name, std::string_view pattern,
                               std::string_view replacement) {
  if (name.empty()) throw PluginError("a rewrite without a name");
  RewriteRule r;
  r.name = std::move(name);
  r.pattern_text = std::string(pattern);
  r.replacement_text = std::string(replacement);
  r.pattern = Reader(pattern, r.name, "pattern").nodes(false);
  r.replacement = Reader(replacement, r.name, "replacement").nodes(true);
  check_rule(r);
  return r;
}

}  // namespace cctx
