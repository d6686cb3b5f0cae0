// `cctx diff`: two JSON reports, or one model under two profiles. The seed with in-place reuse
// switched off is the "after": Abs and Reshape then allocate, and the peak moves to Abs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report_files.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

struct SeedDiff : ::testing::Test {
  test::TempDir dir;
  std::filesystem::path profile = dir / "no-inplace.yaml";
  void SetUp() override {
    test::write_file(profile, "profile: no-inplace\nextends: " +
                                  (test::profile_dir() / "default.yaml").string() +
                                  "\ninplace: {enabled: false}\n");
  }
  std::filesystem::path report(const std::string& name, const std::string& args) {
    const auto r =
        test::run_cctx("analyze " + test::quoted(test::seed_model()) + " --format json " + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    test::write_file(dir / name, r.out);
    return dir / name;
  }
};

void expect_inplace_off_changes(const nlohmann::json& doc) {
  EXPECT_EQ(doc["format"], "cctx.diff/1");
  EXPECT_EQ(doc["matched_by"], "index");
  EXPECT_EQ(doc["peak"]["before"]["total_bytes"], "64*N+64");
  EXPECT_EQ(doc["peak"]["before"]["node"], 1);
  EXPECT_EQ(doc["peak"]["after"]["node"], 3);
  // Abs now allocates A (32*N) on top of the 48*N+80 already there.
  EXPECT_EQ(doc["peak"]["after"]["total_bytes"], "80*N+80");
  EXPECT_EQ(doc["peak"]["change"]["formula"], "16*N+16");
  ASSERT_EQ(doc["peak"]["after"]["evaluations"].size(), 1u);
  EXPECT_EQ(doc["peak"]["before"]["evaluations"][0]["bytes"], 576);
  EXPECT_EQ(doc["peak"]["after"]["evaluations"][0]["bytes"], 720);
  std::vector<int> changed, decisions;
  for (const auto& n : doc["nodes"]) changed.push_back(n["before_index"]);
  for (const auto& n : doc["inplace_changes"]) decisions.push_back(n["before_index"]);
  EXPECT_EQ(decisions, (std::vector<int>{3, 4}));
  ASSERT_FALSE(changed.empty());
  EXPECT_EQ(changed.front(), 3) << "nodes before Abs are unchanged";
  const auto& abs = doc["nodes"][0];
  EXPECT_EQ(abs["before"], "48*N+80");
  EXPECT_EQ(abs["after"], "80*N+80");
  EXPECT_EQ(abs["change"]["formula"], "32*N");
  EXPECT_EQ(abs["change"]["evaluated"][0],
            nlohmann::json({{"before", 464}, {"after", 720}, {"change", 256}}));
}

TEST_F(SeedDiff, TwoJsonReports) {
  const auto before = report("before.json", "--eval N=8");
  const auto after = report("after.json", "--eval N=8 --profile " + test::quoted(profile));
  const auto r =
      test::run_cctx("diff " + test::quoted(before) + " " + test::quoted(after) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_inplace_off_changes(nlohmann::json::parse(r.out));
}

TEST_F(SeedDiff, OneModelUnderTwoProfiles) {
  const auto r = test::run_cctx("diff " + test::quoted(test::seed_model()) + " --profile " +
                                test::quoted(profile) + " --eval N=8 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  expect_inplace_off_changes(doc);
  EXPECT_NE(doc["after"]["label"].get<std::string>().find("no-inplace"), std::string::npos);
}

TEST_F(SeedDiff, TextNamesThePeakAndTheChangedNodes) {
  const auto r = test::run_cctx("diff " + test::quoted(test::seed_model()) + " --profile " +
                                test::quoted(profile) + " --eval N=8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.out.find(
          "Peak total bytes: 64*N+64 at node 1 (Concat) -> 80*N+80 at node 3 (Abs) (+16*N+16)"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("N=8: 576 at node 1 (Concat) -> 720 at node 3 (Abs) (+144)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("+32*N"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("may_reuse"), std::string::npos) << "the in-place decisions that went away";
}

TEST_F(SeedDiff, SameReportHasNoChange) {
  const auto before = report("before.json", "--eval N=8");
  const auto r = test::run_cctx("diff " + test::quoted(before) + " " + test::quoted(before) +
                                " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["changed_nodes"], 0);
  EXPECT_TRUE(doc["inplace_changes"].empty());
  EXPECT_EQ(doc["peak"]["change"]["formula"], 0);
}

TEST_F(SeedDiff, NotAReportIsBadInput) {
  const auto bad = dir / "bad.json";
  test::write_file(bad, "{\"format\": \"something else\"}");
  const auto r = test::run_cctx("diff " + test::quoted(bad) + " " + test::quoted(bad));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("not a cctx.analysis/1 report"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace cctx
