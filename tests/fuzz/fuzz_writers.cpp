// libFuzzer target: random names (any bytes) through every output format. The input is cut into
// names (each piece's first byte says how long it is); they name the graph, its values and nodes,
// a dim_param, and the type and domain of an operator no plugin knows. The model is analysed and
// every writer runs: the JSON report must parse, the SVG figures parse as XML, the HTML page
// holds only XML 1.0 characters with its embedded data valid JSON, the CSV has its columns and
// no formula, and every terminal text (tables, listing, explain, diff, warnings) has no control
// byte. A failed check aborts, so the fuzzer keeps the input (tests/support/output_checks.hpp).
#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cctx/compute_context.hpp"
#include "cctx/errors.hpp"
#include "cctx/expr.hpp"
#include "cctx/host.hpp"
#include "cctx/model.hpp"
#include "cctx/report.hpp"
#include "cctx/safe_text.hpp"
#include "output_checks.hpp"

namespace {

cctx::Host& host() {
  static cctx::Host* instance = [] {
    cctx::Profile profile;
    cctx::PluginSpec spec;
    spec.name = "onnx";
    profile.plugins.push_back(spec);
    return new cctx::Host(profile, {CCTX_FUZZ_PLUGIN_DIR});
  }();
  return *instance;
}

/// Names cut from the input, never empty; past its end, short fixed names (so every slot has one).
class Names {
 public:
  explicit Names(std::string_view bytes) : bytes_(bytes) {}
  std::string next() {
    ++count_;
    if (bytes_.empty()) return "v" + std::to_string(count_);
    const std::size_t length = static_cast<unsigned char>(bytes_[0]) % 24;
    bytes_.remove_prefix(1);
    std::string name(bytes_.substr(0, length));
    bytes_.remove_prefix(std::min(length, bytes_.size()));
    // An empty name is refused (or means "absent") wherever it goes: not what is fuzzed here.
    return name.empty() ? "e" + std::to_string(count_) : name;
  }

 private:
  std::string_view bytes_;
  int count_ = 0;
};

void add_value(onnx::ValueInfoProto* v, const std::string& name, const std::string& dim_param) {
  v->set_name(name);
  auto* tensor = v->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  tensor->mutable_shape()->add_dim()->set_dim_param("N");
  tensor->mutable_shape()->add_dim()->set_dim_param(dim_param);
}

[[noreturn]] void fail(const char* output, const std::string& problem) {
  std::fprintf(stderr, "fuzz_writers: %s: %s\n", output, problem.c_str());
  std::abort();
}

void check(const char* output, const std::string& problem) {
  if (!problem.empty()) fail(output, problem);
}

/// X -> Relu -> Abs -> <unknown op> -> Neg -> Y, every name from the input. Distinct value
/// names are needed for a valid graph: a clash makes the input uninteresting, not a failure.
onnx::ModelProto hostile_model(Names& names) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(18);
  const std::string domain = "x." + names.next();
  auto* custom = m.add_opset_import();
  custom->set_domain(domain);
  custom->set_version(1);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name(names.next());
  const std::string dim_param = names.next();
  std::vector<std::string> values;
  for (int k = 0; k < 5; ++k) values.push_back(names.next());
  add_value(g->add_input(), values[0], dim_param);
  const char* ops[] = {"Relu", "Abs", nullptr, "Neg"};
  for (int k = 0; k < 4; ++k) {
    onnx::NodeProto* n = g->add_node();
    n->set_name(names.next());
    if (ops[k] != nullptr) {
      n->set_op_type(ops[k]);
    } else {
      n->set_op_type("U" + names.next());
      n->set_domain(domain);
    }
    n->add_input(values[k]);
    n->add_output(values[k + 1]);
  }
  add_value(g->add_output(), values[4], dim_param);
  return m;
}

void check_terminal(const char* output, const std::string& text) {
  check(output, cctx::test::terminal_problem(text));
}

void write_everything(const cctx::ComputeContext& ctx, const cctx::Model& model,
                      const cctx::Assignment& assignment) {
  using namespace cctx;
  const ReportOptions options{"fuzz.onnx", {assignment}, {}};
  std::string json;
  JsonReportWriter(ctx, options).write([&](std::string_view piece) { json += piece; });
  check("json", test::json_problem(json));
  check("shapes json", test::json_problem(safe_text::json(shapes_json(ctx, options), 2)));
  check("csv", test::csv_problem(csv_report(ctx, options), 14));
  check("html", test::html_problem(html_report(ctx, HtmlReportOptions{options, {}})));
  check("total bytes svg", test::xml_problem(total_bytes_svg(ctx, {assignment})));
  check("memory stack svg", test::xml_problem(memory_stack_svg(ctx, assignment)));
  check_terminal("memory table", memory_table(ctx));
  check_terminal("scratch", scratch_listing(ctx));
  check_terminal("evaluated totals", evaluated_totals_table(ctx, {assignment}));
  check_terminal("peak", peak_summary(ctx, {assignment}));
  check_terminal("warnings", diagnostics_text(ctx));
  check_terminal("shapes table", shapes_table(ctx));
  check_terminal("listing", model_listing(model));
  check_terminal("print listing", model_listing(model, ListingStyle::kFull));
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    const auto explanation = explain_node(ctx, n, {assignment});
    check("explain json", test::json_problem(safe_text::json(explanation, 2)));
    check_terminal("explain", explain_text(explanation));
  }
  // A diff reads reports, where a symbol whose name is not UTF-8 is spelled with U+FFFD: the
  // assignment cannot name it any more, which diff reports as an error (not a writer's failure).
  try {
    const DiffSide side{"fuzz.onnx", nlohmann::json::parse(json)};
    check_terminal("diff", diff_text(diff_reports(side, side, {assignment})));
  } catch (const Error&) {
  } catch (const ExprError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Names names(std::string_view(reinterpret_cast<const char*>(data), size));
  onnx::ModelProto proto = hostile_model(names);
  try {
    cctx::Model model = cctx::Model::parse(proto.SerializeAsString(), "fuzz.onnx");
    cctx::ComputeContext ctx(host());
    ctx.compute(model);
    cctx::Assignment assignment;
    for (const cctx::SymbolInfo& s : ctx.pool().symbols()) assignment[s.name] = 3;
    write_everything(ctx, model, assignment);
  } catch (const cctx::Error&) {
    // A name clash, an empty op type: a refused model, not a writer's failure.
  } catch (const cctx::ExprError&) {
  }
  return 0;
}
