// The rule registry on its own (no plugin loaded): ONNX's since_version resolution, duplicate
// keys refused with both origins unless replaced, resolution of every kind at once, domains and
// plugin-registered element types.
#include "cctx/registry.hpp"

#include <gtest/gtest.h>

#include "cctx/errors.hpp"
#include "rewrite/rewrite_rule.hpp"

namespace cctx {
namespace {

/// Distinct addresses that stand for rules (never called): rule k is kRules + k.
constexpr std::size_t kRuleCount = 32;
const char kRules[kRuleCount] = {};

/// An entry whose rule pointer identifies it.
RuleEntry entry(std::size_t id, std::string origin) {
  RuleEntry e;
  e.rule = &kRules[id];
  e.origin = std::move(origin);
  return e;
}

std::size_t id_of(const void* rule) {
  return rule == nullptr ? 0 : static_cast<std::size_t>(static_cast<const char*>(rule) - kRules);
}
std::size_t id_of(const RuleEntry* e) { return e == nullptr ? 0 : id_of(e->rule); }

TEST(RuleRegistry, NewestSinceVersionAtOrBelowTheOpset) {
  RuleRegistry r;
  r.add(RuleKind::kShape, "", "Pad", 2, entry(2, "a"), false);
  r.add(RuleKind::kShape, "", "Pad", 11, entry(11, "a"), false);
  r.add(RuleKind::kShape, "", "Pad", 18, entry(18, "a"), false);
  EXPECT_EQ(id_of(r.find(RuleKind::kShape, "", "Pad", 1)), 0u);  // older than every rule
  EXPECT_EQ(id_of(r.find(RuleKind::kShape, "", "Pad", 2)), 2u);
  EXPECT_EQ(id_of(r.find(RuleKind::kShape, "", "Pad", 10)), 2u);
  EXPECT_EQ(id_of(r.find(RuleKind::kShape, "", "Pad", 17)), 11u);
  EXPECT_EQ(id_of(r.find(RuleKind::kShape, "", "Pad", 23)), 18u);
  EXPECT_EQ(id_of(r.find(RuleKind::kShape, "", "Pad", std::int64_t{1} << 40)), 18u);
  EXPECT_EQ(id_of(r.find(RuleKind::kShape, "", "Pad", -1)), 18u);  // domain not imported
  EXPECT_EQ(r.find(RuleKind::kShape, "", "Conv", 18), nullptr);
  EXPECT_EQ(r.find(RuleKind::kShape, "com.x", "Pad", 18), nullptr);
  EXPECT_EQ(r.find(RuleKind::kInplace, "", "Pad", 18), nullptr);  // kinds are separate tables
  EXPECT_TRUE(r.contains(RuleKind::kShape, "", "Pad", 11));
  EXPECT_FALSE(r.contains(RuleKind::kShape, "", "Pad", 12));
}

TEST(RuleRegistry, DuplicateKeyNamesBothOriginsUnlessReplaced) {
  RuleRegistry r;
  r.add(RuleKind::kScratch, "com.acme", "Gelu", 1, entry(1, "acme 1.0 (/a.so)"), false);
  try {
    r.add(RuleKind::kScratch, "com.acme", "Gelu", 1, entry(2, "other 2.0 (/b.so)"), false);
    FAIL() << "a duplicate key was accepted";
  } catch (const PluginError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("scratch rule com.acme::Gelu@1 registered twice"), std::string::npos)
        << message;
    EXPECT_NE(message.find("acme 1.0 (/a.so)"), std::string::npos) << message;
    EXPECT_NE(message.find("other 2.0 (/b.so)"), std::string::npos) << message;
  }
  EXPECT_EQ(id_of(r.find_exact(RuleKind::kScratch, "com.acme", "Gelu", 1)), 1u);
  r.add(RuleKind::kScratch, "com.acme", "Gelu", 1, entry(3, "override"), true);
  EXPECT_EQ(id_of(r.find_exact(RuleKind::kScratch, "com.acme", "Gelu", 1)), 3u);
  EXPECT_EQ(r.find_exact(RuleKind::kScratch, "com.acme", "Gelu", 1)->origin, "override");
}

// A rewrite name is one rule: another plugin's may be replaced (`override`), but one plugin
// naming two rewrites alike is refused even then (the first would silently stop applying).
TEST(RuleRegistry, ARewriteNamedTwiceByOnePluginIsRefusedEvenWithOverride) {
  auto rule = [](const char* origin, const char* pattern) {
    RewriteRule r = parse_rewrite_rule("Fuse", pattern, "y = x", 0);
    r.origin = origin;
    return std::make_shared<const RewriteRule>(std::move(r));
  };
  RuleRegistry r;
  r.add_rewrite(rule("acme", "y = Identity(x)"), false);
  r.add_rewrite(rule("vendor", "y = Dropout(x)"), true);  // another plugin's: replaced
  ASSERT_EQ(r.rewrites().size(), 1u);
  EXPECT_EQ(r.rewrites()[0]->origin, "vendor");
  try {
    r.add_rewrite(rule("vendor", "y = Relu(x)"), true);
    FAIL() << "one plugin's second 'Fuse' was accepted";
  } catch (const PluginError& e) {
    EXPECT_NE(
        std::string(e.what()).find("rewrite 'Fuse' registered twice: by vendor and by vendor"),
        std::string::npos)
        << e.what();
  }
}

TEST(RuleRegistry, ResolveFillsEveryKindThatHasARule) {
  RuleRegistry r;
  r.add(RuleKind::kShape, "", "Relu", 14, entry(1, "s"), false);
  r.add(RuleKind::kInplace, "", "Relu", 6, entry(2, "i"), false);
  const ResolvedRules rules = r.resolve("", "Relu", 18);
  EXPECT_EQ(id_of(rules.shape), 1u);
  EXPECT_EQ(id_of(rules.inplace), 2u);
  EXPECT_EQ(rules.tag, nullptr);
  EXPECT_EQ(rules.scratch, nullptr);
  EXPECT_EQ(rules.traits, nullptr);
  EXPECT_EQ(rules.entries[static_cast<std::size_t>(RuleKind::kShape)]->origin, "s");
  // Opset 13: the shape rule (since 14) does not apply yet; the in-place one does.
  const ResolvedRules older = r.resolve("", "Relu", 13);
  EXPECT_EQ(older.shape, nullptr);
  EXPECT_EQ(id_of(older.inplace), 2u);
}

TEST(RuleRegistry, DomainsAndElementTypes) {
  RuleRegistry r;
  EXPECT_FALSE(r.knows_domain("com.acme"));
  r.declare_domain(DomainRange{"com.acme", 1, 3, "acme"});
  EXPECT_TRUE(r.knows_domain("com.acme"));
  r.add(RuleKind::kShape, "com.other", "Op", 1, entry(1, "o"), false);
  EXPECT_TRUE(r.knows_domain("com.other"));  // a rule in a domain makes it known
  ASSERT_EQ(r.domains().size(), 1u);
  EXPECT_EQ(r.domains()[0].max_version, 3);
  EXPECT_EQ(r.dtype_bits(1000), std::nullopt);
  r.add_dtype(1000, 4, "int4x");
  EXPECT_EQ(r.dtype_bits(1000), 4u);
  EXPECT_EQ(r.dtype_name(1000), "int4x");
  EXPECT_EQ(r.dtype_name(1001), "");
  r.clear();
  EXPECT_EQ(r.find(RuleKind::kShape, "com.other", "Op", 1), nullptr);
}

}  // namespace
}  // namespace cctx
