// Profiles by name through the real binary: `cctx profiles` lists the shipped ones, and
// `extends: NAME` in a profile file resolves to the shipped profile when no file of that name
// exists next to it (docs/profiles.md, "Profiles").
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;
using test::run_cctx;
using test::write_file;

std::string seed() { return quoted(test::seed_model()); }

/// The profiles of the build tree's profile folder: what `cctx profiles` must list.
std::ptrdiff_t shipped_count() {
  std::ptrdiff_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(test::profile_dir()))
    n += e.path().extension() == ".yaml";
  return n;
}

TEST(CliProfiles, TableListsEveryShippedProfileWithPathAndDescription) {
  auto r = run_cctx("profiles");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  for (const char* name :
       {"default", "no-plugins", "onnxruntime-cpu-unoptimized-no-arena", "structural"}) {
    const std::string path = (test::profile_dir() / (std::string(name) + ".yaml")).string();
    EXPECT_NE(r.out.find(path), std::string::npos) << name << "\n" << r.out;
  }
  // One line per profile, the description being the first sentence of the file's comment.
  EXPECT_NE(r.out.find("The default analysis profile: the ai.onnx operator set, every stage on, "
                       "the defaults of docs/design/semantics.md.\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 2 + shipped_count()) << r.out;
}

TEST(CliProfiles, JsonHasNamePathAndDescription) {
  auto r = run_cctx("profiles --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc.size(), static_cast<std::size_t>(shipped_count())) << r.out;
  EXPECT_EQ(doc[0]["name"], "default");
  for (const auto& p : doc) {
    EXPECT_TRUE(std::filesystem::is_regular_file(p["path"].get<std::string>())) << p;
    EXPECT_FALSE(p["description"].get<std::string>().empty()) << p;
  }
  auto bad = run_cctx("profiles --format xml");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

/// run_bytes and session_bytes at N=8 under the profile `profile` (a path or a name).
nlohmann::json runtime_figures(const std::string& profile) {
  auto r = run_cctx("analyze " + seed() + " --format json --eval N=8 --profile " + profile);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return {};
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  const nlohmann::json& e = doc["peak"]["evaluations"][0];
  nlohmann::json out = nlohmann::json::object();
  out["run"] = e["run_bytes"];
  out["session"] = e["session_bytes"];
  return out;
}

TEST(CliProfiles, ExtendsByNameFindsTheShippedProfile) {
  test::TempDir dir;
  write_file(dir / "mine.yaml", "profile: mine\nextends: onnxruntime-cpu-unoptimized-no-arena\n");
  const auto by_name = runtime_figures("onnxruntime-cpu-unoptimized-no-arena");
  // Not the default profile's figures: the buffers and the runtime's own structures.
  EXPECT_EQ(by_name["run"], 528 + 1740 + 7 * 28 + 5 * 90);
  EXPECT_EQ(runtime_figures(quoted(dir / "mine.yaml")), by_name);
}

TEST(CliProfiles, ExtendsPrefersAFileOfThatNameNextToTheProfile) {
  test::TempDir dir;
  // A file called `default` next to the profile wins over the shipped default: here one that
  // loads no plugin, so every op is reported as unknown.
  write_file(dir / "default", "profile: local\nplugins: []\n");
  write_file(dir / "mine.yaml", "extends: default\n");
  auto r = run_cctx("analyze " + seed() + " --profile " + quoted(dir / "mine.yaml"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no shape rule"), std::string::npos) << r.err;
  // Without that file, `extends: default` is the shipped default: no warning at all.
  std::filesystem::remove(dir / "default");
  r = run_cctx("analyze " + seed() + " --profile " + quoted(dir / "mine.yaml"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(CliProfiles, ExtendsOfAnUnknownNameIsAOneLineError) {
  test::TempDir dir;
  write_file(dir / "mine.yaml", "extends: no-such-profile\n");
  auto r = run_cctx("analyze " + seed() + " --profile " + quoted(dir / "mine.yaml"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_NE(r.err.find("mine.yaml:1:10: 'extends': "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no-such-profile"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace cctx
