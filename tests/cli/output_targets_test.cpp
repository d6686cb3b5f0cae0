// The rules of output files (docs/robustness.md, "Output files"), through the real `cctx` binary,
// for every file-writing option (--write-model, --plot, --plot-stack): devices and pipes are
// written through, never replaced; symbolic links are followed; refused targets (folders, block
// devices, sockets, links to nothing, external data going to another folder) exit 3 and touch
// nothing; a replaced file keeps its mode and owner; an empty name is a usage error.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <thread>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;
using test::read_file;
using test::run_cctx;
using test::write_file;

struct stat stat_of(const std::filesystem::path& p) {
  struct stat st {};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return st;
}

/// The option and the arguments it needs to write something.
struct Writer {
  const char* option;
  const char* extra;
};
constexpr Writer kWriters[] = {
    {"--write-model", ""}, {"--plot", "--eval N=2"}, {"--plot-stack", "--eval N=2"}};

class OutputTargets : public ::testing::Test {
 protected:
  test::RunResult write_to(const Writer& w, const std::filesystem::path& target) const {
    return run_cctx("analyze " + quoted(test::seed_model()) + " " + w.extra + " " + w.option + " " +
                    quoted(target));
  }
  /// No temporary file left in the folder.
  void expect_no_temporary() const {
    for (const auto& e : std::filesystem::directory_iterator(dir_.path())) {
      EXPECT_EQ(e.path().filename().string().find(".cctx-"), std::string::npos) << e.path();
    }
  }
  static bool root() { return ::geteuid() == 0; }
  test::TempDir dir_;
};

TEST_F(OutputTargets, CharacterDeviceIsWrittenThroughNeverReplaced) {
  // A device node of our own (the null device's numbers) in a temporary folder.
  const auto null_device = dir_ / "null";
  if (::mknod(null_device.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    GTEST_SKIP() << "mknod needs root: " << std::strerror(errno);
  }
  for (const Writer& w : kWriters) {
    auto r = write_to(w, null_device);
    EXPECT_EQ(r.exit_code, 0) << w.option << ": " << r.err;
    EXPECT_TRUE(S_ISCHR(stat_of(null_device).st_mode)) << w.option << " replaced the device";
  }
  expect_no_temporary();
}

TEST_F(OutputTargets, DeviceThatFailsWritesIsExitCode5) {
  const auto full_device = dir_ / "full";
  if (::mknod(full_device.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) {
    GTEST_SKIP() << "mknod needs root: " << std::strerror(errno);
  }
  auto r = write_to(kWriters[0], full_device);
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("write failed (No space left on device)"), std::string::npos) << r.err;
  EXPECT_TRUE(S_ISCHR(stat_of(full_device).st_mode));
}

TEST_F(OutputTargets, FifoIsWrittenThrough) {
  const auto fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = read_file(fifo); });
  auto r = write_to(kWriters[0], fifo);
  reader.join();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(S_ISFIFO(stat_of(fifo).st_mode));
  onnx::ModelProto written;
  EXPECT_TRUE(written.ParseFromString(received)) << received.size() << " bytes";
  EXPECT_GT(written.graph().value_info_size(), 0);
}

TEST_F(OutputTargets, BlockDeviceSocketAndFolderAreRefused) {
  const auto socket_path = dir_ / "sock";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  std::filesystem::create_directory(dir_ / "folder");
  std::vector<std::pair<std::filesystem::path, std::string>> refused = {
      {socket_path, "is a socket"}, {dir_ / "folder", "is a directory"}};
  const auto block = dir_ / "block";
  if (::mknod(block.c_str(), S_IFBLK | 0600, makedev(7, 0)) == 0) {
    refused.emplace_back(block, "is a block device");
  }
  for (const Writer& w : kWriters) {
    for (const auto& [target, message] : refused) {
      const mode_t kind = stat_of(target).st_mode & S_IFMT;
      auto r = write_to(w, target);
      EXPECT_EQ(r.exit_code, 3) << w.option << " " << target << ": " << r.err;
      EXPECT_NE(r.err.find(target.string() + ": " + message), std::string::npos) << r.err;
      EXPECT_TRUE(r.out.empty());
      EXPECT_EQ(stat_of(target).st_mode & S_IFMT, kind) << target;
    }
  }
  ::close(fd);
  expect_no_temporary();
}

TEST_F(OutputTargets, SymlinkIsFollowedAndStaysALink) {
  write_file(dir_ / "real.onnx", "old");
  ASSERT_EQ(::chmod((dir_ / "real.onnx").c_str(), 0640), 0);
  std::filesystem::create_symlink("real.onnx", dir_ / "link.onnx");
  auto r = write_to(kWriters[0], dir_ / "link.onnx");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_symlink(dir_ / "link.onnx"));
  EXPECT_EQ(std::filesystem::read_symlink(dir_ / "link.onnx"), "real.onnx");
  onnx::ModelProto written;
  EXPECT_TRUE(written.ParseFromString(read_file(dir_ / "real.onnx")));
  EXPECT_EQ(stat_of(dir_ / "real.onnx").st_mode & 07777, 0640u);
  expect_no_temporary();
}

TEST_F(OutputTargets, SymlinkToNothingIsRefused) {
  std::filesystem::create_symlink("missing.svg", dir_ / "dangling.svg");
  for (const Writer& w : kWriters) {
    auto r = write_to(w, dir_ / "dangling.svg");
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("dangling.svg: is a symbolic link to a missing file"), std::string::npos)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "missing.svg"));
  }
}

TEST_F(OutputTargets, ReplacedFileKeepsModeAndOwner) {
  for (const Writer& w : kWriters) {
    const auto target = dir_ / (std::string(w.option + 2) + ".out");
    write_file(target, "old bytes");
    ASSERT_EQ(::chmod(target.c_str(), 0600), 0);
    if (root()) {
      ASSERT_EQ(::chown(target.c_str(), 65534, 65534), 0);
    }
    auto r = write_to(w, target);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const struct stat st = stat_of(target);
    EXPECT_EQ(st.st_mode & 07777, 0600u) << w.option;
    if (root()) {
      EXPECT_EQ(st.st_uid, 65534u) << w.option;
      EXPECT_EQ(st.st_gid, 65534u) << w.option;
    }
    EXPECT_NE(read_file(target), "old bytes");
  }
  expect_no_temporary();
}

TEST_F(OutputTargets, NewFileFollowsTheUmask) {
  auto r = run_cctx(
      "analyze " + quoted(test::seed_model()) + " --write-model " + quoted(dir_ / "new.onnx"),
      "umask 027;");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(stat_of(dir_ / "new.onnx").st_mode & 07777, 0640u);
}

TEST_F(OutputTargets, ReadOnlyFileIsRefusedForOthersThanRoot) {
  if (!root()) GTEST_SKIP() << "drops root to test a file the user may not write";
  // The folder and the file belong to nobody; the file is read-only for its owner.
  ASSERT_EQ(::chown(dir_.path().c_str(), 65534, 65534), 0);
  write_file(dir_ / "ro.onnx", "keep");
  ASSERT_EQ(::chown((dir_ / "ro.onnx").c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chmod((dir_ / "ro.onnx").c_str(), 0444), 0);
  auto r = run_cctx(
      "analyze " + quoted(test::seed_model()) + " --write-model " + quoted(dir_ / "ro.onnx"),
      "setpriv --reuid=65534 --regid=65534 --clear-groups");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("ro.onnx: cannot write (Permission denied)"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(dir_ / "ro.onnx"), "keep");
}

TEST_F(OutputTargets, EmptyNameIsAUsageError) {
  for (const Writer& w : kWriters) {
    auto r =
        run_cctx("analyze " + quoted(test::seed_model()) + " " + w.extra + " " + w.option + " ''");
    EXPECT_EQ(r.exit_code, 2) << w.option << ": " << r.err;
    EXPECT_NE(r.err.find("an empty file name"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

TEST_F(OutputTargets, RefusedBeforeTheAnalysisLeavesNothing) {
  // A refused --plot does not let --write-model write first.
  std::filesystem::create_directory(dir_ / "folder.svg");
  auto r = run_cctx("analyze " + quoted(test::seed_model()) + " --eval N=2 --write-model " +
                    quoted(dir_ / "m.onnx") + " --plot " + quoted(dir_ / "folder.svg"));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "m.onnx"));
  expect_no_temporary();
}

TEST_F(OutputTargets, ExternalDataStaysWithItsFolder) {
  // W keeps its data in w.bin next to the model (never read: sizes come from dims).
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {"N", 4});
  onnx::TensorProto w = test::tensor_zeros("W", test::kFloat, {4, 4});
  w.clear_raw_data();
  w.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* location = w.add_external_data();
  location->set_key("location");
  location->set_value("w.bin");
  b.initializer(w);
  b.node("MatMul", {"X", "W"}, {"Y"});
  b.output("Y");
  std::filesystem::create_directory(dir_ / "model");
  std::filesystem::create_directory(dir_ / "elsewhere");
  write_file(dir_ / "model" / "m.onnx", b.build().proto().SerializeAsString());
  const std::string m = quoted(dir_ / "model" / "m.onnx");
  auto r = run_cctx("analyze " + m + " --write-model " + quoted(dir_ / "elsewhere" / "out.onnx"));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("external files ('w.bin'"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_FALSE(std::filesystem::exists(dir_ / "elsewhere" / "out.onnx"));
  // In the model's own folder the locations stay valid.
  r = run_cctx("analyze " + m + " --write-model " + quoted(dir_ / "model" / "annotated.onnx"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "model" / "annotated.onnx"));
}

TEST_F(OutputTargets, StandardStreamPathsWriteThroughTheStream) {
  // run_cctx sends standard output to a regular file: the model must go into that stream, in
  // order before the table, not replace the file (which would orphan the stream) nor be written
  // at offset 0 over what the stream holds.
  auto plain = run_cctx("analyze " + quoted(test::seed_model()) + " --write-model " +
                        quoted(dir_ / "m.onnx"));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const std::string model = read_file(dir_ / "m.onnx");
  for (const char* stream : {"/dev/stdout", "/proc/self/fd/1", "/dev/fd/1"}) {
    auto r = run_cctx("analyze " + quoted(test::seed_model()) + " --write-model " + stream);
    ASSERT_EQ(r.exit_code, 0) << stream << ": " << r.err;
    EXPECT_EQ(r.out, model + plain.out) << stream;
  }
  auto closed = run_cctx("analyze " + quoted(test::seed_model()) + " --write-model /dev/fd/9");
  EXPECT_EQ(closed.exit_code, 3) << closed.err;
  EXPECT_NE(closed.err.find("/dev/fd/9: cannot write (Bad file descriptor)"), std::string::npos)
      << closed.err;
}

}  // namespace
}  // namespace cctx
