#include "test_env.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>

namespace cctx::test {

std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
}

RunResult run_cctx(const std::string& args, const std::string& prefix) {
  TempDir dir;
  const std::string out = (dir / "out").string(), err = (dir / "err").string();
  const std::string command =
      prefix + " " + cctx_binary().string() + " " + args + " >" + out + " 2>" + err;
  const int status = std::system(command.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

void expect_error(const RunResult& r, int code, std::initializer_list<std::string> needles) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  for (const std::string& needle : needles) EXPECT_TRUE(contains(r.err, needle)) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out.substr(0, 200);
}

}  // namespace cctx::test
