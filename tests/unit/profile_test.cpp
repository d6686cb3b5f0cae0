// Profile loader: defaults, every key, override rules of `extends`, path handling and, above all,
// the exact one-line `file:line:column: message` errors.
#include "cctx/profile.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cctx/errors.hpp"
#include "cctx/host.hpp"

namespace cctx {
namespace {

namespace fs = std::filesystem;

// Each test gets its own folder so tests can run in parallel (ctest -j) without sharing files.
class ProfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("cctx_profile_test_" + std::to_string(::getpid()) + "_" +
                                        info->name() + "_" + std::to_string(counter++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  fs::path write(const std::string& name, const std::string& text) {
    const fs::path file = dir_ / name;
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }

  /// The message of the ConfigError that loading `file` raises ("" when it loads).
  static std::string error_of(const fs::path& file) {
    try {
      load_profile(file);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  }

  /// Writes `text` as p.yaml and returns the error with the "<file>:" prefix removed.
  std::string error_in(const std::string& text) {
    const fs::path file = write("p.yaml", text);
    const std::string message = error_of(file);
    const std::string prefix = file.string() + ":";
    if (message.compare(0, prefix.size(), prefix) != 0) return "(no file prefix) " + message;
    return message.substr(prefix.size());
  }

  fs::path dir_;
};

// ---- defaults and the full format -------------------------------------------------------------

TEST_F(ProfileTest, EmptyFileGivesDefaults) {
  const Profile p = load_profile(write("empty.yaml", ""));
  EXPECT_EQ(p.name, "default");
  EXPECT_EQ(p.source, dir_ / "empty.yaml");
  EXPECT_TRUE(p.plugins.empty());
  EXPECT_TRUE(p.plugin_path.empty());
  EXPECT_TRUE(p.symbols.empty());
  EXPECT_FALSE(p.shapes.strict);
  EXPECT_EQ(p.shapes.fallback,
            (std::vector<std::string>{"onnx_schema", "declared", "unknown_rank"}));
  EXPECT_TRUE(p.tags.enabled);
  EXPECT_TRUE(p.inplace.enabled);
  EXPECT_FALSE(p.inplace.allow_input_overwrite);
  EXPECT_EQ(p.inplace.fallback, InplaceFallback::kNone);
  EXPECT_TRUE(p.memory.enabled);
  EXPECT_EQ(p.memory.buffer_plan, "seed");
  EXPECT_TRUE(p.scratch.enabled);
  EXPECT_TRUE(p.report.evaluate.empty());
  EXPECT_EQ(p.expressions.max_weight, 512u);
  EXPECT_EQ(p.expressions.max_terms, 64u);
  EXPECT_EQ(p.expressions.max_degree, 8u);
  EXPECT_EQ(p.expressions.max_args, 32u);
  EXPECT_FALSE(p.decision_log);
}

TEST_F(ProfileTest, CommentOnlyFileGivesDefaults) {
  const Profile p = load_profile(write("comments.yaml", "# nothing here\n\n   # still nothing\n"));
  EXPECT_EQ(p.name, "default");
  EXPECT_TRUE(p.plugins.empty());
  EXPECT_EQ(p.expressions.max_weight, 512u);
}

TEST_F(ProfileTest, FullProfileReadsEveryKey) {
  write("base.yaml", "decision_log: false\n");
  const fs::path file = write("full.yaml", R"(profile: edge
extends: base.yaml
plugins:
  - name: onnx
  - path: ./plugins/libacme.so
    options: {fast_gelu: "true", level: 3, exact: false}
    override: true
plugin_path: [./build/opsets, /opt/cctx/plugins]
symbols:
  N: [1, 4096]
  past: [0, null]
shapes:   {strict: true, fallback: [declared, onnx_schema]}
tags:     {enabled: false}
inplace:  {enabled: false, allow_input_overwrite: true, fallback: structural}
memory:   {enabled: false}
scratch:  {enabled: false}
report:   {evaluate: [{N: 1}, {N: 8, past: 0}]}
expressions: {max_weight: 100, max_terms: 10, max_degree: 3, max_args: 4}
decision_log: true
)");
  const Profile p = load_profile(file);
  EXPECT_EQ(p.name, "edge");
  EXPECT_EQ(p.source, file);
  ASSERT_EQ(p.plugins.size(), 2u);
  EXPECT_EQ(p.plugins[0].name, "onnx");
  EXPECT_TRUE(p.plugins[0].path.empty());
  EXPECT_FALSE(p.plugins[0].override_rules);
  EXPECT_EQ(p.plugins[0].where, file.string() + ":4:5");
  EXPECT_TRUE(p.plugins[1].name.empty());
  EXPECT_EQ(p.plugins[1].path, dir_ / "plugins" / "libacme.so");
  EXPECT_EQ(p.plugins[1].options, (std::map<std::string, std::string>{
                                      {"fast_gelu", "true"}, {"level", "3"}, {"exact", "false"}}));
  EXPECT_TRUE(p.plugins[1].override_rules);
  EXPECT_EQ(p.plugins[1].where, file.string() + ":5:5");
  EXPECT_EQ(p.plugin_path, (std::vector<fs::path>{dir_ / "build" / "opsets", "/opt/cctx/plugins"}));
  ASSERT_EQ(p.symbols.size(), 2u);
  EXPECT_EQ(p.symbols.at("N"), (Interval{1, 4096}));
  EXPECT_EQ(p.symbols.at("past"), (Interval{0, kPosInf}));
  EXPECT_TRUE(p.shapes.strict);
  EXPECT_EQ(p.shapes.fallback, (std::vector<std::string>{"declared", "onnx_schema"}));
  EXPECT_FALSE(p.tags.enabled);
  EXPECT_FALSE(p.inplace.enabled);
  EXPECT_TRUE(p.inplace.allow_input_overwrite);
  EXPECT_EQ(p.inplace.fallback, InplaceFallback::kStructural);
  EXPECT_FALSE(p.memory.enabled);
  EXPECT_FALSE(p.scratch.enabled);
  ASSERT_EQ(p.report.evaluate.size(), 2u);
  EXPECT_EQ(p.report.evaluate[0], (Assignment{{"N", 1}}));
  EXPECT_EQ(p.report.evaluate[1], (Assignment{{"N", 8}, {"past", 0}}));
  EXPECT_EQ(p.expressions.max_weight, 100u);
  EXPECT_EQ(p.expressions.max_terms, 10u);
  EXPECT_EQ(p.expressions.max_degree, 3u);
  EXPECT_EQ(p.expressions.max_args, 4u);
  EXPECT_TRUE(p.decision_log);
}

TEST_F(ProfileTest, EmptyFallbackListIsAllowed) {
  const Profile p = load_profile(write("p.yaml", "shapes: {fallback: []}\n"));
  EXPECT_TRUE(p.shapes.fallback.empty());
}

TEST_F(ProfileTest, ParseProfileUsesSourceNameAndBaseDir) {
  const Profile p = parse_profile("plugins:\n  - path: lib/libx.so\n", "inline.yaml", dir_);
  EXPECT_EQ(p.source, "inline.yaml");
  ASSERT_EQ(p.plugins.size(), 1u);
  EXPECT_EQ(p.plugins[0].path, dir_ / "lib" / "libx.so");
  EXPECT_EQ(p.plugins[0].where, "inline.yaml:2:5");
  try {
    parse_profile("\ndecision_log: maybe\n", "inline.yaml", dir_);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "inline.yaml:2:15: 'decision_log' must be a boolean (true/false), got 'maybe'");
  }
}

// ---- limits -------------------------------------------------------------------------------------

TEST_F(ProfileTest, LimitsHaveDefaultsAndAreRaisedKeyByKey) {
  const Profile d = load_profile(write("d.yaml", ""));
  EXPECT_EQ(d.limits.file_bytes, std::int64_t{1} << 30);
  EXPECT_EQ(d.limits.nodes, 5000000);
  EXPECT_EQ(d.limits.rank, 64);
  EXPECT_EQ(d.limits.subgraph_depth, 64);
  EXPECT_EQ(d.limits.expression_chars, 4096);
  write("base.yaml", "limits: {nodes: 10, rank: 3}\n");
  const Profile p = load_profile(write("p.yaml", "extends: base.yaml\nlimits: {rank: 200}\n"));
  EXPECT_EQ(p.limits.nodes, 10);
  EXPECT_EQ(p.limits.rank, 200);
  EXPECT_EQ(p.limits.subgraph_depth, 64);
}

TEST_F(ProfileTest, LimitsOutsideTheirRangeAreErrors) {
  EXPECT_EQ(error_in("limits: {file_bytes: 4294967296}\n"),
            "1:22: 'limits.file_bytes' must be an integer between 1 and 2147483647, got "
            "'4294967296'");
  EXPECT_EQ(error_in("limits: {subgraph_depth: 2001}\n"),
            "1:26: 'limits.subgraph_depth' must be an integer between 0 and 2000, got '2001'");
  EXPECT_EQ(error_in("limits: {depth: 3}\n"),
            "1:10: unknown key 'depth' in 'limits'; allowed: file_bytes, nodes, rank, "
            "subgraph_depth, expression_chars, assignments");
}

// ---- unknown keys -------------------------------------------------------------------------------

TEST_F(ProfileTest, UnknownTopLevelKeyListsAllowedKeysAndSuggestsClosest) {
  EXPECT_EQ(
      error_in("profile: x\ninplce: {enabled: true}\n"),
      "2:1: unknown key 'inplce' in 'profile'; allowed: profile, extends, plugins, "
      "plugin_path, ops, symbols, shapes, tags, inplace, memory, scratch, report, expressions, "
      "decision_log, limits; did you mean 'inplace'?");
}

TEST_F(ProfileTest, UnknownKeyFarFromEveryAllowedKeyHasNoSuggestion) {
  EXPECT_EQ(
      error_in("colour: red\n"),
      "1:1: unknown key 'colour' in 'profile'; allowed: profile, extends, plugins, "
      "plugin_path, ops, symbols, shapes, tags, inplace, memory, scratch, report, expressions, "
      "decision_log, limits");
}

TEST_F(ProfileTest, UnknownNestedKeyNamesTheSection) {
  EXPECT_EQ(error_in("shapes:\n  strictt: true\n"),
            "2:3: unknown key 'strictt' in 'shapes'; allowed: strict, fallback; did you mean "
            "'strict'?");
}

TEST_F(ProfileTest, UnknownKeyInPluginEntryNamesTheEntry) {
  EXPECT_EQ(error_in("plugins:\n  - name: onnx\n  - name: x\n    overide: true\n"),
            "4:5: unknown key 'overide' in 'plugins[1]'; allowed: name, path, options, override, "
            "toolchain; "
            "did you mean 'override'?");
}

TEST_F(ProfileTest, DuplicateKeyIsRejected) {
  EXPECT_EQ(error_in("symbols:\n  N: [1, 2]\n  N: [1, 3]\n"),
            "3:3: duplicate key 'N' in 'symbols' (first at line 2)");
}

// ---- wrong types --------------------------------------------------------------------------------

TEST_F(ProfileTest, NonBooleanIsRejectedWithTheValue) {
  EXPECT_EQ(error_in("shapes: {strict: yes please}\n"),
            "1:18: 'shapes.strict' must be a boolean (true/false), got 'yes please'");
}

TEST_F(ProfileTest, YamlOneOneBooleanWordsAreNotBooleans) {
  EXPECT_EQ(error_in("decision_log: on\n"),
            "1:15: 'decision_log' must be a boolean (true/false), got 'on'");
}

TEST_F(ProfileTest, MissingValueIsReportedAtItsKey) {
  EXPECT_EQ(error_in("profile: x\ndecision_log:\nmemory: {}\n"),
            "2:1: 'decision_log' must be a boolean (true/false), got nothing");
}

TEST_F(ProfileTest, BufferPlanIsOneOfThePlanners) {
  EXPECT_EQ(load_profile(write("p.yaml", "memory: {buffer_plan: seed}\n")).memory.buffer_plan,
            "seed");
  EXPECT_EQ(error_in("memory: {buffer_plan: arena}\n"),
            "1:23: 'memory.buffer_plan' must be one of: seed, free_list; got 'arena'");
}

TEST_F(ProfileTest, RuntimeMemoryKeys) {
  const Profile p =
      load_profile(write("p.yaml",
                         "memory: {buffer_plan: free_list, constants_as_initializers: true, "
                         "session_overhead_bytes: 7580000, session_overhead_per_node_bytes: 4000, "
                         "output_copies: 1}\n"));
  EXPECT_EQ(p.memory.buffer_plan, "free_list");
  EXPECT_TRUE(p.memory.constants_as_initializers);
  EXPECT_EQ(p.memory.session_overhead_bytes, 7580000);
  EXPECT_EQ(p.memory.session_overhead_per_node_bytes, 4000);
  EXPECT_EQ(p.memory.output_copies, 1);
  const Profile d = load_profile(write("d.yaml", "memory: {enabled: true}\n"));
  EXPECT_FALSE(d.memory.constants_as_initializers);
  EXPECT_EQ(d.memory.session_overhead_bytes, 0);
  EXPECT_EQ(d.memory.output_copies, 0);
  EXPECT_NE(error_in("memory: {output_copies: 17}\n")
                .find("'memory.output_copies' must be an integer "
                      "between 0 and 16"),
            std::string::npos);
  EXPECT_NE(error_in("memory: {session_overhead_bytes: -1}\n").find("session_overhead_bytes"),
            std::string::npos);
}

TEST_F(ProfileTest, MemoryThreadsDeclaresTheRuntimeParameter) {
  const Profile a = load_profile(write("a.yaml", "memory: {threads: {default: auto}}\n"));
  EXPECT_TRUE(a.memory.threads.declared);
  EXPECT_EQ(a.memory.threads.default_threads, 0);  // auto: this machine's physical cores
  EXPECT_EQ(a.memory.threads.session_bytes_per_thread, 0);
  const Profile n = load_profile(
      write("n.yaml", "memory: {threads: {default: 16, session_bytes_per_thread: 43800}}\n"));
  EXPECT_EQ(n.memory.threads.default_threads, 16);
  EXPECT_EQ(n.memory.threads.session_bytes_per_thread, 43800);
  const Profile empty = load_profile(write("e.yaml", "memory: {threads: {}}\n"));
  EXPECT_TRUE(empty.memory.threads.declared);
  EXPECT_FALSE(load_profile(write("none.yaml", "memory: {}\n")).memory.threads.declared);
  EXPECT_NE(error_in("memory: {threads: {default: 0}}\n").find("memory.threads.default"),
            std::string::npos);
  EXPECT_NE(error_in("memory: {threads: {default: many}}\n").find("memory.threads.default"),
            std::string::npos);
  EXPECT_NE(error_in("memory: {threads: {per_thread: 1}}\n").find("session_bytes_per_thread"),
            std::string::npos);
}

TEST_F(ProfileTest, ArenaKeys) {
  const Profile p = load_profile(write(
      "p.yaml",
      "memory:\n  arena: {initial_region_bytes: 4096, max_doubling_bytes: 65536, rounding_bytes: "
      "64,\n          max_dead_bytes_per_chunk: 0, memory_pattern: false, initializers: true}\n"));
  const Profile::Memory::Arena& a = p.memory.arena;
  EXPECT_TRUE(a.enabled);  // the map turns it on
  EXPECT_EQ(a.initial_region_bytes, 4096);
  EXPECT_EQ(a.max_doubling_bytes, 65536);
  EXPECT_EQ(a.rounding_bytes, 64);
  EXPECT_EQ(a.max_dead_bytes_per_chunk, 0);
  EXPECT_FALSE(a.memory_pattern);
  EXPECT_TRUE(a.initializers);
  EXPECT_FALSE(load_profile(write("d.yaml", "memory: {enabled: true}\n")).memory.arena.enabled);
  // An extended profile's arena is turned off by `enabled: false`, its other keys kept.
  write("base.yaml", "memory: {arena: {initial_region_bytes: 8192}}\n");
  const Profile off =
      load_profile(write("off.yaml", "extends: base.yaml\nmemory: {arena: {enabled: false}}\n"));
  EXPECT_FALSE(off.memory.arena.enabled);
  EXPECT_EQ(off.memory.arena.initial_region_bytes, 8192);
  EXPECT_NE(error_in("memory: {arena: {rounding_bytes: 0}}\n").find("memory.arena.rounding_bytes"),
            std::string::npos);
  EXPECT_NE(error_in("memory: {arena: {regions: 3}}\n").find("initial_region_bytes"),
            std::string::npos);  // an unknown key lists the allowed ones
  // The shipped profile: ONNX Runtime's defaults, initializers outside the arena.
  const Profile ort = load_profile(Host::profile_path("onnxruntime-cpu-unoptimized"));
  EXPECT_TRUE(ort.memory.arena.enabled);
  EXPECT_EQ(ort.memory.arena.initial_region_bytes, 1 << 20);
  EXPECT_FALSE(ort.memory.arena.initializers);
  EXPECT_EQ(ort.memory.buffer_plan, "free_list");  // from onnxruntime-cpu-unoptimized-no-arena
}

// memory.arena.prepacked: `[domain:]Op:input [K=type ...] [attr=N ...] [temporary]`, the
// shipped profiles' QLinearConv and QGemm.
TEST_F(ProfileTest, PrepackedInputs) {
  const Profile p = load_profile(write("p.yaml",
                                       "memory: {arena: {prepacked: [\"com.microsoft:QGemm:3\", "
                                       "\"ai.onnx:MatMul:1 1=float32 transB=-1\"]}}\n"));
  const auto& packed = p.memory.arena.prepacked;
  ASSERT_EQ(packed.size(), 2U);
  EXPECT_EQ(packed[0].domain, "com.microsoft");
  EXPECT_EQ(packed[0].op_type, "QGemm");
  EXPECT_EQ(packed[0].input, 3);
  EXPECT_TRUE(packed[0].types.empty());
  EXPECT_TRUE(packed[0].attributes.empty());
  EXPECT_EQ(packed[1].attributes,
            (std::vector<std::pair<std::string, std::int64_t>>{{"transB", -1}}));
  EXPECT_EQ(packed[1].domain, "");
  EXPECT_EQ(packed[1].op_type, "MatMul");
  EXPECT_EQ(packed[1].types, (std::vector<std::pair<std::int32_t, std::int32_t>>{{1, 1}}));
  EXPECT_NE(error_in("memory: {arena: {prepacked: [QGemm]}}\n").find("no ':input'"),
            std::string::npos);
  EXPECT_NE(error_in("memory: {arena: {prepacked: [\"QGemm:3 0=uint9\"]}}\n")
                .find("'uint9' is no element type"),
            std::string::npos);
  EXPECT_NE(error_in("memory: {arena: {prepacked: [\"QGemm:x\"]}}\n").find("'x' is no input index"),
            std::string::npos);
  EXPECT_NE(error_in("memory: {arena: {prepacked: [\"QGemm:3 transB=yes\"]}}\n")
                .find("'yes' is no integer"),
            std::string::npos);
  EXPECT_NE(error_in("memory: {arena: {prepacked: [\"QGemm:3 =1\"]}}\n").find("is not 'K=type'"),
            std::string::npos);
  const Profile ort = load_profile(Host::profile_path("onnxruntime-cpu"));
  ASSERT_EQ(ort.memory.arena.prepacked.size(), 3U);
  EXPECT_TRUE(ort.memory.arena.prepacked[2].temporary);
  EXPECT_EQ(ort.memory.arena.prepacked[2].attributes,
            (std::vector<std::pair<std::string, std::int64_t>>{{"transB", 1}}));
  EXPECT_TRUE(ort.memory.arena.prepacked[2].types.empty());
  EXPECT_EQ(ort.memory.arena.prepacked[1].domain, "com.microsoft");
  EXPECT_EQ(ort.memory.arena.prepacked[1].types,
            (std::vector<std::pair<std::int32_t, std::int32_t>>{{0, 2}, {3, 3}}));
}

TEST_F(ProfileTest, FloatIsNotAnInteger) {
  EXPECT_EQ(error_in("expressions:\n  max_weight: 1.5\n"),
            "2:15: 'expressions.max_weight' must be an integer between 1 and 4294967295, got "
            "'1.5'");
}

TEST_F(ProfileTest, IntegerBeyondLimitRangeIsRejected) {
  EXPECT_EQ(error_in("expressions: {max_terms: 4294967296}\n"),
            "1:26: 'expressions.max_terms' must be an integer between 1 and 4294967295, got "
            "'4294967296'");
  EXPECT_EQ(error_in("expressions: {max_args: 0}\n"),
            "1:25: 'expressions.max_args' must be an integer between 1 and 4294967295, got '0'");
}

TEST_F(ProfileTest, IntegerOverflowingInt64IsRejected) {
  EXPECT_EQ(error_in("symbols: {N: [99999999999999999999, 5]}\n"),
            "1:15: 'symbols.N' lower bound must be an integer, got '99999999999999999999' (out "
            "of range)");
  EXPECT_EQ(error_in("report: {evaluate: [{N: 9223372036854775808}]}\n"),
            "1:25: 'report.evaluate[0].N' must be a non-negative integer, got "
            "'9223372036854775808' (out of range)");
}

TEST_F(ProfileTest, WrongNestedTypesAreReported) {
  EXPECT_EQ(error_in("shapes: [strict]\n"), "1:9: 'shapes' must be a map, got a list");
  EXPECT_EQ(error_in("plugins: {name: onnx}\n"),
            "1:10: 'plugins' must be a list of plugin entries, got a map");
  EXPECT_EQ(error_in("plugins: [onnx]\n"),
            "1:11: 'plugins[0]' must be a map with 'name' or 'path', got 'onnx'");
  EXPECT_EQ(error_in("plugin_path: ./build\n"),
            "1:14: 'plugin_path' must be a list of folders, got './build'");
  EXPECT_EQ(error_in("plugins:\n  - name: x\n    options: {level: [1, 2]}\n"),
            "3:22: 'plugins[0].options.level' must be a scalar (string, number or boolean), got "
            "a list");
  EXPECT_EQ(error_in("report: {evaluate: {N: 1}}\n"),
            "1:20: 'report.evaluate' must be a list of maps symbol -> value, got a map");
  EXPECT_EQ(error_in("inplace: {fallback: [none]}\n"),
            "1:21: 'inplace.fallback' must be one of: none, structural; got a list");
}

TEST_F(ProfileTest, TopLevelMustBeAMap) {
  EXPECT_EQ(error_in("- profile: x\n"),
            "1:1: the top level of a profile must be a map of keys, got a list");
}

// ---- bad values ---------------------------------------------------------------------------------

TEST_F(ProfileTest, BadChoiceListsTheChoices) {
  EXPECT_EQ(error_in("inplace: {enabled: true, fallback: always}\n"),
            "1:36: 'inplace.fallback' must be one of: none, structural; got 'always'");
}

TEST_F(ProfileTest, MistypedChoiceSuggestsClosest) {
  EXPECT_EQ(error_in("inplace:\n  fallback: structurl\n"),
            "2:13: 'inplace.fallback' must be one of: none, structural; got 'structurl'; did you "
            "mean 'structural'?");
}

TEST_F(ProfileTest, UnknownFallbackWordIsRejected) {
  EXPECT_EQ(error_in("shapes: {fallback: [declared, guess]}\n"),
            "1:31: 'shapes.fallback[1]' must be one of: onnx_schema, declared, unknown_rank; got "
            "'guess'");
}

TEST_F(ProfileTest, DuplicatedFallbackWordIsRejected) {
  EXPECT_EQ(error_in("shapes:\n  fallback: [declared, onnx_schema, declared]\n"),
            "2:37: 'shapes.fallback' lists 'declared' twice");
}

TEST_F(ProfileTest, SymbolLowAboveHighIsRejected) {
  EXPECT_EQ(error_in("symbols:\n  N: [8, 4]\n"),
            "2:6: 'symbols.N' must be [lo, hi] with 0 <= lo <= hi, got [8, 4]");
}

TEST_F(ProfileTest, SymbolNegativeLowIsRejected) {
  EXPECT_EQ(error_in("symbols:\n  N: [-1, null]\n"),
            "2:6: 'symbols.N' must be [lo, hi] with 0 <= lo <= hi, got [-1, null]");
}

TEST_F(ProfileTest, SymbolBoundsMustBeAPair) {
  EXPECT_EQ(error_in("symbols:\n  N: [1, 2, 3]\n"),
            "2:6: 'symbols.N' must be [lo, hi] with 0 <= lo <= hi, got a list of 3 items");
  EXPECT_EQ(error_in("symbols:\n  N: 4\n"),
            "2:6: 'symbols.N' must be [lo, hi] with 0 <= lo <= hi, got '4'");
  EXPECT_EQ(error_in("symbols:\n  N: [1, lots]\n"),
            "2:10: 'symbols.N' upper bound must be an integer, null or .inf, got 'lots'");
}

TEST_F(ProfileTest, SymbolUpperBoundMayBeNullOrInfinite) {
  const Profile p = load_profile(
      write("p.yaml",
            "symbols:\n  a: [0, null]\n  b: [1, .inf]\n  c: [2, \"inf\"]\n  d: [3, ~]\n"
            "  e: [0, 0]\n  f: [5, +.inf]\n"));
  EXPECT_EQ(p.symbols.at("a"), (Interval{0, kPosInf}));
  EXPECT_EQ(p.symbols.at("b"), (Interval{1, kPosInf}));
  EXPECT_EQ(p.symbols.at("c"), (Interval{2, kPosInf}));
  EXPECT_EQ(p.symbols.at("d"), (Interval{3, kPosInf}));
  EXPECT_EQ(p.symbols.at("e"), (Interval{0, 0}));
  EXPECT_EQ(p.symbols.at("f"), (Interval{5, kPosInf}));
}

TEST_F(ProfileTest, SymbolNameMustBeAnIdentifier) {
  EXPECT_EQ(error_in("symbols:\n  seq-len: [1, 8]\n"),
            "2:3: 'seq-len' in 'symbols' is not a symbol name ([A-Za-z_][A-Za-z0-9_]*)");
  EXPECT_EQ(error_in("report: {evaluate: [{2N: 1}]}\n"),
            "1:22: '2N' in 'report.evaluate[0]' is not a symbol name ([A-Za-z_][A-Za-z0-9_]*)");
}

TEST_F(ProfileTest, EvaluateEntriesMustBeNonEmptyAndNonNegative) {
  EXPECT_EQ(error_in("report:\n  evaluate: [{N: 1}, {}]\n"),
            "2:22: 'report.evaluate[1]' must map at least one symbol to a value, e.g. {N: 8}");
  EXPECT_EQ(error_in("report:\n  evaluate: [{N: -4}]\n"),
            "2:18: 'report.evaluate[0].N' must be a non-negative integer, got '-4'");
}

TEST_F(ProfileTest, ProfileNameMustBeNonEmpty) {
  EXPECT_EQ(error_in("profile: \"\"\n"), "1:10: 'profile' must be a non-empty string, got ''");
}

// ---- plugins ------------------------------------------------------------------------------------

TEST_F(ProfileTest, PluginWithBothNameAndPathIsRejected) {
  EXPECT_EQ(error_in("plugins:\n  - name: onnx\n    path: ./libonnx.so\n"),
            "2:5: 'plugins[0]' sets both 'name' and 'path'; set exactly one");
}

TEST_F(ProfileTest, PluginWithNeitherNameNorPathIsRejected) {
  EXPECT_EQ(error_in("plugins:\n  - name: onnx\n  - options: {a: b}\n"),
            "3:5: 'plugins[1]' sets neither 'name' nor 'path'; set exactly one (name: a plugin "
            "found in plugin_path, path: a library file)");
}

TEST_F(ProfileTest, PluginNameMustNotBeAPath) {
  EXPECT_EQ(error_in("plugins:\n  - name: lib/acme\n"),
            "2:11: 'plugins[0].name' must be a plugin name (letters, digits, '_', '-', '.'; use "
            "'path' for a file), got 'lib/acme'");
}

TEST_F(ProfileTest, RelativePathsResolveAgainstTheProfileFolder) {
  const fs::path file = write("sub/dir/p.yaml",
                              "plugins:\n  - path: ../lib/libacme.so\n  - path: /abs/libx.so\n"
                              "plugin_path: [., ops/, ../../shared]\n");
  const Profile p = load_profile(file);
  ASSERT_EQ(p.plugins.size(), 2u);
  EXPECT_EQ(p.plugins[0].path, dir_ / "sub" / "lib" / "libacme.so");
  EXPECT_EQ(p.plugins[1].path, fs::path("/abs/libx.so"));
  EXPECT_EQ(p.plugin_path, (std::vector<fs::path>{dir_ / "sub" / "dir",
                                                  dir_ / "sub" / "dir" / "ops", dir_ / "shared"}));
}

// ---- environment variables ----------------------------------------------------------------------

TEST_F(ProfileTest, EnvironmentVariablesExpandInPathsAndExtends) {
  ::setenv("CCTX_TEST_PLUGIN_DIR", (dir_ / "plugins").c_str(), 1);
  ::setenv("CCTX_TEST_SUB", "ops", 1);
  ::setenv("CCTX_TEST_BASE", "base", 1);
  write("base.yaml", "profile: from_base\n");
  const Profile p = load_profile(write("p.yaml",
                                       "extends: ${CCTX_TEST_BASE}.yaml\n"
                                       "plugins:\n  - path: ${CCTX_TEST_PLUGIN_DIR}/libacme.so\n"
                                       "plugin_path: [\"build/${CCTX_TEST_SUB}\"]\n"));
  EXPECT_EQ(p.name, "from_base");
  ASSERT_EQ(p.plugins.size(), 1u);
  EXPECT_EQ(p.plugins[0].path, dir_ / "plugins" / "libacme.so");
  EXPECT_EQ(p.plugin_path, (std::vector<fs::path>{dir_ / "build" / "ops"}));
}

TEST_F(ProfileTest, UnsetEnvironmentVariableIsNamed) {
  ::unsetenv("CCTX_TEST_SURELY_UNSET");
  EXPECT_EQ(error_in("plugins:\n  - path: ${CCTX_TEST_SURELY_UNSET}/libacme.so\n"),
            "2:11: 'plugins[0].path': environment variable 'CCTX_TEST_SURELY_UNSET' is not set");
  EXPECT_EQ(error_in("plugin_path: [\"${CCTX_TEST_SURELY_UNSET\"]\n"),
            "1:15: 'plugin_path[0]': unterminated '${' in '${CCTX_TEST_SURELY_UNSET'");
}

// ---- extends ------------------------------------------------------------------------------------

TEST_F(ProfileTest, ExtendsOverridesParentKeyByKey) {
  write("base.yaml",
        "profile: base\nsymbols: {N: [1, 64], S: [1, 128]}\n"
        "inplace: {enabled: false, allow_input_overwrite: true}\n"
        "plugin_path: [a]\nreport: {evaluate: [{N: 1}]}\ndecision_log: true\n");
  const Profile p = load_profile(write("child.yaml",
                                       "profile: child\nextends: base.yaml\nsymbols: {N: [2, 32]}\n"
                                       "inplace: {fallback: structural}\nplugin_path: [b]\n"));
  EXPECT_EQ(p.name, "child");
  EXPECT_EQ(p.symbols.at("N"), (Interval{2, 32}));   // child wins per symbol
  EXPECT_EQ(p.symbols.at("S"), (Interval{1, 128}));  // parent's other symbols stay
  EXPECT_FALSE(p.inplace.enabled);                   // sections merge key by key
  EXPECT_TRUE(p.inplace.allow_input_overwrite);
  EXPECT_EQ(p.inplace.fallback, InplaceFallback::kStructural);
  EXPECT_EQ(p.plugin_path,
            (std::vector<fs::path>{dir_ / "b"}));  // lists other than plugins replace
  EXPECT_EQ(p.report.evaluate, (std::vector<Assignment>{{{"N", 1}}}));
  EXPECT_TRUE(p.decision_log);
}

TEST_F(ProfileTest, ExtendsKeyMayComeAfterOverridesAndStillGoesFirst) {
  write("base.yaml", "profile: base\ndecision_log: true\n");
  const Profile p = load_profile(write("child.yaml", "decision_log: false\nextends: base.yaml\n"));
  EXPECT_EQ(p.name, "base");
  EXPECT_FALSE(p.decision_log);
}

TEST_F(ProfileTest, ExtendsConcatenatesPluginsParentFirst) {
  const fs::path base = write("base.yaml", "plugins:\n  - name: onnx\n");
  const Profile p = load_profile(
      write("child.yaml", "extends: base.yaml\nplugins:\n  - name: acme\n    override: true\n"));
  ASSERT_EQ(p.plugins.size(), 2u);
  EXPECT_EQ(p.plugins[0].name, "onnx");
  EXPECT_EQ(p.plugins[0].where, base.string() + ":2:5");
  EXPECT_EQ(p.plugins[1].name, "acme");
  EXPECT_TRUE(p.plugins[1].override_rules);
}

TEST_F(ProfileTest, ExtendsIsRelativeToTheExtendingFile) {
  write("common/base.yaml", "plugins:\n  - path: lib/libbase.so\n");
  write("common/mid.yaml", "extends: base.yaml\nprofile: mid\n");
  const Profile p = load_profile(write("targets/npu.yaml", "extends: ../common/mid.yaml\n"));
  EXPECT_EQ(p.name, "mid");
  ASSERT_EQ(p.plugins.size(), 1u);
  // Paths in a parent resolve against the parent's own folder.
  EXPECT_EQ(p.plugins[0].path, dir_ / "common" / "lib" / "libbase.so");
}

TEST_F(ProfileTest, ErrorsInParentNameTheParentFile) {
  const fs::path base = write("base.yaml", "tags: {enabled: 1}\n");
  EXPECT_EQ(error_of(write("child.yaml", "extends: base.yaml\n")),
            base.string() + ":1:17: 'tags.enabled' must be a boolean (true/false), got '1'");
}

TEST_F(ProfileTest, ExtendsCycleNamesTheChain) {
  const fs::path a = write("a.yaml", "extends: b.yaml\n");
  const fs::path b = write("b.yaml", "profile: b\nextends: ./a.yaml\n");
  EXPECT_EQ(error_of(a), b.string() + ":2:10: 'extends' cycle: " + a.string() + " -> " +
                             b.string() + " -> " + a.string());
}

TEST_F(ProfileTest, ExtendingItselfIsACycle) {
  const fs::path a = write("a.yaml", "extends: a.yaml\n");
  EXPECT_EQ(error_of(a),
            a.string() + ":1:10: 'extends' cycle: " + a.string() + " -> " + a.string());
}

TEST_F(ProfileTest, MissingParentIsReportedAtTheExtendsKey) {
  const fs::path a = write("a.yaml", "profile: a\nextends: nowhere.yaml\n");
  EXPECT_EQ(error_of(a), a.string() + ":2:10: 'extends': " + (dir_ / "nowhere.yaml").string() +
                             ": no such file");
}

// ---- files and syntax ---------------------------------------------------------------------------

TEST_F(ProfileTest, MissingFileIsNamed) {
  const fs::path missing = dir_ / "missing.yaml";
  EXPECT_EQ(error_of(missing), missing.string() + ": no such file");
}

TEST_F(ProfileTest, DirectoryIsNotAProfile) {
  EXPECT_EQ(error_of(dir_), dir_.string() + ": is a directory, not a profile file");
}

TEST_F(ProfileTest, YamlSyntaxErrorHasLineAndColumn) {
  EXPECT_EQ(error_in("profile: x\nsymbols: {N: [1, 2}\n"),
            "2:19: YAML syntax error: illegal flow end");
}

TEST_F(ProfileTest, UnquotedVariableInFlowListGetsAHint) {
  EXPECT_EQ(error_in("plugin_path: [build/${CCTX_TEST_SUB}]\n"),
            "1:22: YAML syntax error: end of sequence flow not found (inside [ ] or { }, quote "
            "values that contain ${...})");
}

TEST_F(ProfileTest, SecondYamlDocumentIsRejected) {
  EXPECT_EQ(error_in("profile: a\n---\nprofile: b\n"),
            "3:1: a profile is a single YAML document; a second one starts here");
}

TEST_F(ProfileTest, ErrorsStayOnOneLine) {
  const std::string message = error_in("profile: x\ndecision_log: |\n  line one\n  line two\n");
  EXPECT_EQ(message,
            "2:15: 'decision_log' must be a boolean (true/false), got 'line one\\nline two\\n'");
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace cctx
