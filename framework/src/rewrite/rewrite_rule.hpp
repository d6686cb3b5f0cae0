// A graph rewrite stated as data: a pattern of nodes and what replaces them, in a small text
// form that plugins register (IRegistrar::add_rewrite) and docs/design/rewrites.md describes.
// It is a runtime's graph optimisation as far as memory sees it: which nodes become one, which
// values stop existing, which operator runs instead.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cctx {

/// One argument of a pattern or replacement node.
struct RewriteArg {
  std::string var;        ///< the variable's name
  bool optional = false;  ///< `?x`: the input may be absent (then x is absent everywhere)
  bool constant = false;  ///< `const x`: an initializer or a Constant node's output
  bool rest = false;      ///< `*x`: every remaining input, in order
  /// `x{d0%16}`: the constant's dim `dim_index` is a multiple of `dim_multiple` (0: no check).
  std::int32_t dim_index = -1;
  std::int64_t dim_multiple = 0;
  bool scalar = false;  ///< `const x{scalar}`: one element (every dim 1, or rank 0)
};

/// An attribute of a replacement node.
struct RewriteAttr {
  enum class Kind : std::uint8_t {
    kCopyFrom,  ///< `[c]`: every attribute of the node that produced variable `from`
    kString,    ///< `[name="text"]`
    kInt,       ///< `[name=3]`
    kOpTypeOf,  ///< `[name=@y]`: the op type of the node that produced variable `from`
  };
  Kind kind = Kind::kCopyFrom;
  std::string name;
  std::string from;  ///< the variable, for kCopyFrom and kOpTypeOf
  std::string text;
  std::int64_t integer = 0;
};

/// `y0, y1 = domain:Op|Other(args) [attrs]`, or `y = x` (a rename: readers of y read x).
struct RewriteNode {
  std::string domain;                 ///< normalised: "" for ai.onnx
  std::vector<std::string> op_types;  ///< alternatives; empty for a rename
  std::vector<std::string> outputs;   ///< `_` for an output that must be absent or unread
  std::vector<RewriteArg> inputs;
  std::vector<RewriteAttr> attributes;  ///< replacement nodes only
  bool is_rename() const { return op_types.empty(); }
};

struct RewriteRule {
  std::string name;
  std::string origin;                          ///< the plugin that registered it
  std::vector<RewriteNode> pattern;            ///< matched from the last node up through its inputs
  std::vector<RewriteNode> replacement;        ///< in order
  std::string pattern_text, replacement_text;  ///< as registered, for `cctx plugins`
};

/// Parses a rule; throws Error (exit code 4, a plugin's fault) naming the rule and what is
/// wrong: a syntax error, a pattern node its last node does not reach, a replacement that reads
/// or writes a variable the pattern does not bind.
RewriteRule parse_rewrite_rule(std::string name, std::string_view pattern,
                               std::string_view replacement);

}  // namespace cctx
