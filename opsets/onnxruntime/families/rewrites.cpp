// ONNX Runtime's graph optimisations as graph rewrites (docs/design/rewrites.md), by level as
// its session option graph_optimization_level selects them (core/optimizer/
// graph_transformer_utils.cc): what a session really runs is what cctx plans. Only what changes
// memory is written here: eliminations and fusions that remove values or let an output take an
// input's buffer. Each rule carries the name of the ONNX Runtime transformer it stands for.
//
// Checked against the graphs ONNX Runtime 1.32 saves (session option optimized_model_filepath)
// by tests/validate/ort_rewrites_check.py.
#include <string>

#include "families.hpp"

namespace cctx::opsets::onnxruntime {

namespace {

// The unary activations ONNX Runtime fuses into a Conv (FusedConv's `activation`); Clip with
// constant bounds as inputs (opset >= 11) or attributes.
constexpr const char* kActivations = "Relu|Sigmoid|Tanh|LeakyRelu|HardSigmoid|Clip";

void register_basic(Registration& reg) {
  // IdentityElimination, EliminateDropout: readers read the input (kept when the output is a
  // graph output or read inside a body).
  reg.rewrite("IdentityElimination", "y = Identity(x)", "y = x");
  reg.rewrite("EliminateDropout", "y, _ = Dropout(x, *r)", "y = x");
  // ConvBNFusion, ConvMulFusion, ConvAddFusion: the constants fold into the Conv's weights and
  // bias; the Conv's output takes the last node's name.
  reg.rewrite("ConvBNFusion",
              "c = Conv(x, const w, ?const b)\n"
              "y = BatchNormalization(c, const s, const t, const m, const v)",
              "y = Conv(x, w, ?b) [c]");
  reg.rewrite("ConvMulFusion", "c = Conv(x, const w, ?const b); y = Mul(c, const s)",
              "y = Conv(x, w, ?b) [c]");
  reg.rewrite("ConvAddFusion", "c = Conv(x, const w, ?const b); y = Add(c, const s)",
              "y = Conv(x, w, ?b) [c]");
}

void register_extended(Registration& reg) {
  reg.rewrite("ConvActivationFusion",
              (std::string("c = Conv(x, w, ?b); y = ") + kActivations + "(c, ?const lo, ?const hi)")
                  .c_str(),
              "y = com.microsoft:FusedConv(x, w, ?b) [c, activation=@y]");
  // GeluFusion (x * 0.5 * (1 + erf(x / sqrt 2)), as exporters spell it), then BiasGeluFusion.
  reg.rewrite("GeluFusion",
              "d = Div(x, const k); e = Erf(d); a = Add(e, const one); m = Mul(x, a)\n"
              "y = Mul(m, const half)",
              "y = com.microsoft:Gelu(x)");
  reg.rewrite("BiasGeluFusion", "b = Add(x, const bias); y = com.microsoft:Gelu(b)",
              "y = com.microsoft:BiasGelu(x, bias)");
  // QuickGeluFusion: x * sigmoid(x) (SiLU, Swish) in one kernel.
  reg.rewrite("QuickGeluFusion", "s = Sigmoid(x); y = Mul(x, s)", "y = com.microsoft:QuickGelu(x)");
  // MatMulScaleFusion: a MatMul's output scaled by a constant scalar, one kernel.
  reg.rewrite("MatMulScaleFusion", "m = MatMul(a, b); y = Div|Mul(m, const s{scalar})",
              "y = com.microsoft:FusedMatMul(a, b)");
  // LayerNormFusion: mean, centred, variance, normalised, scaled and shifted in one kernel.
  reg.rewrite("LayerNormFusion",
              "m = ReduceMean(x, *ma); d = Sub(x, m); p = Pow(d, const two)\n"
              "v = ReduceMean(p, *va); a = Add(v, const eps); r = Sqrt(a); n = Div(d, r)\n"
              "g = Mul(n, const gamma); y = Add(g, const beta)",
              "y = LayerNormalization(x, gamma, beta)");
}

void register_all_level(Registration& reg, const std::string& block) {
  // NchwcTransformer: a Conv whose output channels are a multiple of the NCHWc block runs as an
  // NCHWc kernel (com.microsoft.nchwc:Conv), which adds a residual ("Sum", written in place)
  // and applies the activation itself; the blocked layout changes no size when the channels are
  // aligned. The residual fusions first, then every aligned Conv and FusedConv.
  const std::string w = "const w{d0%" + block + "}";
  const std::string conv = "c = Conv(x, " + w + ", ?b); ";
  reg.rewrite("NchwcConvAddActivationFusion",
              (conv + "a = Add(c, s); y = " + kActivations + "(a, ?const lo, ?const hi)").c_str(),
              "y = com.microsoft.nchwc:Conv(x, w, ?b, s) [c, activation=@y]");
  reg.rewrite("NchwcConvAddFusion", (conv + "y = Add(c, s)").c_str(),
              "y = com.microsoft.nchwc:Conv(x, w, ?b, s) [c]");
  reg.rewrite("NchwcFusedConv", ("y = com.microsoft:FusedConv(x, " + w + ", *r)").c_str(),
              "y = com.microsoft.nchwc:Conv(x, w, *r) [y]");
  reg.rewrite("NchwcConv", ("y = Conv(x, " + w + ", *r)").c_str(),
              "y = com.microsoft.nchwc:Conv(x, w, *r) [y]");
}

}  // namespace

sdk::Status register_rewrites(sdk::IRegistrar& r) {
  using sdk::Status;
  using sdk::StringRef;
  StringRef level("disabled");
  StringRef block("16");
  r.accept_option("graph_optimization",
                  "disabled (default), basic, extended or all: the session option "
                  "graph_optimization_level whose rewrites the analysed graph gets");
  r.accept_option("nchwc_block",
                  "16 (default, AVX-512) or 8 (AVX2): channels per NCHWc block, level all");
  r.option("graph_optimization", &level);
  r.option("nchwc_block", &block);
  const std::string level_text(level.data, level.size);
  const std::string block_text(block.data, block.size);
  int rank = -1;
  const char* levels[] = {"disabled", "basic", "extended", "all"};
  for (int k = 0; k < 4; ++k) {
    if (level_text == levels[k]) rank = k;
  }
  if (rank < 0) {
    return r.fail(Status::kInvalidArgument,
                  "option 'graph_optimization' must be disabled, basic, extended or all");
  }
  if (block_text != "8" && block_text != "16") {
    return r.fail(Status::kInvalidArgument, "option 'nchwc_block' must be 8 or 16");
  }
  if (rank == 0) return Status::kOk;
  // FusedConv and the NCHWc Conv write their output into the Sum input's buffer when the
  // planner allows it (contrib_ops/cpu/fused_conv.cc, nchwc_ops.cc: MayInplace(3, 0)); FusedConv
  // is a Conv and takes its working buffer, the NCHWc kernels take none.
  static constexpr sdk::kit::FnInplacePolicy kSumInPlace{
      [](const sdk::INodeView&, sdk::IInplaceSink& out) { return out.may_reuse(3, 0); }};
  Registration reg = sdk::kit::register_domain(r, "com.microsoft", 1, 1);
  reg.inplace("FusedConv", 1, kSumInPlace);
  reg.scratch("FusedConv", 1, conv_scratch_estimator());
  Registration nchwc = sdk::kit::register_domain(r, "com.microsoft.nchwc", 1, 1);
  nchwc.inplace("Conv", 1, kSumInPlace);
  if (!nchwc.ok()) return nchwc.status();
  Registration onnx(r, "");
  register_basic(onnx);
  if (rank >= 2) register_extended(onnx);
  if (rank >= 3) register_all_level(onnx, block_text);
  if (!onnx.ok()) return onnx.status();
  return reg.status();
}

}  // namespace cctx::opsets::onnxruntime
