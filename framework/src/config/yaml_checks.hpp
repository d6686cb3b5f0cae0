// Checked reading of yaml-cpp nodes for configuration files. Every failure is a ConfigError whose
// message is one line: `<source>:<line>:<column>: <message>`, naming the key and, where there is a
// fixed set of choices, listing them. Private to framework/src/config.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text/nearest_word.hpp"

namespace cctx::detail {

/// A node together with its dotted name ("shapes.strict", "plugins[0].options") and the mark of
/// the key that introduced it. yaml-cpp marks an implicit null (`key:` and nothing) at the next
/// token, often on a later line, so messages about nulls point at the key instead.
struct Field {
  YAML::Node node;
  std::string name;
  YAML::Mark key_mark;

  /// The best position to report a problem with this value.
  YAML::Mark mark() const;
  /// The name of a member of this field: "<name>.<key>", or just "<key>" at the top level.
  std::string member(std::string_view key) const;
  /// The name of an item of this (list) field: "<name>[<index>]".
  std::string item(std::size_t index) const;
};

/// One key/value pair of a checked map, in document order.
struct Entry {
  std::string key;
  Field value;
  YAML::Mark key_mark;
};

/// `file:line:column` (1-based) for a mark, or just the file when yaml-cpp has no position.
std::string location(std::string_view source, const YAML::Mark& mark);

/// Text quoted for a one-line message: control characters escaped, long text shortened.
std::string quote(std::string_view text);

/// What a node is, for "got ..." in messages: the quoted scalar, "a list", "a map", "nothing".
std::string describe(const YAML::Node& node);

/// Joins choices with ", " for "allowed: ..." lists.
std::string join(std::span<const std::string_view> words);

/// True for `[A-Za-z_][A-Za-z0-9_]*`.
bool is_symbol_name(std::string_view text);

/// Reads the values of one configuration source; every check throws ConfigError naming `source`.
class Checker {
 public:
  explicit Checker(std::string source) : source_(std::move(source)) {}

  const std::string& source() const { return source_; }

  /// Throws ConfigError("<source>:<line>:<column>: <message>").
  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const;

  /// The entries of a map field, checked: keys are plain scalars, unique and (unless `allowed` is
  /// empty) among `allowed`. A null field is an empty map. `context` names the map in messages.
  std::vector<Entry> entries(const Field& field, std::string_view context,
                             std::span<const std::string_view> allowed) const;

  /// The items of a list field. A null field is an empty list.
  std::vector<Field> items(const Field& field, std::string_view expectation) const;

  /// `true`/`false` (also `True`, `TRUE`, ...); anything else is an error.
  bool boolean(const Field& field) const;

  /// A decimal integer in [lo, hi]; floats, other text and overflow are errors.
  std::int64_t integer(const Field& field, std::int64_t lo = 0,
                       std::int64_t hi = std::numeric_limits<std::int64_t>::max()) const;

  /// Scalar text; null, lists and maps are errors ("a string" is the default expectation).
  std::string scalar(const Field& field, std::string_view expectation = "a string") const;

  /// Non-empty scalar text.
  std::string non_empty(const Field& field, std::string_view expectation) const;

  /// Scalar text that must be one of `choices`.
  std::string one_of(const Field& field, std::span<const std::string_view> choices) const;

  /// Expands `${VAR}` from the environment; an unset variable or a malformed reference is an
  /// error at the field.
  std::string expand_env(const Field& field, std::string_view text) const;

 private:
  std::string source_;
};

/// Parses a decimal integer (optional sign); `overflow` tells out-of-range numbers apart.
bool parse_integer(std::string_view text, std::int64_t& value, bool& overflow);

/// The field for a document's root node.
Field root_field(const YAML::Node& root);

/// A map of relations `SYM: EXPR` (a profile's report.let, a scenario file's let), each name a
/// symbol name and each expression parsed; `where` names the map in messages.
std::vector<std::pair<std::string, std::string>> read_relations(const Checker& check,
                                                                const Field& field,
                                                                std::string_view where);

}  // namespace cctx::detail
