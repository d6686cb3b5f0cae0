/// @file kit/schema.hpp
/// An operator's contract written as a list (IRegistrar::declare_schema, SDK 1.9):
///
/// @code
///   reg.schema("KvAppend", 1,
///              kit::Schema()
///                  .input("past", {dtype::kFloat}).rank(3)
///                  .input("new", {dtype::kFloat}).rank(3)
///                  .required_int("max_len").at_least(1));
/// @endcode
///
/// The host checks each node of the operator against it before any rule runs, and a rule reads
/// a declared attribute the node omits as its default (`int_attr("num_heads", 1)`), so rule
/// bodies hold neither the contract nor the defaults. The builder owns its text and lists;
/// `declare()` hands the host borrowed views of them, which the host copies.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "cctx/sdk/registrar.hpp"
#include "cctx/sdk/schema.hpp"

namespace cctx::sdk::kit {

class Schema {
 public:
  /// A required input that may have the element types `dtypes` (empty: any).
  Schema& input(const char* name, std::initializer_list<std::int32_t> dtypes = {}) {
    return add_input(name, 0, dtypes);
  }
  /// An input the node may omit.
  Schema& optional_input(const char* name, std::initializer_list<std::int32_t> dtypes = {}) {
    return add_input(name, input_flags::kOptional, dtypes);
  }
  /// The last input, repeated any number of times (at least once unless `optional`).
  Schema& variadic_input(const char* name, std::initializer_list<std::int32_t> dtypes = {},
                         bool optional = false) {
    return add_input(name, input_flags::kVariadic | (optional ? input_flags::kOptional : 0U),
                     dtypes);
  }
  /// The last input has rank `rank`.
  Schema& rank(std::int32_t rank) { return ranks(rank, rank); }
  /// The last input's rank lies in [min_rank, max_rank] (-1: unbounded on that side).
  Schema& ranks(std::int32_t min_rank, std::int32_t max_rank) {
    if (!inputs_.empty()) {
      inputs_.back().min_rank = min_rank;
      inputs_.back().max_rank = max_rank;
    }
    return *this;
  }
  /// The node lists between `min` and `max` outputs (1 and 1 unless said).
  Schema& outputs(std::uint32_t min, std::uint32_t max) {
    min_outputs_ = min;
    max_outputs_ = max;
    return *this;
  }
  /// The newest opset the contract holds for (0, the default: until the next declared version).
  Schema& until(std::int32_t version) {
    until_ = version;
    return *this;
  }

  Schema& required_int(const char* name) { return required(name, AttrType::kInt); }
  Schema& int_attr(const char* name, std::int64_t fallback) {
    add_attribute(name, AttrType::kInt, attribute_flags::kHasDefault).int_default = fallback;
    return *this;
  }
  Schema& float_attr(const char* name, double fallback) {
    add_attribute(name, AttrType::kFloat, attribute_flags::kHasDefault).float_default = fallback;
    return *this;
  }
  Schema& string_attr(const char* name, const char* fallback) {
    add_attribute(name, AttrType::kString, attribute_flags::kHasDefault).string_default = fallback;
    return *this;
  }
  Schema& ints_attr(const char* name, std::initializer_list<std::int64_t> fallback) {
    add_attribute(name, AttrType::kInts, attribute_flags::kHasDefault).ints_default = fallback;
    return *this;
  }
  Schema& floats_attr(const char* name, std::initializer_list<float> fallback) {
    add_attribute(name, AttrType::kFloats, attribute_flags::kHasDefault).floats_default = fallback;
    return *this;
  }
  /// An attribute of `type` the node must have.
  Schema& required(const char* name, AttrType type) {
    add_attribute(name, type, attribute_flags::kRequired);
    return *this;
  }
  /// An attribute of `type` the node may omit, without a default (the rule tells the two apart).
  Schema& optional(const char* name, AttrType type) {
    add_attribute(name, type, 0);
    return *this;
  }
  /// The last attribute (INT, or each value of INTS) lies in [min, max].
  Schema& range(std::int64_t min, std::int64_t max) {
    if (!attributes_.empty()) {
      attributes_.back().flags |= attribute_flags::kHasRange;
      attributes_.back().min = min;
      attributes_.back().max = max;
    }
    return *this;
  }
  Schema& at_least(std::int64_t min) {
    return range(min, std::numeric_limits<std::int64_t>::max());
  }

  /// Declares this contract for `key` (IRegistrar::declare_schema).
  Status declare(IRegistrar& registrar, const RuleKey& key) const {
    std::vector<InputDecl> inputs;
    inputs.reserve(inputs_.size());
    for (const Input& in : inputs_) {
      InputDecl d;
      d.name = StringRef(in.name.data(), in.name.size());
      d.flags = in.flags;
      d.min_rank = in.min_rank;
      d.max_rank = in.max_rank;
      d.dtypes = Span<std::int32_t>{in.dtypes.data(), in.dtypes.size()};
      inputs.push_back(d);
    }
    std::vector<AttributeDecl> attributes;
    attributes.reserve(attributes_.size());
    for (const Attribute& a : attributes_) {
      AttributeDecl d;
      d.name = StringRef(a.name.data(), a.name.size());
      d.type = a.type;
      d.flags = a.flags;
      d.int_default = a.int_default;
      d.float_default = a.float_default;
      d.string_default = StringRef(a.string_default.data(), a.string_default.size());
      d.ints_default = Span<std::int64_t>{a.ints_default.data(), a.ints_default.size()};
      d.floats_default = Span<float>{a.floats_default.data(), a.floats_default.size()};
      d.min_value = a.min;
      d.max_value = a.max;
      attributes.push_back(d);
    }
    OpSchemaDecl decl;
    decl.until_version = until_;
    decl.inputs = Span<InputDecl>{inputs.data(), inputs.size()};
    decl.min_outputs = min_outputs_;
    decl.max_outputs = max_outputs_;
    decl.attributes = Span<AttributeDecl>{attributes.data(), attributes.size()};
    return registrar.declare_schema(key, decl);
  }

 private:
  struct Input {
    std::string name;
    std::uint32_t flags = 0;
    std::int32_t min_rank = -1;
    std::int32_t max_rank = -1;
    std::vector<std::int32_t> dtypes;
  };
  struct Attribute {
    std::string name;
    AttrType type = AttrType::kInt;
    std::uint32_t flags = 0;
    std::int64_t int_default = 0;
    double float_default = 0;
    std::string string_default;
    std::vector<std::int64_t> ints_default;
    std::vector<float> floats_default;
    std::int64_t min = 0;
    std::int64_t max = 0;
  };

  Schema& add_input(const char* name, std::uint32_t flags,
                    std::initializer_list<std::int32_t> dtypes) {
    inputs_.push_back(Input{name, flags, -1, -1, dtypes});
    return *this;
  }
  Attribute& add_attribute(const char* name, AttrType type, std::uint32_t flags) {
    attributes_.push_back(Attribute{});
    attributes_.back().name = name;
    attributes_.back().type = type;
    attributes_.back().flags = flags;
    return attributes_.back();
  }

  std::vector<Input> inputs_;
  std::vector<Attribute> attributes_;
  std::uint32_t min_outputs_ = 1;
  std::uint32_t max_outputs_ = 1;
  std::int32_t until_ = 0;
};

}  // namespace cctx::sdk::kit
