#include "conformance_runner.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <exception>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_set>

#include "cctx/compute_context.hpp"
#include "cctx/graph.hpp"

namespace cctx::conformance {
namespace fs = std::filesystem;

namespace {

// The backend test folders; `real/` holds big external models and is not part of the protocol.
constexpr std::array<const char*, 4> kSuites = {"node", "pytorch-converted", "pytorch-operator",
                                                "simple"};
// An exporter folds small integer inputs into constants; larger ones are data.
constexpr std::int64_t kMaxFoldedElements = 64;
// Keeps a failure reason on one short line (some messages quote whole expressions).
constexpr std::size_t kMaxReasonLength = 240;

// ---- reading ------------------------------------------------------------------------------------

std::optional<onnx::TensorProto> read_tensor(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  onnx::TensorProto tensor;
  if (!tensor.ParseFromString(bytes.str())) return std::nullopt;
  return tensor;
}

std::string test_file(const char* stem, int index) {
  return std::string(stem) + "_" + std::to_string(index) + ".pb";
}

// ---- preparing ----------------------------------------------------------------------------------

bool is_integer_type(std::int32_t dtype) {
  using T = onnx::TensorProto;
  switch (dtype) {
    case T::INT8:
    case T::UINT8:
    case T::INT16:
    case T::UINT16:
    case T::INT32:
    case T::UINT32:
    case T::INT64:
    case T::UINT64:
    case T::BOOL:
      return true;
    default:
      return false;
  }
}

// Product of the dims, or -1 when above `limit` (or negative), so huge tensors never overflow.
std::int64_t element_count(const onnx::TensorProto& t, std::int64_t limit) {
  std::int64_t count = 1;
  for (std::int64_t d : t.dims()) {
    if (d < 0) return -1;
    if (d == 0) return 0;
    if (count > limit / d) return -1;
    count *= d;
  }
  return count;
}

// The non-integer inputs an exporter would also have folded because they carry sizes: Resize's
// roi/scales/sizes, Upsample's scales, Range's bounds, OneHot's depth and Loop's trip count and
// condition.
bool reads_sizes(std::string_view op, int position) {
  if (op == "Resize") return position >= 1;
  if (op == "Upsample") return position == 1;
  if (op == "Range") return true;
  if (op == "OneHot") return position == 1;
  if (op == "Loop") return position <= 1;
  return false;
}

// Names read at a size-carrying position anywhere in `g`, bodies included (a body may read an
// outer input).
void collect_size_reads(const onnx::GraphProto& g, std::set<std::string>* names) {
  for (const onnx::NodeProto& node : g.node()) {
    if (normalize_domain(node.domain()).empty()) {
      for (int p = 0; p < node.input_size(); ++p) {
        if (!node.input(p).empty() && reads_sizes(node.op_type(), p)) names->insert(node.input(p));
      }
    }
    for (const onnx::AttributeProto& a : node.attribute()) {
      if (a.has_g()) collect_size_reads(a.g(), names);
      for (const onnx::GraphProto& body : a.graphs()) collect_size_reads(body, names);
    }
  }
}

// What a size is computed from counts as a size too: a function expanded into its body (Range's
// `_expanded` tests compute a Loop's trip count from Range's start, limit and delta by Sub, Div
// and Ceil) reads its sizes through nodes. Adds every name of the main graph that a node
// producing a size-carrying name reads, transitively.
void close_size_reads(const onnx::GraphProto& g, std::set<std::string>* names) {
  std::map<std::string, const onnx::NodeProto*> producer;
  for (const onnx::NodeProto& node : g.node()) {
    for (const std::string& out : node.output()) producer.emplace(out, &node);
  }
  std::vector<std::string> pending(names->begin(), names->end());
  while (!pending.empty()) {
    const std::string name = std::move(pending.back());
    pending.pop_back();
    const auto it = producer.find(name);
    if (it == producer.end()) continue;
    for (const std::string& in : it->second->input()) {
      if (!in.empty() && names->insert(in).second) pending.push_back(in);
    }
  }
}

void clear_shapes(onnx::TypeProto* type) {
  switch (type->value_case()) {
    case onnx::TypeProto::kTensorType:
      type->mutable_tensor_type()->clear_shape();
      break;
    case onnx::TypeProto::kSparseTensorType:
      type->mutable_sparse_tensor_type()->clear_shape();
      break;
    case onnx::TypeProto::kSequenceType:
      clear_shapes(type->mutable_sequence_type()->mutable_elem_type());
      break;
    case onnx::TypeProto::kOptionalType:
      clear_shapes(type->mutable_optional_type()->mutable_elem_type());
      break;
    case onnx::TypeProto::kMapType:
      clear_shapes(type->mutable_map_type()->mutable_value_type());
      break;
    default:
      break;
  }
}

// value_info is what a previous shape inference wrote; a user's model usually has none, and
// keeping it would let the "declared" fallback answer instead of the rules.
void clear_value_info(onnx::GraphProto* g) {
  g->clear_value_info();
  for (onnx::NodeProto& node : *g->mutable_node()) {
    for (onnx::AttributeProto& a : *node.mutable_attribute()) {
      if (a.has_g()) clear_value_info(a.mutable_g());
      for (onnx::GraphProto& body : *a.mutable_graphs()) clear_value_info(&body);
    }
  }
}

// Moves the folded inputs into initializers; returns the original index of every input kept.
std::vector<std::size_t> fold_inputs(const TestCase& c, onnx::GraphProto* g) {
  std::set<std::string> size_reads;
  collect_size_reads(*g, &size_reads);
  close_size_reads(*g, &size_reads);
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> kept_inputs;
  std::vector<std::size_t> kept;
  for (int i = 0; i < g->input_size(); ++i) {
    const onnx::ValueInfoProto& input = g->input(i);
    const std::optional<onnx::TensorProto>& value = c.inputs[static_cast<std::size_t>(i)];
    bool fold = false;
    if (value) {
      std::int64_t count = element_count(*value, kMaxFoldedElements);
      bool small = count >= 0;
      fold = small && (is_integer_type(value->data_type()) || size_reads.count(input.name()) > 0);
    }
    if (fold) {
      onnx::TensorProto* init = g->add_initializer();
      *init = *value;
      init->set_name(input.name());
    } else {
      *kept_inputs.Add() = input;
      kept.push_back(static_cast<std::size_t>(i));
    }
  }
  g->mutable_input()->Swap(&kept_inputs);
  return kept;
}

// Replaces every dim of the remaining data inputs by d0, d1, ... and records their test values.
void symbolize_inputs(const TestCase& c, const std::vector<std::size_t>& kept, onnx::GraphProto* g,
                      PreparedModel* out) {
  std::unordered_set<std::string> weights;  // IR < 4 lists initializers among the inputs too
  for (const onnx::TensorProto& t : g->initializer()) weights.insert(t.name());
  int next = 0;
  for (int k = 0; k < g->input_size(); ++k) {
    onnx::ValueInfoProto* input = g->mutable_input(k);
    if (weights.count(input->name()) > 0 || !input->type().has_tensor_type() ||
        !input->type().tensor_type().has_shape()) {
      continue;
    }
    onnx::TensorShapeProto* shape = input->mutable_type()->mutable_tensor_type()->mutable_shape();
    const std::optional<onnx::TensorProto>& value = c.inputs[kept[static_cast<std::size_t>(k)]];
    bool from_value = value && value->dims_size() == shape->dim_size();
    for (int d = 0; d < shape->dim_size(); ++d) {
      onnx::TensorShapeProto::Dimension* dim = shape->mutable_dim(d);
      std::optional<std::int64_t> original;
      if (from_value) {
        original = value->dims(d);
      } else if (dim->has_dim_value()) {
        original = dim->dim_value();
      }
      std::string name = "d" + std::to_string(next++);
      dim->set_dim_param(name);
      if (!original) continue;
      out->assignment[name] = *original;
      if (*original == 0) out->bounds[name] = Interval{0, kPosInf};
    }
  }
}

// ---- judging ------------------------------------------------------------------------------------

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  if (text.size() > kMaxReasonLength) text = text.substr(0, kMaxReasonLength) + "...";
  return text;
}

// A shape is resolved when its rank is known and every dim can be evaluated under `values`
// (for the concrete run `values` is empty, so every dim must be a number).
bool resolved(ExprPool& pool, const ValueShape& shape, const Assignment& values) {
  if (!shape.known_rank) return false;
  for (Expr d : shape.dims) {
    for (const std::string& s : pool.symbols_of(d)) {
      if (values.find(s) == values.end()) return false;
    }
  }
  return true;
}

std::string describe_op(const ComputeContext& ctx, NodeId n) {
  const NodeEntry& node = ctx.graph().node(n);
  std::string text(node.op_type);
  if (!node.domain.empty()) text = std::string(node.domain) + "." + text;
  return text + "-" + std::to_string(node.opset);
}

// The first node, in topological order, among those the output depends on, that produces an
// unresolved tensor: usually the operator whose rule is missing or too weak.
std::string find_culprit(const ComputeContext& ctx, ValueId output, const Assignment& values) {
  const GraphView& graph = ctx.graph();
  std::vector<bool> feeds(graph.nodes().size(), false);
  std::vector<ValueId> pending = {output};
  while (!pending.empty()) {
    ValueId v = pending.back();
    pending.pop_back();
    NodeId p = graph.value(v).producer;
    if (p == kInvalidId || graph.node(p).graph != 0 || feeds[p]) continue;
    feeds[p] = true;
    for (ValueId in : graph.node(p).inputs) {
      if (in != kNoValue) pending.push_back(in);
    }
    for (ValueId in : graph.node(p).captures) pending.push_back(in);
  }
  for (NodeId n : graph.main().nodes) {
    if (!feeds[n]) continue;
    for (ValueId v : graph.node(n).outputs) {
      if (v == kNoValue) continue;
      const ValueShape& s = ctx.shape(v);
      if (s.kind == ValueKind::kTensor && !resolved(ctx.pool(), s, values)) {
        return describe_op(ctx, n);
      }
    }
  }
  NodeId producer = graph.value(output).producer;
  return producer == kInvalidId ? "graph input" : describe_op(ctx, producer);
}

// Empty when the inferred dims match `expected`, else the reason.
std::string compare_dims(ExprPool& pool, const ValueShape& shape, const onnx::TensorProto& expected,
                         RunKind run, const Assignment& values) {
  if (!shape.known_rank) return "rank unknown";
  if (static_cast<int>(shape.dims.size()) != expected.dims_size()) {
    return "rank " + std::to_string(shape.dims.size()) + ", expected " +
           std::to_string(expected.dims_size());
  }
  for (std::size_t i = 0; i < shape.dims.size(); ++i) {
    Expr dim = shape.dims[i];
    std::int64_t want = expected.dims(static_cast<int>(i));
    std::string where = "dim " + std::to_string(i) + ": ";
    std::optional<std::int64_t> got = pool.as_int(dim);
    if (!got && run == RunKind::kSymbolic) {
      std::vector<std::string> missing;
      for (const std::string& s : pool.symbols_of(dim)) {
        if (values.find(s) == values.end()) missing.push_back(s);
      }
      if (!missing.empty()) {
        std::string list;
        for (const std::string& s : missing) list += (list.empty() ? "" : ", ") + s;
        return "not evaluable: " + list;
      }
      try {
        got = pool.eval(dim, values);
      } catch (const ExprError& e) {
        return where + "cannot evaluate " + pool.print(dim) + ": " + e.what();
      }
      if (*got != want) {
        return where + "got " + std::to_string(*got) + " (" + pool.print(dim) + "), expected " +
               std::to_string(want);
      }
      continue;
    }
    if (!got) return where + "got " + pool.print(dim) + ", expected " + std::to_string(want);
    if (*got != want) {
      return where + "got " + std::to_string(*got) + ", expected " + std::to_string(want);
    }
  }
  return {};
}

std::vector<OutputResult> counted_outputs(const TestCase& c, RunKind run) {
  std::vector<OutputResult> results;
  for (std::size_t i = 0; i < c.outputs.size(); ++i) {
    if (!c.outputs[i]) continue;
    OutputResult r;
    r.case_id = c.id;
    r.output = i;
    r.run = run;
    results.push_back(std::move(r));
  }
  return results;
}

void fail_all(std::vector<OutputResult>* results, const std::string& reason) {
  for (OutputResult& r : *results) {
    r.pass = false;
    r.reason = one_line(reason);
    r.op = "";
  }
}

void judge(const ComputeContext& ctx, const TestCase& c, const PreparedModel& prepared,
           std::vector<OutputResult>* results) {
  const GraphEntry& main = ctx.graph().main();
  for (OutputResult& r : *results) {
    if (r.output >= main.outputs.size()) {
      r.reason = "output missing from the analysed graph";
      continue;
    }
    ValueId v = main.outputs[r.output];
    r.reason =
        compare_dims(ctx.pool(), ctx.shape(v), *c.outputs[r.output], r.run, prepared.assignment);
    r.pass = r.reason.empty();
    if (!r.pass) r.op = find_culprit(ctx, v, prepared.assignment);
  }
}

}  // namespace

const char* run_name(RunKind run) { return run == RunKind::kConcrete ? "concrete" : "symbolic"; }

std::string OutputResult::key() const {
  return case_id + ":" + std::to_string(output) + ":" + run_name(run);
}

std::vector<std::string> list_cases(const fs::path& data_dir) {
  std::vector<std::string> ids;
  for (const char* suite : kSuites) {
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(data_dir / suite, ec)) {
      if (fs::exists(e.path() / "model.onnx")) {
        ids.push_back(std::string(suite) + "/" + e.path().filename().string());
      }
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

TestCase load_case(const fs::path& data_dir, const std::string& id) {
  TestCase c;
  c.id = id;
  fs::path dir = data_dir / id;
  try {
    c.model.emplace(Model::load(dir / "model.onnx"));
  } catch (const std::exception& e) {
    c.load_error = e.what();
    return c;
  }
  const onnx::GraphProto& g = c.model->proto().graph();
  fs::path set = dir / "test_data_set_0";
  // input_<i>.pb belongs to graph.input[i] (the backend runner's convention); only tensors are
  // read: sequence, optional and map values are other messages.
  for (int i = 0; i < g.input_size(); ++i) {
    bool tensor = g.input(i).type().has_tensor_type();
    c.inputs.push_back(tensor ? read_tensor(set / test_file("input", i)) : std::nullopt);
  }
  for (int i = 0; i < g.output_size(); ++i) {
    bool tensor = g.output(i).type().has_tensor_type();
    c.outputs.push_back(tensor ? read_tensor(set / test_file("output", i)) : std::nullopt);
  }
  return c;
}

PreparedModel prepare(const TestCase& c, RunKind run) {
  auto proto = std::make_unique<onnx::ModelProto>(c.model->proto());
  onnx::GraphProto* g = proto->mutable_graph();
  clear_value_info(g);
  for (onnx::ValueInfoProto& output : *g->mutable_output()) clear_shapes(output.mutable_type());
  std::vector<std::size_t> kept = fold_inputs(c, g);
  PreparedModel prepared{Model::adopt(std::move(proto), c.id), {}, {}};
  if (run == RunKind::kSymbolic) {
    symbolize_inputs(c, kept, prepared.model.proto().mutable_graph(), &prepared);
  }
  return prepared;
}

std::vector<OutputResult> run_case(const Host& host, const TestCase& c, RunKind run) {
  std::vector<OutputResult> results = counted_outputs(c, run);
  if (!c.model) {
    // Nothing is known about the outputs; one entry keeps the failure visible.
    OutputResult r;
    r.case_id = c.id;
    r.run = run;
    r.reason = one_line("exception: " + c.load_error);
    return {r};
  }
  if (results.empty()) return results;
  try {
    PreparedModel prepared = prepare(c, run);
    Profile options = host.profile();
    for (const auto& [name, bounds] : prepared.bounds) options.symbols[name] = bounds;
    ComputeContext ctx(host.registry(), std::move(options));
    ctx.compute(prepared.model);
    judge(ctx, c, prepared, &results);
  } catch (const std::exception& e) {
    fail_all(&results, std::string("exception: ") + e.what());
  } catch (...) {
    fail_all(&results, "exception: (not a std::exception)");
  }
  return results;
}

Report run_all(const Host& host, const fs::path& data_dir,
               const std::function<void(const std::string&)>& before_case) {
  Report report;
  for (const std::string& id : list_cases(data_dir)) {
    if (before_case) before_case(id);
    auto start = std::chrono::steady_clock::now();
    TestCase c = load_case(data_dir, id);
    bool counted = false;
    for (RunKind run : {RunKind::kConcrete, RunKind::kSymbolic}) {
      Tally& tally = run == RunKind::kConcrete ? report.concrete : report.symbolic;
      for (OutputResult& r : run_case(host, c, run)) {
        ++tally.total;
        if (r.pass) ++tally.passed;
        counted = true;
        report.results.push_back(std::move(r));
      }
    }
    if (counted) ++report.models;
    std::chrono::duration<double> spent = std::chrono::steady_clock::now() - start;
    report.slowest.emplace_back(id, spent.count());
  }
  std::sort(report.slowest.begin(), report.slowest.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  return report;
}

}  // namespace cctx::conformance
