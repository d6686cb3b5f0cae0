// The generated attribute table (src/model/onnx_attributes.hpp) answers as ONNX's schema registry
// does, for every operator, domain and opset from 0 to past the newest.
#include "model/onnx_attributes.hpp"

#include <gtest/gtest.h>
#include <onnx/defs/schema.h>

#include <set>
#include <string>

namespace cctx::detail {
namespace {

TEST(OnnxAttributes, EveryLookupMatchesTheRegistry) {
  std::set<std::pair<std::string, std::string>> ops;
  for (const onnx::OpSchema& s : onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
    ops.emplace(s.domain(), s.Name());
  }
  ASSERT_GT(ops.size(), 150U);
  int checked = 0;
  for (const auto& [domain, op] : ops) {
    for (int opset = 0; opset <= 30; ++opset) {
      const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(op, opset, domain);
      const auto table = onnx_schema_attributes(op, opset, domain);
      ASSERT_EQ(schema != nullptr, table.has_value()) << domain << "::" << op << " " << opset;
      if (schema == nullptr) continue;
      ASSERT_EQ(schema->attributes().size(), table->size()) << op << " " << opset;
      for (const auto& [name, attribute] : schema->attributes()) {
        const OnnxAttribute* a = find_attribute(*table, name);
        ASSERT_NE(a, nullptr) << op << " " << opset << " " << name;
        EXPECT_EQ(a->type, static_cast<int>(attribute.type)) << op << " " << name;
        EXPECT_EQ(a->required, attribute.required) << op << " " << name;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 3000);
  EXPECT_FALSE(onnx_schema_attributes("NoSuchOp", 17, "").has_value());
  EXPECT_FALSE(onnx_schema_attributes("Relu", 17, "com.vendor").has_value());
  EXPECT_EQ(find_attribute(*onnx_schema_attributes("Conv", 17, ""), "no_such"), nullptr);
}

}  // namespace
}  // namespace cctx::detail
