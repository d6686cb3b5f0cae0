// The order of every SDK interface's virtual methods: a plugin built against an older SDK calls
// the host through vtable slots, so a method moved, inserted in the middle or removed breaks every
// such plugin silently. Struct layouts are checked at compile time (cctx/sdk/abi_layout.hpp); slots
// are read here from pointers to member functions, which the Itanium C++ ABI (GCC, Clang on Linux
// and macOS) encodes as 1 + the slot's byte offset in the vtable.
#include <gtest/gtest.h>

#include <cctx/sdk/plugin.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace cctx::sdk {
namespace {

/// The vtable slot of a virtual member function.
template <class Method>
std::ptrdiff_t slot(Method method) {
  struct Itanium {
    std::uintptr_t ptr;
    std::ptrdiff_t adjust;
  };
  static_assert(sizeof(Method) == sizeof(Itanium));
  Itanium raw{};
  std::memcpy(&raw, &method, sizeof raw);
  if ((raw.ptr & 1U) == 0) return -1;  // not virtual
  return static_cast<std::ptrdiff_t>((raw.ptr - 1) / sizeof(void*));
}

struct Slot {
  const char* name;
  std::ptrdiff_t actual;
};

/// Slots must be 0, 1, 2, ... in the order listed, which is the order of the ABI's history.
void expect_in_order(const char* interface, const std::vector<Slot>& slots) {
  for (std::size_t k = 0; k < slots.size(); ++k) {
    EXPECT_EQ(slots[k].actual, static_cast<std::ptrdiff_t>(k))
        << interface << "::" << slots[k].name << " moved";
  }
}

#define CCTX_SLOT(I, m) \
  Slot { #m, slot(&I::m) }
// For a name with inline overloads: the virtual one, by its exact type.
#define CCTX_SLOT_AS(I, m, type) \
  Slot { #m, slot(static_cast <type>(&I::m)) }

TEST(SdkAbi, NodeViewMethodOrder) {
  using I = INodeView;
  expect_in_order("INodeView", {CCTX_SLOT(I, op_type),
                                CCTX_SLOT(I, domain),
                                CCTX_SLOT(I, name),
                                CCTX_SLOT(I, opset_version),
                                CCTX_SLOT(I, node_index),
                                CCTX_SLOT(I, expr),
                                CCTX_SLOT(I, input_count),
                                CCTX_SLOT(I, output_count),
                                CCTX_SLOT(I, has_input),
                                CCTX_SLOT(I, has_output),
                                CCTX_SLOT(I, input_name),
                                CCTX_SLOT(I, output_name),
                                CCTX_SLOT(I, input_kind),
                                CCTX_SLOT(I, input_dtype),
                                CCTX_SLOT(I, input_rank),
                                CCTX_SLOT(I, input_dim_handle),
                                CCTX_SLOT(I, input_value_size),
                                CCTX_SLOT(I, input_value_handle),
                                CCTX_SLOT(I, input_float_values),
                                CCTX_SLOT(I, input_is_constant),
                                CCTX_SLOT(I, attribute_type),
                                CCTX_SLOT(I, attr_int),
                                CCTX_SLOT(I, attr_float),
                                CCTX_SLOT(I, attr_string),
                                CCTX_SLOT(I, attr_ints),
                                CCTX_SLOT(I, attr_floats),
                                CCTX_SLOT(I, attr_strings_count),
                                CCTX_SLOT(I, attr_string_at),
                                CCTX_SLOT(I, attr_tensor),
                                CCTX_SLOT(I, attr_graph_inputs),
                                CCTX_SLOT(I, attr_graph_outputs),
                                CCTX_SLOT(I, input_sequence_length),         // 1.0
                                CCTX_SLOT(I, input_element_rank),            // 1.0
                                CCTX_SLOT(I, input_element_dim_handle),      // 1.0
                                CCTX_SLOT(I, input_sequence_length_handle),  // 1.1
                                CCTX_SLOT(I, input_fraction_handles),        // 1.3
                                CCTX_SLOT(I, input_float_handles)});         // 1.5
}

TEST(SdkAbi, ShapeSinkMethodOrder) {
  using I = IShapeSink;
  using Constraint =
      Status (I::*)(ConstraintKind, std::uint32_t, std::uint32_t, std::uint32_t) noexcept;
  expect_in_order("IShapeSink", {CCTX_SLOT(I, set_output),
                                 CCTX_SLOT(I, set_output_value),
                                 CCTX_SLOT(I, fresh_dim),
                                 CCTX_SLOT_AS(I, constraint, Constraint),
                                 CCTX_SLOT(I, warn),
                                 CCTX_SLOT(I, fail),
                                 CCTX_SLOT(I, infer_body),
                                 CCTX_SLOT(I, set_output_elements),
                                 CCTX_SLOT(I, set_output_length_handle),          // 1.1
                                 CCTX_SLOT(I, bound_fresh_dim_handle),            // 1.3
                                 CCTX_SLOT(I, set_output_fraction_handles),       // 1.3
                                 CCTX_SLOT(I, set_output_element_count_handle),   // 1.4
                                 CCTX_SLOT(I, body_output_element_count_handle),  // 1.4
                                 CCTX_SLOT(I, require_handles),                   // 1.4
                                 CCTX_SLOT(I, float_term_handle),                 // 1.5
                                 CCTX_SLOT(I, float_constant_handle),             // 1.5
                                 CCTX_SLOT(I, float_to_dim_handle),               // 1.5
                                 CCTX_SLOT(I, set_output_float_handles),          // 1.5
                                 CCTX_SLOT(I, body_refusals),                     // 1.6
                                 CCTX_SLOT(I, skip_body)});                       // 1.6
}

TEST(SdkAbi, ScratchSinkMethodOrder) {
  using I = IScratchSink;
  expect_in_order("IScratchSink", {CCTX_SLOT(I, set_bytes_handle), CCTX_SLOT(I, fail),
                                   CCTX_SLOT(I, set_constant_bytes),  // 1.2
                                   CCTX_SLOT(I, add_block_handle)});  // 1.10
}

TEST(SdkAbi, OtherSinksMethodOrder) {
  expect_in_order("IBodyOutputs", {CCTX_SLOT(IBodyOutputs, on_output)});
  expect_in_order("ITagSink",
                  {CCTX_SLOT(ITagSink, input_tag), CCTX_SLOT(ITagSink, output_tag),
                   CCTX_SLOT(ITagSink, merge_input_tag), CCTX_SLOT(ITagSink, merge_output_tag),
                   CCTX_SLOT(ITagSink, set_node_tag), CCTX_SLOT(ITagSink, fail)});
  expect_in_order("IInplaceSink",
                  {CCTX_SLOT(IInplaceSink, may_reuse), CCTX_SLOT(IInplaceSink, alias),
                   CCTX_SLOT(IInplaceSink, fail), CCTX_SLOT(IInplaceSink, write_into_handle)});
}

TEST(SdkAbi, RuleInterfacesHaveOneMethod) {
  expect_in_order("IShapeRule", {CCTX_SLOT(IShapeRule, infer)});
  expect_in_order("ITagRule", {CCTX_SLOT(ITagRule, apply)});
  expect_in_order("IInplacePolicy", {CCTX_SLOT(IInplacePolicy, declare)});
  expect_in_order("IScratchEstimator", {CCTX_SLOT(IScratchEstimator, estimate)});
}

TEST(SdkAbi, RegistrarMethodOrder) {
  using I = IRegistrar;
  expect_in_order(
      "IRegistrar",
      {CCTX_SLOT(I, declare_domain), CCTX_SLOT(I, add_shape_rule), CCTX_SLOT(I, add_tag_traits),
       CCTX_SLOT(I, add_tag_rule), CCTX_SLOT(I, add_inplace_policy),
       CCTX_SLOT(I, add_scratch_estimator), CCTX_SLOT(I, add_dtype), CCTX_SLOT(I, option),
       CCTX_SLOT(I, fail), CCTX_SLOT(I, accept_option),  // 1.2
       CCTX_SLOT(I, add_rewrite),                        // 1.7
       CCTX_SLOT(I, declare_schema)});                   // 1.9
}

// The version this SDK's plugins announce: the CHANGELOG's newest entry.
TEST(SdkAbi, ChangelogDescribesThisVersion) {
  const std::string version =
      std::to_string(CCTX_SDK_ABI_MAJOR) + "." + std::to_string(CCTX_SDK_ABI_MINOR);
  FILE* f = std::fopen(CCTX_TEST_SOURCE_DIR "/sdk/CHANGELOG.md", "rb");
  ASSERT_NE(f, nullptr);
  std::string text(1 << 16, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), f));
  std::fclose(f);
  const std::size_t first = text.find("\n## ");
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_EQ(text.substr(first + 4, version.size() + 4), "ABI " + version) << text;
}

}  // namespace
}  // namespace cctx::sdk
