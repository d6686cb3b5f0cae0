// The rules of output targets (see output_file.hpp).
#include "cctx/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "cctx/errors.hpp"

namespace cctx {

namespace {

std::string reason(int error) { return std::strerror(error); }

/// The file a path leads to, symbolic links resolved (the path itself when it cannot be).
std::string resolved(const std::string& path) {
  char buffer[PATH_MAX];
  if (::realpath(path.c_str(), buffer) == nullptr) return path;
  return buffer;
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/// The descriptor a path names in this process (/dev/stdout, /dev/stderr, /dev/fd/N,
/// /proc/self/fd/N), or -1. Such a path means "this stream": written through a duplicate of the
/// descriptor, so the bytes go in order with the process's own writes to it, even when the shell
/// redirected the stream to a regular file (reopening the path would write at offset 0, and
/// replacing the file would orphan the stream).
int descriptor_named(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) continue;
    int fd = 0;
    for (std::size_t k = prefix.size(); k < path.size(); ++k) {
      if (path[k] < '0' || path[k] > '9' || fd > 1000000) return -1;
      fd = fd * 10 + (path[k] - '0');
    }
    return fd;
  }
  return -1;
}

// Temporary files in the making, for a signal that ends the process (Ctrl-C, kill) to remove
// before it dies: a destructor never runs then, and a half-written `.NAME.cctx-XXXXXX` of up to
// 2 GiB would stay behind. Fixed slots of fixed size, since a handler may only read memory and
// call async-signal-safe functions (unlink, signal, raise).
constexpr int kTempSlots = 8;
char g_temp_paths[kTempSlots][PATH_MAX];
std::atomic<int> g_temp_used[kTempSlots];
static_assert(std::atomic<int>::is_always_lock_free);

void remove_temporaries_and_die(int sig) {
  remove_temporary_files_from_signal();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

/// Handlers for the signals that end a process by default, installed once and only where the
/// disposition is still the default: an embedding program's own handler (Python's SIGINT, which
/// raises KeyboardInterrupt) is left alone, and cctx's commit or destructor cleans up there.
void install_cleanup_handlers() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) {
    struct sigaction current {};
    if (::sigaction(sig, nullptr, &current) != 0 || current.sa_handler != SIG_DFL ||
        (current.sa_flags & SA_SIGINFO) != 0) {
      continue;
    }
    struct sigaction action {};
    action.sa_handler = &remove_temporaries_and_die;
    ::sigemptyset(&action.sa_mask);
    ::sigaction(sig, &action, nullptr);
  }
}

/// A slot for a temporary file about to be made, its handlers installed, or -1 when all are taken
/// (the file is then only removed by the destructor, as before). The slot reads 2 (skipped by the
/// handler) until publish_temporary: the name is written into the slot by mkstemp itself, so the
/// window between the file's creation and its cleanup being armed is a single store.
int claim_temporary_slot() {
  install_cleanup_handlers();
  for (int k = 0; k < kTempSlots; ++k) {
    int expected = 0;
    if (g_temp_used[k].compare_exchange_strong(expected, 2)) return k;
  }
  return -1;
}

void publish_temporary(int slot) { g_temp_used[slot].store(1); }

void forget_temporary(int slot) {
  if (slot >= 0) g_temp_used[slot].store(0);
}

mode_t current_umask() {
  // umask can only be read by setting it; the value is put back at once.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

}  // namespace

void remove_temporary_files_from_signal() {
  for (int k = 0; k < kTempSlots; ++k) {
    if (g_temp_used[k].load() == 1) ::unlink(g_temp_paths[k]);
  }
}

OutputFile::OutputFile(const std::filesystem::path& path) : shown_(path.string()) {
  if (shown_.empty()) throw Error("an output file name is empty", ExitCode::kUsage);
  if (const int fd = descriptor_named(shown_); fd >= 0) {
    if (::fcntl(fd, F_GETFD) < 0) throw Error(shown_ + ": cannot write (" + reason(errno) + ")");
    stream_ = fd;
    return;  // target_ stays empty: written through
  }
  struct stat st {};
  if (::stat(shown_.c_str(), &st) == 0) {
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      // A device or a pipe is the user's way of saying where the bytes go: written into, and
      // opened only when the bytes are ready (a FIFO's open waits for its reader).
      if (::faccessat(AT_FDCWD, shown_.c_str(), W_OK, AT_EACCESS) != 0) {
        throw Error(shown_ + ": cannot write (" + reason(errno) + ")");
      }
      return;  // target_ stays empty: written through
    }
    if (!S_ISREG(st.st_mode)) {
      throw Error(shown_ + ": is " + kind_of(st.st_mode) +
                  "; cctx writes regular files, character devices and pipes");
    }
    if (::faccessat(AT_FDCWD, shown_.c_str(), W_OK, AT_EACCESS) != 0) {
      throw Error(shown_ + ": cannot write (" + reason(errno) + ")");
    }
    target_ = resolved(shown_);
    replaces_existing_ = true;
    existing_mode_ = st.st_mode & 07777;
    existing_uid_ = st.st_uid;
    existing_gid_ = st.st_gid;
  } else if (errno == ENOENT) {
    struct stat link {};
    if (::lstat(shown_.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
      throw Error(shown_ + ": is a symbolic link to a missing file (not written through)");
    }
    target_ = shown_;
  } else {
    throw Error(shown_ + ": cannot write (" + reason(errno) + ")");
  }
  // The temporary file is made only when the bytes are ready (an interrupted analysis leaves
  // none behind), but whether it can be made is known now.
  if (::faccessat(AT_FDCWD, folder().c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
    throw Error(shown_ + ": cannot create a file in " + folder() + " (" + reason(errno) + ")");
  }
}

std::string OutputFile::folder() const {
  const std::filesystem::path target(target_);
  return target.has_parent_path() ? target.parent_path().string() : std::string(".");
}

void OutputFile::open() {
  if (stream_ >= 0) {
    // Standard output's own buffer goes first, so that the bytes keep the order they were made in.
    if (stream_ == 1) std::fflush(stdout);
    fd_ = ::fcntl(stream_, F_DUPFD_CLOEXEC, 3);
    if (fd_ < 0) throw Error(shown_ + ": cannot write (" + reason(errno) + ")");
    return;
  }
  if (target_.empty()) {
    fd_ = ::open(shown_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd_ < 0) throw Error(shown_ + ": cannot open for writing (" + reason(errno) + ")");
    return;
  }
  temp_ = (std::filesystem::path(folder()) /
           ("." + std::filesystem::path(target_).filename().string() + ".cctx-XXXXXX"))
              .string();
  const int slot = temp_.size() < PATH_MAX ? claim_temporary_slot() : -1;
  if (slot >= 0) {
    // mkstemp's work done here so that the name is in the slot, and armed, before the file
    // exists: a signal can then never find a file of ours that its handler does not know.
    static constexpr char kLetters[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::random_device random;
    const std::size_t suffix = temp_.size() - 6;
    for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
      for (std::size_t k = suffix; k < temp_.size(); ++k) {
        temp_[k] = kLetters[random() % (sizeof kLetters - 1)];
      }
      g_temp_used[slot].store(2);
      std::memcpy(g_temp_paths[slot], temp_.c_str(), temp_.size() + 1);
      publish_temporary(slot);
      fd_ = ::open(temp_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd_ < 0 && errno != EEXIST) break;
    }
    if (fd_ >= 0) {
      temp_slot_ = slot;
    } else {
      const int err = errno;
      forget_temporary(slot);
      errno = err;
    }
  } else {
    fd_ = ::mkstemp(temp_.data());
  }
  if (fd_ < 0) {
    const int err = errno;
    temp_.clear();
    throw Error(shown_ + ": cannot create a file in " + folder() + " (" + reason(err) + ")");
  }
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
  forget_temporary(temp_slot_);
}

void OutputFile::fail_writing(int error) const {
  throw Error(shown_ + ": write failed (" + reason(error) + ")", ExitCode::kOutput);
}

void OutputFile::write(std::string_view bytes) {
  if (fd_ < 0) open();
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_writing(errno);
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void OutputFile::commit() {
  if (fd_ < 0) open();  // nothing was written: an empty file
  if (temp_.empty()) {  // written through: nothing to rename
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail_writing(errno);
    return;
  }
  if (::fsync(fd_) != 0) fail_writing(errno);
  if (replaces_existing_) {
    // Owner first: changing it clears set-user-ID bits, which the mode then restores. A process
    // that may not give the file away (not root) keeps what it can: the group, then nothing.
    if (::fchown(fd_, existing_uid_, existing_gid_) != 0) {
      (void)!::fchown(fd_, static_cast<uid_t>(-1), existing_gid_);
    }
    if (::fchmod(fd_, existing_mode_) != 0) fail_writing(errno);
  } else if (::fchmod(fd_, 0666 & ~current_umask()) != 0) {  // as open(O_CREAT) would make it
    fail_writing(errno);
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail_writing(errno);
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
    throw Error(shown_ + ": cannot replace the file (" + reason(errno) + ")", ExitCode::kOutput);
  }
  // From here the name is the target's: a signal must not remove it.
  forget_temporary(temp_slot_);
  temp_slot_ = -1;
  temp_.clear();
}

}  // namespace cctx
