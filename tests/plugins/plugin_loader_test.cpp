// Plugin loading through the host with real fixture libraries: the success case, one test per
// failure mode (exact one-line errors), rollback, override, option passing, twins, teardown.
#include <gtest/gtest.h>

#include <fstream>

#include "cctx/errors.hpp"
#include "cctx/report.hpp"
#include "cctx/sdk/abi.hpp"
#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

PluginSpec by_path(const std::string& path, std::map<std::string, std::string> options = {},
                   bool override_rules = false) {
  PluginSpec spec;
  spec.path = path;
  spec.options = std::move(options);
  spec.override_rules = override_rules;
  spec.where = "test.yaml:3:5";
  return spec;
}

Profile profile_with(std::vector<PluginSpec> plugins, bool with_onnx = false) {
  Profile p;
  if (with_onnx) {
    PluginSpec onnx;
    onnx.name = "onnx";
    p.plugins.push_back(onnx);
  }
  for (PluginSpec& s : plugins) p.plugins.push_back(std::move(s));
  return p;
}

/// The one-line message of the PluginError thrown while building a host.
std::string load_error(const Profile& p) {
  try {
    Host host(p, {test::plugin_dir()});
  } catch (const PluginError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

test::ModelBuilder foo_model() {
  test::ModelBuilder b(18);
  b.opset("com.test", 1);
  b.input("X", test::kFloat, {"N", 8});
  b.node("Foo", {"X"}, {"Y"}, {}, "com.test");
  b.node("Relu", {"Y"}, {"Z"});
  b.output("Z", test::kFloat);
  return b;
}

TEST(PluginLoader, GoodPluginRegistersEveryRuleKind) {
  Host host(profile_with({by_path(FIXTURE_GOOD, {{"mode", "strict"}})}, true),
            {test::plugin_dir()});
  ASSERT_EQ(host.plugins().size(), 2u);
  EXPECT_EQ(host.plugins()[1].name, "good");
  EXPECT_EQ(host.plugins()[1].version, "1.2.3");
  EXPECT_EQ(host.plugins()[1].abi_major, 1u);
  ResolvedRules r = host.registry()->resolve("com.test", "Foo", 1);
  EXPECT_NE(r.shape, nullptr);
  EXPECT_NE(r.inplace, nullptr);
  EXPECT_NE(r.scratch, nullptr);
  EXPECT_NE(r.tag, nullptr);
  EXPECT_TRUE(host.registry()->knows_domain("com.test"));
}

TEST(PluginLoader, GoodPluginRulesRunInThePipeline) {
  Profile p = profile_with({by_path(FIXTURE_GOOD)}, true);
  test::Analysis a = test::analyze(foo_model().build(), p);
  EXPECT_EQ(a.dims("Y"), (test::Dims{"N", "8"}));
  EXPECT_EQ(a.scratch(0), "16*N");          // scale 2 * numel
  ASSERT_EQ(a.ctx->inplace(0).size(), 0u);  // X is a graph input: protected
}

TEST(PluginLoader, PluginOptionsReachRegister) {
  const std::string e = load_error(profile_with({by_path(FIXTURE_GOOD, {{"mode", "fast"}})}));
  EXPECT_NE(e.find("option 'mode' must be strict or lenient"), std::string::npos) << e;
}

TEST(PluginLoader, OptionsThePluginDoesNotAcceptAreAnError) {
  // good reads `mode` while registering and nothing else. Options set by code have no profile
  // position of their own: the plugin entry's is named.
  const Profile p = profile_with({by_path(FIXTURE_GOOD, {{"mode", "strict"}, {"scale", "3"}})});
  try {
    Host host(p, {test::plugin_dir()});
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "test.yaml:3:5: plugin 'good' (" FIXTURE_GOOD
                                     ") does not accept option 'scale'; it accepts mode");
    EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
  }
}

TEST(PluginLoader, AcceptedOptionsAreListedDeclaredFirst) {
  Host host(profile_with({by_path(FIXTURE_DECLARES_OPTIONS, {{"precision", "fp16"}})}),
            {test::plugin_dir()});
  ASSERT_EQ(host.plugins().size(), 1u);
  EXPECT_EQ(host.plugins()[0].options,
            (std::vector<std::pair<std::string, std::string>>{
                {"precision", "fp32 (default) or fp16: the kernels' arithmetic"}, {"mode", ""}}));
}

TEST(PluginLoader, ARuleOutsideTheDeclaredDomainsKeepsNothing) {
  const std::string e = load_error(profile_with({by_path(FIXTURE_UNDECLARED_DOMAIN)}));
  EXPECT_EQ(e, std::string(FIXTURE_UNDECLARED_DOMAIN) +
                   ": plugin 'undeclared_domain' failed to register: rules for domain 'com.other' "
                   "(shape rule Bar@1), a domain the plugin did not declare; add "
                   "declare_domain(\"com.other\", min_opset, max_opset) to its registration; "
                   "nothing of it was kept");
}

TEST(PluginLoader, AbiMajorMismatchIsRefusedBeforeRegister) {
  const std::string e = load_error(profile_with({by_path(FIXTURE_ABI_MAJOR)}));
  // The fixture reports this SDK's minor with the next major.
  EXPECT_EQ(e, std::string(FIXTURE_ABI_MAJOR) + ": built for cctx plugin ABI 2." +
                   std::to_string(CCTX_SDK_ABI_MINOR) +
                   ", but this cctx supports ABI 1.x; rebuild it against this SDK");
}

TEST(PluginLoader, NewerMinorIsRefused) {
  const std::string e = load_error(profile_with({by_path(FIXTURE_NEWER_MINOR)}));
  const std::string host = "1." + std::to_string(CCTX_SDK_ABI_MINOR);
  const std::string newer = "1." + std::to_string(CCTX_SDK_ABI_MINOR + 1);
  EXPECT_EQ(e, std::string(FIXTURE_NEWER_MINOR) + ": built for cctx plugin ABI " + newer +
                   ", newer than this cctx (ABI " + host +
                   "); upgrade cctx or rebuild the plugin against this SDK");
}

TEST(PluginLoader, DescriptorTooSmallIsRefused) {
  const std::string e = load_error(profile_with({by_path(FIXTURE_SMALL_STRUCT)}));
  EXPECT_NE(e.find(": plugin descriptor is 8 bytes, smaller than ABI 1.0's"), std::string::npos)
      << e;
}

// `toolchain: strict` refuses another C++ runtime before anything of the plugin runs (its
// register function fails if called). Without it the plugin loads: see PluginCompat.
TEST(PluginLoader, DifferentRuntimeIsRefusedWhenStrict) {
  PluginSpec strict = by_path(FIXTURE_TOOLCHAIN);
  strict.strict_toolchain = true;
  const std::string e = load_error(profile_with({strict}));
  // The fixture flips _GLIBCXX_USE_CXX11_ABI: the message names the flag on both sides.
  EXPECT_EQ(e, std::string(FIXTURE_TOOLCHAIN) + ": built with _GLIBCXX_USE_CXX11_ABI=0, but cctx " +
                   "uses _GLIBCXX_USE_CXX11_ABI=1 (the profile says toolchain: strict); rebuild " +
                   "the plugin with the same C++ runtime as cctx");
}

TEST(PluginLoader, LibraryWithoutEntryPoint) {
  const std::string e = load_error(profile_with({by_path(FIXTURE_NO_ENTRY)}));
  EXPECT_EQ(
      e, std::string(FIXTURE_NO_ENTRY) + ": not a cctx plugin (no 'cctx_plugin_v1' entry point)");
}

TEST(PluginLoader, MissingFileAndFolder) {
  EXPECT_EQ(load_error(profile_with({by_path("/nonexistent/libx.so")})),
            "test.yaml:3:5: plugin file /nonexistent/libx.so does not exist");
  EXPECT_EQ(load_error(profile_with({by_path(test::plugin_dir().string())})),
            "test.yaml:3:5: plugin path " + test::plugin_dir().string() +
                " is a folder, not a shared library");
  PluginSpec named;
  named.name = "nosuchplugin";
  named.where = "p.yaml:2:5";
  const std::string e = load_error(profile_with({named}));
  EXPECT_NE(
      e.find(
          "p.yaml:2:5: plugin 'nosuchplugin' not found (looked for libcctx_nosuchplugin.so in: "),
      std::string::npos)
      << e;
}

TEST(PluginLoader, NotASharedLibrary) {
  test::TempDir dir;
  { std::ofstream(dir / "libfake.so") << "not an ELF file"; }
  const std::string e = load_error(profile_with({by_path((dir / "libfake.so").string())}));
  EXPECT_NE(e.find("libfake.so: cannot load plugin ("), std::string::npos) << e;
}

TEST(PluginLoader, FailedRegisterKeepsNothing) {
  const std::string e = load_error(profile_with({by_path(FIXTURE_REGISTER_FAILS)}));
  EXPECT_EQ(e,
            std::string(FIXTURE_REGISTER_FAILS) +
                ": plugin 'register_fails' failed to register: license check failed for com.test; "
                "nothing of it was kept");
}

TEST(PluginLoader, RollbackLeavesTheRegistryUntouched) {
  // Load a good plugin, then try one that registers and fails: the registry must hold exactly
  // what it held before the failure. Registration is staged, so a failed plugin commits nothing.
  RuleRegistry registry;
  EXPECT_EQ(registry.find(RuleKind::kShape, "com.test", "Foo", 1), nullptr);
  const std::string e = load_error(profile_with({by_path(FIXTURE_REGISTER_FAILS)}));
  EXPECT_FALSE(e.empty());
  Host host(profile_with({}), {test::plugin_dir()});
  EXPECT_EQ(host.registry()->find(RuleKind::kShape, "com.test", "Foo", 1), nullptr);
}

TEST(PluginLoader, ExceptionInRegisterBecomesTheMessage) {
  const std::string e = load_error(profile_with({by_path(FIXTURE_THROWS_IN_REGISTER)}));
  EXPECT_NE(e.find("failed to register: table file missing; nothing of it was kept"),
            std::string::npos)
      << e;
}

TEST(PluginLoader, DuplicateRuleNamesBothOrigins) {
  const std::string e = load_error(profile_with({by_path(FIXTURE_DUPLICATE_RULE)}, true));
  EXPECT_NE(e.find("shape rule ai.onnx::MatMul@13 is already registered by onnx "),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("libcctx_onnx.so"), std::string::npos) << e;
  EXPECT_NE(e.find("override: true"), std::string::npos) << e;
}

TEST(PluginLoader, OverrideReplacesTheEarlierRule) {
  Profile p = profile_with({by_path(FIXTURE_DUPLICATE_RULE, {}, true)}, true);
  test::ModelBuilder b(18);
  b.input("A", test::kFloat, {"N", 4}).input("B", test::kFloat, {4, 2});
  b.node("MatMul", {"A", "B"}, {"C"});
  test::Analysis a = test::analyze(b.build(), p);
  EXPECT_EQ(a.dims("C"), (test::Dims{"7", "7"}));
}

TEST(PluginLoader, ThrowingRuleIsADiagnosticNotACrash) {
  Profile p = profile_with({by_path(FIXTURE_RULE_THROWS)}, true);
  test::Analysis a = test::analyze(foo_model().build(), p);
  EXPECT_TRUE(a.has_warning("index out of range in Foo rule")) << a.warnings();
  EXPECT_EQ(a.dims("Y"), (test::Dims{"<unknown rank>"}));
  EXPECT_EQ(a.dims("Z"), (test::Dims{"<unknown rank>"}));  // Relu of an unknown rank
}

TEST(PluginLoader, ThrowingRuleInStrictModeIsAnAnalysisError) {
  Profile p = profile_with({by_path(FIXTURE_RULE_THROWS)}, true);
  p.shapes.strict = true;
  try {
    test::analyze(foo_model().build(), p);
    FAIL() << "no error";
  } catch (const AnalysisError& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::kAnalysis);
    EXPECT_NE(std::string(e.what()).find("node 0 (com.test:Foo) [domain 'com.test', opset 1]"),
              std::string::npos)
        << e.what();
  }
}

TEST(PluginLoader, TwinsWithIdenticalSymbolsStayApart) {
  Host host(profile_with({by_path(FIXTURE_TWIN_A), by_path(FIXTURE_TWIN_B)}), {test::plugin_dir()});
  ASSERT_EQ(host.plugins().size(), 2u);
  const RuleEntry* a = host.registry()->find(RuleKind::kShape, "com.twin_a", "Foo", 1);
  const RuleEntry* b = host.registry()->find(RuleKind::kShape, "com.twin_b", "Foo", 1);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a->rule, b->rule);  // each library has its own copy
  EXPECT_NE(a->origin.find("twin_a"), std::string::npos);
  EXPECT_NE(b->origin.find("twin_b"), std::string::npos);
}

TEST(PluginLoader, SamePluginTwiceIsRefused) {
  const std::string e =
      load_error(profile_with({by_path(FIXTURE_TWIN_A), by_path(FIXTURE_TWIN_A)}));
  EXPECT_NE(e.find("a plugin named 'twin_a' is already loaded"), std::string::npos) << e;
}

TEST(PluginLoader, ContextOutlivesTheHost) {
  // Teardown order: a pipeline keeps the registry, which keeps the libraries mapped.
  std::unique_ptr<ComputeContext> ctx;
  {
    Host host(profile_with({by_path(FIXTURE_GOOD)}, true), {test::plugin_dir()});
    ctx = std::make_unique<ComputeContext>(host);
  }
  Model m = foo_model().build();
  ctx->compute(m);
  EXPECT_EQ(ctx->pool().print(ctx->shape(ctx->graph().find("Y")).dims[0]), "N");
}

TEST(PluginLoader, TagRuleSetsStickyNodeTag) {
  Profile p = profile_with({by_path(FIXTURE_GOOD)}, true);
  test::ModelBuilder b(18);
  b.opset("com.test", 1);
  b.input("X", test::kFloat, {"N"});
  b.node("Foo", {"X"}, {"Y"}, {test::attr("as_shape", 1)}, "com.test");
  b.node("Foo", {"X"}, {"W"}, {}, "com.test");
  test::Analysis a = test::analyze(b.build(), p);
  EXPECT_EQ(a.ctx->node_tag(0), Tag::kShape);
  EXPECT_EQ(a.ctx->value_tag(a.id("Y")), Tag::kShape);
  EXPECT_EQ(a.ctx->value_tag(a.id("W")), Tag::kWeight);  // inherits input 0
}

TEST(PluginLoader, RegistryResolvesNewestSinceVersion) {
  Host host(profile_with({}, true), {test::plugin_dir()});
  const RuleRegistry& r = *host.registry();
  const RuleEntry* v13 = r.find(RuleKind::kShape, "", "Squeeze", 13);
  const RuleEntry* v12 = r.find(RuleKind::kShape, "", "Squeeze", 12);
  const RuleEntry* v18 = r.find(RuleKind::kShape, "", "Squeeze", 18);
  ASSERT_NE(v13, nullptr);
  EXPECT_EQ(v13, r.find_exact(RuleKind::kShape, "", "Squeeze", 13));
  EXPECT_EQ(v12, r.find_exact(RuleKind::kShape, "", "Squeeze", 11));
  EXPECT_EQ(v18, v13);
  EXPECT_EQ(r.find(RuleKind::kShape, "", "Squeeze", 0), nullptr);
  EXPECT_EQ(r.find(RuleKind::kShape, "com.nobody", "Squeeze", 13), nullptr);
}

}  // namespace
}  // namespace cctx
