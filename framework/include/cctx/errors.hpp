// Error types of the host. Inside the framework errors are exceptions; the CLI and the Python
// module catch them at the top and turn them into one line and an exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace cctx {

/// Documented process exit codes of the `cctx` command.
enum class ExitCode : int {
  kOk = 0,
  kUsage = 2,     ///< bad command line
  kBadInput = 3,  ///< unreadable or invalid model, profile or plugin; bad expression
  kAnalysis = 4,  ///< analysis error in strict mode
  kOutput = 5,    ///< the output (standard output, a file asked for) cannot be written
  kFindings = 6,  ///< the command ran and found something to fix (`plugins --check`)
};

namespace detail {
/// `what()` is a C string: a NUL from a model's name would cut the message short, so it is
/// spelled `\x00` (as the terminal shows it, see safe_text.hpp).
inline std::string without_nul(const std::string& message) {
  if (message.find('\0') == std::string::npos) return message;
  std::string out;
  for (const char c : message) {
    if (c == '\0') {
      out += "\\x00";
    } else {
      out += c;
    }
  }
  return out;
}
}  // namespace detail

/// Base of every error the framework raises on purpose. `what()` is one line that names the file
/// (or node) and the problem.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, ExitCode code = ExitCode::kBadInput)
      : std::runtime_error(detail::without_nul(message)), code_(code) {}
  ExitCode exit_code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

/// A model file that cannot be read or is not a valid ONNX model.
class ModelError : public Error {
 public:
  using Error::Error;
};

/// A profile with a syntax error, an unknown key, a wrong type or a bad value (file:line:col).
class ConfigError : public Error {
 public:
  using Error::Error;
};

/// A plugin that cannot be loaded, is incompatible, or fails to register.
class PluginError : public Error {
 public:
  using Error::Error;
};

/// An analysis failure in strict mode, naming node index and name, op type, domain and opset.
class AnalysisError : public Error {
 public:
  explicit AnalysisError(const std::string& message) : Error(message, ExitCode::kAnalysis) {}
};

}  // namespace cctx
