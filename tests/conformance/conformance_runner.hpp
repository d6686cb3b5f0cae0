// The conformance protocol against ONNX's own backend test models (libonnx-testdata): prepare
// each model the way a user's model arrives, run the cctx pipeline, and compare the inferred
// shape of every tensor graph output with the dims of the expected output tensor. See README.md
// in this folder for the protocol in prose.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cctx/expr.hpp"
#include "cctx/host.hpp"
#include "cctx/model.hpp"

namespace cctx::conformance {

/// The two runs: declared input dims as they are, or every input dim a fresh symbol.
enum class RunKind { kConcrete, kSymbolic };

/// "concrete" or "symbolic" (the third field of a failure key).
const char* run_name(RunKind run);

/// One backend test model with the tensors of its first test data set, read once.
struct TestCase {
  std::string id;              ///< folder relative to the data folder: "node/test_abs"
  std::optional<Model> model;  ///< empty when the file could not be loaded
  std::string load_error;      ///< why it could not, when it could not
  /// Per graph input, the test value; empty when the file is missing or not a tensor.
  std::vector<std::optional<onnx::TensorProto>> inputs;
  /// Per graph output, the expected value; empty when missing or not a tensor (those outputs
  /// are not counted).
  std::vector<std::optional<onnx::TensorProto>> outputs;
};

/// The case folders under `data_dir` (node, pytorch-converted, pytorch-operator, simple; not
/// real), sorted, as ids ("node/test_abs"). Empty when the folder does not exist.
std::vector<std::string> list_cases(const std::filesystem::path& data_dir);

/// Reads `<data_dir>/<id>/model.onnx` with cctx's loader and test_data_set_0. Never throws: a
/// model that does not load is reported through `load_error`.
TestCase load_case(const std::filesystem::path& data_dir, const std::string& id);

/// A model rewritten for one run, with what is needed to evaluate its symbolic dims.
struct PreparedModel {
  Model model;
  /// Symbolic run: fresh input symbol -> the input's original dim.
  Assignment assignment;
  /// Symbols whose original value is 0 need the bound [0, +inf) instead of the default.
  std::map<std::string, Interval, std::less<>> bounds;
};

/// Step 1 (and 3) of the protocol: output shapes and value_info removed, small integer and
/// size-carrying inputs folded into initializers, and for the symbolic run the remaining input
/// dims replaced by d0, d1, ... Requires `c.model`.
PreparedModel prepare(const TestCase& c, RunKind run);

/// The verdict on one graph output in one run.
struct OutputResult {
  std::string case_id;
  std::size_t output = 0;
  RunKind run = RunKind::kConcrete;
  bool pass = false;
  std::string reason;  ///< one line, empty when passing
  /// Where the failure starts: the first node (topological order) feeding the output whose
  /// shape is unresolved, or the output's producer. "Unique-11"; empty when passing.
  std::string op;

  /// "node/test_abs:0:concrete", the key of expected_failures.txt.
  std::string key() const;
};

/// Step 2 (or 3) for one case: prepares, runs a fresh ComputeContext made from `host`'s registry
/// and profile, and judges every tensor output that has an expected value. Never throws: an
/// exception fails every output of the case with its message.
std::vector<OutputResult> run_case(const Host& host, const TestCase& c, RunKind run);

/// Passed / counted outputs of one run.
struct Tally {
  std::size_t passed = 0;
  std::size_t total = 0;
  double percent() const { return total == 0 ? 0.0 : 100.0 * passed / total; }
};

/// Every case of `data_dir`, both runs, one host. Each model is loaded once.
struct Report {
  std::vector<OutputResult> results;
  Tally concrete;
  Tally symbolic;
  std::size_t models = 0;  ///< cases with at least one counted output
  /// Seconds spent on each case (both runs), slowest first: keeps the test's run time visible.
  std::vector<std::pair<std::string, double>> slowest;
};
/// `before_case`, when set, is called with each case id before it runs (tracing a slow case).
Report run_all(const Host& host, const std::filesystem::path& data_dir,
               const std::function<void(const std::string&)>& before_case = {});

}  // namespace cctx::conformance
