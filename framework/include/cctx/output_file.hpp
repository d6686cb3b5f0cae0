// Every file cctx writes (--write-model, --plot, --plot-stack, the Python module's model and
// figure writes) goes through OutputFile, so that one set of rules decides what happens to the
// target (docs/robustness.md, "Output files"):
// - a new name, or an existing regular file: written to a temporary file in the target's folder
//   and renamed over it on commit, so that a failure never leaves a partial file; a replaced file
//   keeps its mode and, where the process may set it, its owner and group;
// - a symbolic link: followed; the regular file it leads to is replaced the same way (the link
//   stays a link); a link to nothing is refused;
// - a character device or a FIFO (/dev/null, a named pipe): written through, in place, never
//   replaced; a path naming one of the process's descriptors (/dev/stdout, /dev/fd/N,
//   /proc/self/fd/N) is written through that descriptor, whatever it leads to;
// - a directory, a block device, a socket: refused.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace cctx {

class OutputFile {
 public:
  /// Checks `path` by the rules above, without creating or opening anything yet (that happens
  /// at the first write). Throws Error: exit code 2 for an empty name, 3 for a target that is
  /// refused or cannot be created.
  explicit OutputFile(const std::filesystem::path& path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  /// Without commit(), a replacement never happened: the temporary file is removed and the
  /// target keeps its old bytes.
  ~OutputFile();

  /// Appends bytes; throws Error (exit code 5) naming the file and the reason when it cannot.
  void write(std::string_view bytes);
  /// Completes the file: flushed to disk and renamed into place (or, written through, closed).
  void commit();

  /// The path as given, for messages.
  const std::string& path() const { return shown_; }
  /// The regular file that commit() replaces or creates (symbolic links resolved); empty when
  /// the target is written through (a device or a pipe).
  const std::string& replaced_file() const { return target_; }

 private:
  void open();
  std::string folder() const;  ///< where the temporary file goes
  [[noreturn]] void fail_writing(int error) const;

  std::string shown_;   ///< the path as given, for messages
  std::string target_;  ///< the file replaced on commit (symbolic links resolved)
  std::string temp_;    ///< the temporary file; empty when written through
  int temp_slot_ = -1;  ///< its slot for the signal cleanup (output_file.cpp), -1 for none
  int fd_ = -1;
  int stream_ = -1;  ///< the descriptor a path like /dev/stdout names, written through
  bool replaces_existing_ = false;
  unsigned existing_mode_ = 0;
  unsigned existing_uid_ = 0, existing_gid_ = 0;
};

/// Removes the temporary files that OutputFiles are writing (async-signal-safe: for a handler of
/// a signal that ends the process). OutputFile installs it for SIGINT, SIGTERM, SIGHUP, SIGQUIT
/// and SIGPIPE where their disposition is the default; the crash reporter calls it too.
void remove_temporary_files_from_signal();

}  // namespace cctx
