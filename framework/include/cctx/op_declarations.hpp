// Declarative custom ops: the `ops:` section of a profile (config/profiles/README.md, "Declarative
// ops"). Each entry describes a simple operator in YAML: its outputs' element types and shapes as
// expressions over the node's input dims and integer attributes, tags per input, in-place pairs
// and a scratch estimate. The host turns each entry into rule objects registered like a plugin's.
#pragma once

#include <cctx/sdk/rules.hpp>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cctx {

namespace detail {
struct DimProgram;  // compiled form of an expression (framework/src/declarative/dim_program.hpp)
}

/// One expression of a declarative op, parsed and checked when the profile is read.
struct DeclaredDim {
  std::string text;  ///< as written in the profile
  std::string name;  ///< the field it came from, for messages: "outputs[0].shape[2]"
  std::shared_ptr<const detail::DimProgram> program;
};

/// One output of a declarative op.
struct DeclaredOutput {
  enum class DtypeFrom : std::uint8_t {
    kInput,      ///< `dtype: inK`: input K's element type
    kFixed,      ///< `dtype: float16`: a fixed element type
    kAttribute,  ///< `dtype: attr.to`: the ONNX type code held by an INT attribute
  };
  DtypeFrom dtype_from = DtypeFrom::kInput;
  std::uint32_t dtype_input = 0;
  std::int32_t dtype = 0;
  std::string dtype_attribute;

  bool shape_from_input = false;  ///< `shape: inK`: input K's shape (unknown rank stays unknown)
  std::uint32_t shape_input = 0;
  std::vector<DeclaredDim> dims;  ///< `shape: [e0, e1, ...]` otherwise
};

/// What one input of a declarative op must be (`inputs: [{rank: 2}, {optional: true}]`).
struct DeclaredInput {
  static constexpr std::int32_t kAnyRank = std::numeric_limits<std::int32_t>::max();
  bool optional = false;  ///< the node may omit it (an empty name, or fewer inputs)
  bool has_rank = false;  ///< `rank:` given; an unknown rank then does not fit either
  std::int32_t min_rank = 0;
  std::int32_t max_rank = kAnyRank;
  /// `dtype: float` or `dtype: [float, float16]`: the element types it may have (empty: any).
  std::vector<std::int32_t> dtypes;
};

/// One entry of `requires:`, e.g. `eq(in0[-1], in1[0])`: what the operator cannot run without.
/// A node where it is provably false is refused; otherwise it is a requirement of the node.
struct DeclaredRequirement {
  enum class Kind : std::uint8_t { kEq, kLe, kDivides };
  Kind kind = Kind::kEq;
  std::string text;  ///< as written
  DeclaredDim a, b;  ///< divides(a, b): a divides b
};

/// One entry of `ops:`.
struct DeclaredOp {
  static constexpr std::uint32_t kAnyInputs = std::numeric_limits<std::uint32_t>::max();

  std::string domain;  ///< normalized: "" is ai.onnx
  std::string op_type;
  std::int32_t since_version = 1;
  std::uint32_t min_inputs = 0;  ///< `inputs:`; 0..kAnyInputs when not given
  std::uint32_t max_inputs = kAnyInputs;
  /// `inputs:` given as a list of requirements, one per input (min/max_inputs follow from it);
  /// empty for a count or a range.
  std::vector<DeclaredInput> input_specs;
  std::vector<DeclaredOutput> outputs;
  /// `defaults:` values of integer attributes the node may omit.
  std::map<std::string, std::int64_t, std::less<>> defaults;

  bool has_tags = false;  ///< `tags:` given: registers tag traits
  sdk::Tag node_tag = sdk::Tag::kNone;
  std::vector<sdk::PositionalTag> input_tags;
  sdk::TagInherit inherit = sdk::TagInherit::kInput0;
  sdk::TagBackward backward = sdk::TagBackward::kNone;

  /// `may_reuse:`, `alias:` or `write_into:` given: registers an in-place policy
  bool has_inplace = false;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> may_reuse;  ///< (output, input)
  std::vector<std::pair<std::uint32_t, std::uint32_t>> alias;      ///< (output, input)
  /// `write_into: [{output, input, capacity}]`: the output is written into the input's buffer,
  /// which has room for `capacity` bytes (IInplaceSink::write_into).
  struct WriteInto {
    std::uint32_t output = 0;
    std::uint32_t input = 0;
    DeclaredDim capacity;
  };
  std::vector<WriteInto> write_into;

  std::optional<DeclaredDim> scratch;             ///< `scratch:` working bytes
  std::vector<DeclaredRequirement> requirements;  ///< `requires:`, checked by the shape rule

  bool override_rules = false;  ///< `override: true`: may replace a plugin's rules of this key
  std::string where;            ///< "file:line:column" of the entry
};

}  // namespace cctx
