// Plugin options, domains and `cctx plugins` filters through the real `cctx` binary and real
// fixture plugins: an option no plugin accepts is an error at its profile line, an option read
// with option() or declared with accept_option() is accepted and listed with its meaning, a rule
// outside the declared domains fails the registration, `--plugin` and `--op` filter the listing
// and an unknown name is a usage error (exit code 2).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;
using test::run_cctx;
using test::write_file;

nlohmann::json parse(const std::string& text) { return nlohmann::json::parse(text); }

/// The document of `cctx plugins ARGS --format json`, which must succeed.
nlohmann::json plugins_json(const std::string& args) {
  auto r = run_cctx("plugins " + args + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? parse(r.out) : nlohmann::json::array();
}

/// A profile loading the onnx plugin and the declares_options fixture with `options`.
std::string options_profile(const std::string& options) {
  return std::string("plugins:\n  - name: onnx\n  - path: ") + FIXTURE_DECLARES_OPTIONS +
         "\n    options: " + options + "\n";
}

TEST(CliPluginOptions, AnOptionThePluginDoesNotAcceptNamesTheProfileLineAndThePlugin) {
  test::TempDir dir;
  write_file(dir / "p.yaml", options_profile("{precision: fp16, fast_gelu: \"true\"}"));
  auto r = run_cctx("plugins --profile " + quoted(dir / "p.yaml"));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err, "cctx: " + (dir / "p.yaml").string() +
                       ":4:32: plugin 'declares_options' (" FIXTURE_DECLARES_OPTIONS
                       ") does not accept option 'fast_gelu'; it accepts precision, mode\n");
  EXPECT_EQ(r.out, "");
  // analyze reads the same profile: the same error, before any analysis.
  auto a = run_cctx("analyze " + quoted(test::source_dir() / "tests/cli/nonzero.onnx") +
                    " --profile " + quoted(dir / "p.yaml"));
  EXPECT_EQ(a.exit_code, 3) << a.err;
  EXPECT_EQ(a.err, r.err);
}

TEST(CliPluginOptions, AShippedPluginRefusesAnUnknownOptionWithASuggestion) {
  test::TempDir dir;
  write_file(dir / "p.yaml", "plugins:\n  - name: onnx\n    options: {inplce: \"off\"}\n");
  auto r = run_cctx("plugins --profile " + quoted(dir / "p.yaml"));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find((dir / "p.yaml").string() + ":3:15: plugin 'onnx' (" +
                       (test::plugin_dir() / "libcctx_onnx.so").string() +
                       ") does not accept option 'inplce'; it accepts inplace, if_merge; did you "
                       "mean 'inplace'?\n"),
            std::string::npos)
      << r.err;
}

TEST(CliPluginOptions, AnOptionReadWithOptionIsAccepted) {
  test::TempDir dir;
  write_file(dir / "p.yaml", options_profile("{mode: fast}"));
  // Read but not described: listed with an empty meaning.
  EXPECT_EQ(plugins_json("--profile " + quoted(dir / "p.yaml"))[1]["options"]["mode"], "");
}

TEST(CliPluginOptions, AnOptionDeclaredWithAcceptOptionIsAcceptedAndListed) {
  test::TempDir dir;
  write_file(dir / "p.yaml", options_profile("{precision: fp16}"));
  const auto doc = plugins_json("--profile " + quoted(dir / "p.yaml"));
  ASSERT_EQ(doc.size(), 2u);
  EXPECT_EQ(doc[1]["options"],
            parse(R"({"precision": "fp32 (default) or fp16: the kernels' arithmetic",
                      "mode": ""})"));
  auto table =
      run_cctx("plugins --profile " + quoted(dir / "p.yaml") + " --plugin declares_options");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out, "declares_options 0.1  (ABI " + doc[1]["abi"].get<std::string>() + ")  " +
                           FIXTURE_DECLARES_OPTIONS +
                           "\n  domain com.test opsets 1..1\n"
                           "  option precision: fp32 (default) or fp16: the kernels' arithmetic\n"
                           "  option mode\n  1 ops:\n    com.test::Foo: shape@1\n");
}

TEST(CliPluginOptions, TheShippedPluginsDescribeTheirOptions) {
  const auto doc = plugins_json("");
  ASSERT_FALSE(doc.empty());
  ASSERT_EQ(doc[0]["name"], "onnx");
  EXPECT_EQ(doc[0]["options"]["inplace"], "on (default) or off: off registers no in-place policy");
  EXPECT_NE(doc[0]["options"]["if_merge"].get<std::string>().find("max (default) or fresh"),
            std::string::npos);
  for (const auto& p : doc) {
    for (const auto& [key, meaning] : p["options"].items()) {
      EXPECT_FALSE(meaning.get<std::string>().empty()) << p["name"] << " option " << key;
    }
  }
}

TEST(CliPluginDomains, ARuleOutsideTheDeclaredDomainsFailsTheRegistration) {
  test::TempDir dir;
  write_file(dir / "p.yaml", std::string("plugins:\n  - name: onnx\n  - path: ") +
                                 FIXTURE_UNDECLARED_DOMAIN + "\n");
  auto r = run_cctx("plugins --profile " + quoted(dir / "p.yaml"));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err, "cctx: " FIXTURE_UNDECLARED_DOMAIN
                   ": plugin 'undeclared_domain' failed to register: rules for domain 'com.other' "
                   "(shape rule Bar@1), a domain the plugin did not declare; add "
                   "declare_domain(\"com.other\", min_opset, max_opset) to its registration; "
                   "nothing of it was kept\n");
}

TEST(CliPluginsFilter, PluginKeepsOnePlugin) {
  const auto doc = plugins_json("--plugin microsoft");
  ASSERT_EQ(doc.size(), 1u);
  EXPECT_EQ(doc[0]["name"], "microsoft");
  EXPECT_TRUE(doc[0]["ops"].contains("com.microsoft::Attention"));
  auto table = run_cctx("plugins --plugin onnx_ml");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.rfind("onnx_ml ", 0), 0u) << table.out;
  EXPECT_EQ(table.out.find("\nonnx "), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("microsoft"), std::string::npos) << table.out;
}

TEST(CliPluginsFilter, OpListsEveryVersionWithItsPlugin) {
  const auto doc = plugins_json("--op MatMul");
  ASSERT_EQ(doc.size(), 1u);
  EXPECT_EQ(doc[0]["op"], "ai.onnx::MatMul");
  std::vector<int> shape_versions;
  for (const auto& rule : doc[0]["rules"]) {
    EXPECT_EQ(rule["plugin"], "onnx");
    EXPECT_EQ(rule["origin"].get<std::string>().rfind("onnx 0.1.0 (", 0), 0u) << rule;
    if (rule["kind"] == "shape") shape_versions.push_back(rule["since_version"]);
  }
  EXPECT_EQ(shape_versions, (std::vector<int>{1, 9, 13}));

  // An op in two domains: both without a domain, one with it.
  ASSERT_EQ(plugins_json("--op Attention").size(), 2u);
  const auto ms = plugins_json("--op com.microsoft::Attention");
  ASSERT_EQ(ms.size(), 1u);
  EXPECT_EQ(ms[0]["op"], "com.microsoft::Attention");
  EXPECT_EQ(ms[0]["rules"][0]["plugin"], "microsoft");
}

TEST(CliPluginsFilter, OpNamesThePluginOfEachRuleWhenSeveralProvideThem) {
  // Under onnxruntime-cpu-unoptimized, Conv's shape rule is the onnx plugin's and its scratch
  // estimator the onnxruntime plugin's (override: true).
  auto r = run_cctx("plugins --profile onnxruntime-cpu-unoptimized --op ai.onnx::Conv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("ai.onnx::Conv\n  shape@1,11,22: onnx 0.1.0 (", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\n  scratch@1,2,3,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(": onnxruntime 0.1.0 ("), std::string::npos) << r.out;
}

TEST(CliPluginsFilter, UnknownNamesAreUsageErrors) {
  auto p = run_cctx("plugins --plugin nope");
  EXPECT_EQ(p.exit_code, 2) << p.err;
  EXPECT_EQ(p.err,
            "cctx: --plugin 'nope': the profile loads no plugin of that name (loaded: onnx, "
            "onnx_ml, microsoft)\n");
  EXPECT_EQ(p.out, "");
  auto o = run_cctx("plugins --op com.acme::Nope");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_EQ(o.err,
            "cctx: --op 'com.acme::Nope': no plugin of the profile registers a rule for it\n");
  // Both filters: MatMul's rules are the onnx plugin's, none are onnx_ml's.
  auto both = run_cctx("plugins --plugin onnx_ml --op MatMul");
  EXPECT_EQ(both.exit_code, 2) << both.err;
  EXPECT_EQ(both.err,
            "cctx: --op 'MatMul': no plugin 'onnx_ml' of the profile registers a rule for it\n");
  auto markdown = run_cctx("plugins --op MatMul --format markdown");
  EXPECT_EQ(markdown.exit_code, 2) << markdown.err;
}

}  // namespace
}  // namespace cctx
