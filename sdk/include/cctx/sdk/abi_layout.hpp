/// @file abi_layout.hpp
/// The layout of every struct that crosses the boundary, checked at compile time in the host and
/// in every plugin (plugin.hpp includes this file). A change that moves a member or grows a
/// struct anywhere but at its end fails to compile here instead of corrupting a plugin built
/// against an older SDK. Appending a member (a minor ABI bump) updates the size below and adds
/// its offset; nothing else may change within ABI 1. The order of interface methods is checked
/// by tests/unit/sdk_abi_test.cpp (vtable slots cannot be read at compile time).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cctx/sdk/abi.hpp"
#include "cctx/sdk/dims.hpp"
#include "cctx/sdk/node_view.hpp"
#include "cctx/sdk/registrar.hpp"
#include "cctx/sdk/rules.hpp"
#include "cctx/sdk/schema.hpp"
#include "cctx/sdk/types.hpp"

namespace cctx::sdk {
inline namespace v1 {
namespace abi_layout {

// Every enum that crosses is 32 bits wide, whatever the compiler would choose.
static_assert(sizeof(Status) == 4 && sizeof(ValueKind) == 4 && sizeof(Tag) == 4 &&
              sizeof(AttrType) == 4 && sizeof(ExprOp) == 4 && sizeof(DimRelation) == 4 &&
              sizeof(ConstraintKind) == 4 && sizeof(TagInherit) == 4 && sizeof(TagBackward) == 4);

static_assert(sizeof(ToolchainTag) == 12 && offsetof(ToolchainTag, stdlib) == 0 &&
              offsetof(ToolchainTag, stdlib_abi) == 4 && offsetof(ToolchainTag, checked) == 8);
static_assert(sizeof(PositionalTag) == 8 && offsetof(PositionalTag, input) == 0 &&
              offsetof(PositionalTag, tag) == 4);

// The rest holds pointers: laid out for the 64-bit targets cctx is built and tested on (LP64 and
// LLP64 agree on these). A 32-bit port adds its own table here.
#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
static_assert(sizeof(StringRef) == 16 && offsetof(StringRef, data) == 0 &&
              offsetof(StringRef, size) == 8);
static_assert(sizeof(Span<std::int64_t>) == 16 && offsetof(Span<std::int64_t>, data) == 0 &&
              offsetof(Span<std::int64_t>, size) == 8);
static_assert(sizeof(PluginDescriptor) == 48 && offsetof(PluginDescriptor, struct_size) == 0 &&
              offsetof(PluginDescriptor, abi_major) == 4 &&
              offsetof(PluginDescriptor, abi_minor) == 8 &&
              offsetof(PluginDescriptor, toolchain) == 12 &&
              offsetof(PluginDescriptor, name) == 24 && offsetof(PluginDescriptor, version) == 32 &&
              offsetof(PluginDescriptor, register_rules) == 40);
static_assert(sizeof(ExprApi) == 80 && offsetof(ExprApi, struct_size) == 0 &&
              offsetof(ExprApi, pool) == 8 && offsetof(ExprApi, integer) == 16 &&
              offsetof(ExprApi, binary) == 24 && offsetof(ExprApi, nary) == 32 &&
              offsetof(ExprApi, as_int) == 40 && offsetof(ExprApi, compare) == 48 &&
              offsetof(ExprApi, print) == 56 && offsetof(ExprApi, parse) == 64 &&
              offsetof(ExprApi, bounds) == 72);
static_assert(sizeof(TensorAttr) == 56 && offsetof(TensorAttr, dtype) == 0 &&
              offsetof(TensorAttr, dims) == 8 && offsetof(TensorAttr, int_values) == 24 &&
              offsetof(TensorAttr, float_values) == 40);
static_assert(sizeof(ValueDesc) == 40 && offsetof(ValueDesc, kind) == 0 &&
              offsetof(ValueDesc, dtype) == 4 && offsetof(ValueDesc, rank) == 8 &&
              offsetof(ValueDesc, dims) == 16 && offsetof(ValueDesc, value_size) == 24 &&
              offsetof(ValueDesc, values) == 32);
static_assert(sizeof(TagTraits) == 32 && offsetof(TagTraits, explicit_tag) == 0 &&
              offsetof(TagTraits, constant_like) == 4 && offsetof(TagTraits, positional) == 8 &&
              offsetof(TagTraits, inherit) == 24 && offsetof(TagTraits, backward) == 28);
static_assert(sizeof(RuleKey) == 40 && offsetof(RuleKey, domain) == 0 &&
              offsetof(RuleKey, op_type) == 16 && offsetof(RuleKey, since_version) == 32);
static_assert(sizeof(InputDecl) == 48 && offsetof(InputDecl, name) == 0 &&
              offsetof(InputDecl, flags) == 16 && offsetof(InputDecl, min_rank) == 20 &&
              offsetof(InputDecl, max_rank) == 24 && offsetof(InputDecl, dtypes) == 32);
static_assert(sizeof(AttributeDecl) == 104 && offsetof(AttributeDecl, name) == 0 &&
              offsetof(AttributeDecl, type) == 16 && offsetof(AttributeDecl, flags) == 20 &&
              offsetof(AttributeDecl, int_default) == 24 &&
              offsetof(AttributeDecl, float_default) == 32 &&
              offsetof(AttributeDecl, string_default) == 40 &&
              offsetof(AttributeDecl, ints_default) == 56 &&
              offsetof(AttributeDecl, floats_default) == 72 &&
              offsetof(AttributeDecl, min_value) == 88 && offsetof(AttributeDecl, max_value) == 96);
static_assert(sizeof(OpSchemaDecl) == 48 && offsetof(OpSchemaDecl, struct_size) == 0 &&
              offsetof(OpSchemaDecl, until_version) == 4 && offsetof(OpSchemaDecl, inputs) == 8 &&
              offsetof(OpSchemaDecl, min_outputs) == 24 &&
              offsetof(OpSchemaDecl, max_outputs) == 28 &&
              offsetof(OpSchemaDecl, attributes) == 32);
#endif

}  // namespace abi_layout
}  // namespace v1
}  // namespace cctx::sdk
