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
#include "rewrite_passes.hpp"

namespace cctx::opsets::onnxruntime {

namespace {

// The unary activations ONNX Runtime fuses into a Conv (FusedConv's `activation`); Clip with
// constant bounds as inputs (opset >= 11) or attributes.
constexpr const char* kActivations = "Relu|Sigmoid|Tanh|LeakyRelu|HardSigmoid|HardSwish|Clip";

// Function inlining: an operator with no CPU kernel runs as its ONNX function body, inlined when
// the session resolves its graph, whatever the optimisation level. HardSwish (14) is one: saved
// graphs of MobileNetV3 show 28 HardSigmoid and 28 Mul for its 28 HardSwish at levels disabled
// and basic. Its temporary is then a planned value, inside the memory pattern's block, not
// kernel scratch. (At level all the NCHWc Conv takes the pair as its activation: that level's
// rules fuse a HardSwish after a Conv first, and inline the others in a later pass.)
void register_function_inlining(Registration& reg, RewritePass pass = kBasic) {
  reg.rewrite("FunctionInlining(HardSwish)", "y = HardSwish(x)",
              "t = HardSigmoid(x) [alpha=0.1666666716337204, beta=0.5]; y = Mul(x, t)", pass);
}

// CastElimination: a Cast to the type its input already has goes; its readers read the input.
// Where the types ONNX Runtime sees do not say (a Cast of a value a rewrite made), it is stated
// as an alias instead, once cctx's shapes and types are known: the output is the input's buffer
// (no bytes of its own, as when the node is gone). PyTorch's exports hold dozens (shape
// arithmetic in int64 cast to int64, float to float).
constexpr sdk::kit::FnInplacePolicy kCastToItsOwnType{
    [](const sdk::INodeView& node, sdk::IInplaceSink& out) {
      std::int64_t to = 0;
      if (!node.attr_int(sdk::StringRef::from_c_str("to"), &to) || node.input_count() < 1) {
        return sdk::Status::kOk;
      }
      const std::int32_t from = node.input_dtype(0);
      return from > 0 && from == to ? out.alias(0, 0) : sdk::Status::kOk;
    }};

void register_basic(Registration& reg) {
  // CastElimination: removed where the input's type is known before the rewrites (a constant's,
  // or ONNX's inference over the model, as ONNX Runtime resolves it); the alias above covers
  // the rest once cctx's own inference has typed them (a Cast of a fused node's output).
  reg.rewrite("CastElimination", "builtin:same_type_casts", "", kBasic);
  reg.inplace("Cast", 1, kCastToItsOwnType);
  // IdentityElimination, EliminateDropout: readers read the input (kept when the output is a
  // graph output or read inside a body).
  reg.rewrite("IdentityElimination", "y = Identity(x)", "y = x", kBasic);
  // ... and when its output is a graph output, the input's producer writes it directly.
  reg.rewrite("IdentityEliminationAtGraphOutput", "y = Identity(x)", "y <- x", kBasic);
  reg.rewrite("EliminateDropout", "y, _ = Dropout(x, *r)", "y = x", kBasic);
  // NoopElimination: x+0, 0+x, x-0, x*1, 1*x and x/1 with a one-element constant go, when x's
  // rank (ONNX Runtime's inference) is at least the constant's: broadcasting then changes
  // nothing.
  for (const auto& [op, identity] : {std::pair{"Add", "0"}, std::pair{"Sub", "0"},
                                     std::pair{"Mul", "1"}, std::pair{"Div", "1"}}) {
    for (const int constant_rank : {0, 1}) {
      std::string ranks;
      for (int r = constant_rank; r <= 8; ++r)
        ranks += (ranks.empty() ? "rank=" : "|rank=") + std::to_string(r);
      reg.rewrite(
          (std::string("NoopElimination(") + op + (constant_rank == 0 ? ", scalar)" : ", 1-D)"))
              .c_str(),
          (std::string("y = ") + op + "(x{" + ranks +
           "}, const k{rank=" + std::to_string(constant_rank) + ", value=" + identity + "})")
              .c_str(),
          "y = x", kBasic);
    }
  }
  // MatMulAddFusion: a MatMul of 2-D inputs whose output only an Add of a bias reads, as one
  // Gemm (one output instead of two); a bias of shape (N) or (1, N). (ONNX Runtime also fuses an
  // input of concrete higher rank through Reshapes, which needs new constants: not here.)
  for (const auto& [name, bias] : {std::pair{"MatMulAddFusion", "c{rank=1}"},
                                   std::pair{"MatMulAddFusion(1xN)", "c{rank=2, d0=1}"}}) {
    reg.rewrite(name,
                (std::string("m = MatMul(a{rank=2}, b{rank=2}); y = Add(m, ") + bias + ")").c_str(),
                "y = Gemm(a, b, c)", kBasic);
  }
  // PadFusion, of a Pad that pads nothing (PyTorch exports one before an AveragePool): the
  // pool or Conv reads the Pad's input, and the copy is never made.
  for (const char* op : {"Conv", "AveragePool", "MaxPool"}) {
    reg.rewrite((std::string("PadFusion(") + op + ")").c_str(),
                (std::string("p = Pad(x, const pads{zeros}, *v); y = ") + op + "(p, *r)").c_str(),
                (std::string("y = ") + op + "(x, *r) [y]").c_str(), kBasic);
  }
  // NotWhereFusion: Where(Not(c), a, b) is Where(c, b, a); the Not goes.
  reg.rewrite("NotWhereFusion", "n = Not(c); y = Where(n, a, b)", "y = Where(c, b, a)", kBasic);
  // CommonSubexpressionElimination: a node equal to an earlier one (operator, inputs,
  // attributes) goes, its readers read the earlier one's outputs; an exporter's repeated
  // Shape/Gather/Unsqueeze chains collapse (the framework's builtin; docs/design/rewrites.md).
  reg.rewrite("CommonSubexpressionElimination", "builtin:common_subexpressions", "", kBasic);
  // TransposeOptimizer (its Shape handler): the shape of a Transpose is the input's shape
  // gathered by the permutation, when nothing else reads the Transpose, which goes (with
  // other readers, ONNX Runtime 1.30 leaves both: a transformer encoder's graph as it saves it).
  reg.rewrite("TransposeOptimizer(Shape)", "t = Transpose{perm}(x); s = Shape{!start, !end}(t)",
              "d = Shape(x); p = Constant() [value=tensor(t.perm)]; s = Gather(d, p) [axis=0]",
              kBasic);
  // ReshapeFusion: a Reshape whose shape a Concat assembles from constants, its input's own dims
  // and one element more reads one constant shape.
  reg.rewrite("ReshapeFusion", "builtin:constant_reshape_shapes", "", kBasic);
  // ConvBNFusion, ConvMulFusion, ConvAddFusion: the constants fold into the Conv's weights and
  // bias; the Conv's output takes the last node's name.
  reg.rewrite("ConvBNFusion",
              "c = Conv(x, const w, ?const b)\n"
              "y = BatchNormalization(c, const s, const t, const m, const v)",
              "y = Conv(x, w, ?b) [c]", kBasic);
  // (The constant second: ONNX Runtime tests the Mul's or Add's input 1.)
  reg.rewrite("ConvMulFusion", "c = Conv(x, const w, ?const b); y = Mul{ordered}(c, const s)",
              "y = Conv(x, w, ?b) [c]", kBasic);
  reg.rewrite("ConvAddFusion", "c = Conv(x, const w, ?const b); y = Add{ordered}(c, const s)",
              "y = Conv(x, w, ?b) [c]", kBasic);
}

// What onnxruntime.quantization.quantize_dynamic writes for a MatMul (x quantized at every run,
// W int8 or uint8), as ONNX Runtime fuses it: MatMulIntegerToFloatFusion (MatMulInteger, the Cast
// of its int32 product to float, the Mul by the product of the two scales and a bias Add of a
// 1-D constant, one kernel), then DynamicQuantizeMatMulFusion (the DynamicQuantizeLinear in
// front, whose three outputs only that kernel reads). The bias form first, in a pass of its own:
// rules go node by node, and the Mul before the Add would otherwise fuse alone. (ONNX Runtime
// 1.30 leaves a fusion whose Add makes a graph output alone, a ViT's classifier; the form without
// the bias still fuses it here, one int32 and one float value of [batch, classes] fewer.)
void register_dynamic_quantization(Registration& reg) {
  constexpr const char* kProduct =
      "m = MatMulInteger(a, b, ?az, ?bz); c = Cast{to=1}(m); k = Mul{ordered}(as, bs)\n"
      "y = Mul(c, k)";
  constexpr const char* kDynamicQuantizeMatMul =
      "q, s, z = DynamicQuantizeLinear(x)\n"
      "y = com.microsoft:MatMulIntegerToFloat(q, b, s, bs, z, ?bz, ?bias)";
  constexpr const char* kFused = "y = com.microsoft:DynamicQuantizeMatMul(x, b, bs, ?bz, ?bias)";
  reg.rewrite("MatMulIntegerToFloatFusion(bias)",
              (std::string(kProduct) + "; o = Add(y, const bias{rank=1, d0>1})").c_str(),
              "o = com.microsoft:MatMulIntegerToFloat(a, b, as, bs, ?az, ?bz, bias)", kQdqSelect);
  reg.rewrite("DynamicQuantizeMatMulFusion(bias)", kDynamicQuantizeMatMul, kFused, kQdqSelect);
  reg.rewrite("MatMulIntegerToFloatFusion", kProduct,
              "y = com.microsoft:MatMulIntegerToFloat(a, b, as, bs, ?az, ?bz)", kExtended);
  reg.rewrite("DynamicQuantizeMatMulFusion", kDynamicQuantizeMatMul, kFused, kExtended);
}

void register_extended(Registration& reg) {
  register_dynamic_quantization(reg);
  reg.rewrite("ConvActivationFusion",
              (std::string("c = Conv(x, w, ?b); y = ") + kActivations + "(c, ?const lo, ?const hi)")
                  .c_str(),
              "y = com.microsoft:FusedConv(x, w, ?b) [c, activation=@y]", kExtended);
  // GemmActivationFusion: Gemm + activation as FusedGemm (its output is the activation's).
  reg.rewrite("GemmActivationFusion",
              "g = Gemm(*i); y = Relu|Sigmoid|Tanh|LeakyRelu|HardSigmoid|Elu|Selu|Softsign(g)",
              "y = com.microsoft:FusedGemm(*i) [g, activation=@y]", kExtended);
  // GeluFusion (x * 0.5 * (1 + erf(x / sqrt 2)), as exporters spell it), then BiasGeluFusion.
  reg.rewrite("GeluFusion",
              "d = Div(x, const k); e = Erf(d); a = Add(e, const one); m = Mul(x, a)\n"
              "y = Mul(m, const half)",
              "y = com.microsoft:Gelu(x)", kExtended);
  reg.rewrite("BiasGeluFusion", "b = Add(x, const bias); y = com.microsoft:Gelu(b)",
              "y = com.microsoft:BiasGelu(x, bias)", kExtended);
  // QuickGeluFusion: x * sigmoid(x) (SiLU, Swish) in one kernel.
  reg.rewrite("QuickGeluFusion", "s = Sigmoid(x); y = Mul(x, s)", "y = com.microsoft:QuickGelu(x)",
              kExtended);
  // MatMulScaleFusion: a MatMul's output scaled by a constant scalar, one kernel.
  reg.rewrite("MatMulScaleFusion", "m = MatMul(a, b); y = Div|Mul(m, const s{scalar})",
              "y = com.microsoft:FusedMatMul(a, b)", kExtended);
  // ... or an input scaled by one (the query before Q·K^T: one product fewer).
  reg.rewrite("MatMulScaleFusion(A)", "s = Div|Mul(a, const k{scalar}); y = MatMul(s, b)",
              "y = com.microsoft:FusedMatMul(a, b)", kExtended);
  reg.rewrite("MatMulScaleFusion(B)", "s = Div|Mul(b, const k{scalar}); y = MatMul(a, s)",
              "y = com.microsoft:FusedMatMul(a, b)", kExtended);
  // ... and of a FusedMatMul the transpose fusion below made first (its flags kept).
  reg.rewrite("MatMulScaleFusion(FusedMatMul)",
              "m = com.microsoft:FusedMatMul(a, b); y = Div|Mul(m, const s{scalar})",
              "y = com.microsoft:FusedMatMul(a, b) [m]", kExtended);
  // MatmulTransposeFusion: a Transpose of the last two dims read by a MatMul (or a FusedMatMul
  // without that flag) becomes the MatMul's transA/transB: the transposed copy is never made
  // (an attention's K^T: B x heads x head_size x keys floats per layer). Ranks 2 to 6.
  struct Fusion {
    const char* name;
    const char* reads;  ///< the reader of the transposed `t`
    const char* becomes;
  };
  static constexpr Fusion kFusions[] = {
      {"(B)", "y = MatMul(a, t)", "y = com.microsoft:FusedMatMul(a, x) [transB=1]"},
      {"(A)", "y = MatMul(t, b)", "y = com.microsoft:FusedMatMul(x, b) [transA=1]"},
      {"(FusedMatMul B)", "y = com.microsoft:FusedMatMul{!transB}(a, t)",
       "y = com.microsoft:FusedMatMul(a, x) [y, transB=1]"},
      {"(FusedMatMul A)", "y = com.microsoft:FusedMatMul{!transA}(t, b)",
       "y = com.microsoft:FusedMatMul(x, b) [y, transA=1]"}};
  for (int rank = 2; rank <= 6; ++rank) {
    std::string perm = "[";
    for (int d = 0; d < rank - 2; ++d) perm += std::to_string(d) + ",";
    perm += std::to_string(rank - 1) + "," + std::to_string(rank - 2) + "]";
    const std::string transpose = "t = Transpose{perm=" + perm + "}(x); ";
    for (const Fusion& f : kFusions) {
      reg.rewrite(
          (std::string("MatmulTransposeFusion") + f.name + " (rank " + std::to_string(rank) + ")")
              .c_str(),
          (transpose + f.reads).c_str(), f.becomes, kExtended);
    }
  }
  // ... and a Transpose that moves dim 0 behind the batch dims (`perm` 1, ..., R-2, then 0 and
  // and 0 with the last two swapped too) as transBatchA/B: an attention's heads
  // transposes of a sequence-first layout. ONNX Runtime takes it only when both inputs have the
  // same rank, which the other input's rank test says (its inference's rank).
  struct BatchFusion {
    const char* name;
    const char* reads;  ///< the reader of `t`; RANK is the other input's
    const char* becomes;
    const char* flags;  ///< what the transpose sets: transBatch, then trans when TRANS
  };
  static constexpr BatchFusion kBatchFusions[] = {
      {"(B)", "y = MatMul(a{rank=RANK}, t)", "y = com.microsoft:FusedMatMul(a, x) [", "B"},
      {"(A)", "y = MatMul(t, b{rank=RANK})", "y = com.microsoft:FusedMatMul(x, b) [", "A"},
      {"(FusedMatMul B)", "y = com.microsoft:FusedMatMul{!transBatchB, !transB}(a{rank=RANK}, t)",
       "y = com.microsoft:FusedMatMul(a, x) [y, ", "B"},
      {"(FusedMatMul A)", "y = com.microsoft:FusedMatMul{!transBatchA, !transA}(t, b{rank=RANK})",
       "y = com.microsoft:FusedMatMul(x, b) [y, ", "A"}};
  for (int rank = 3; rank <= 6; ++rank) {
    for (const bool trans : {false, true}) {
      std::string perm = "[";
      for (int d = 1; d <= rank - 2; ++d) perm += std::to_string(d) + ",";
      perm += trans ? std::to_string(rank - 1) + ",0]" : "0," + std::to_string(rank - 1) + "]";
      for (const BatchFusion& f : kBatchFusions) {
        std::string reads = f.reads;
        reads.replace(reads.find("RANK"), 4, std::to_string(rank));
        std::string becomes = std::string(f.becomes) + "transBatch" + f.flags + "=1";
        if (trans) becomes += std::string(", trans") + f.flags + "=1";
        becomes += "]";
        reg.rewrite(
            (std::string("MatmulTransposeFusion") + (trans ? "(batch, trans) " : "(batch) ") +
             f.name + " (rank " + std::to_string(rank) + ")")
                .c_str(),
            ("t = Transpose{perm=" + perm + "}(x); " + reads).c_str(), becomes.c_str(), kExtended);
      }
    }
  }
  // SimplifiedLayerNormFusion: RMSNorm spelled out (x / sqrt(mean(x^2) + eps) * gamma) as
  // SimplifiedLayerNormalization, which ONNX Runtime registers in the ONNX domain. As PyTorch
  // exports Llama's RMSNorm: a Cast to float on each side (the first kept: it is no copy only
  // when x is float already, which the rewrite cannot see; the second casts a float to float),
  // and 1 / sqrt(...) multiplied in; or as the division x / sqrt(...).
  constexpr const char* kMeanSquare =
      "p = Pow(c, const two); m = ReduceMean(p, *ma); a = Add(m, const eps); s = Sqrt(a)\n";
  reg.rewrite("SimplifiedLayerNormFusion(Cast)",
              (std::string("keep c = Cast{to=1}(x)\n") + kMeanSquare +
               "d = Div(const one, s); n = Mul(c, d); k = Cast{to=1}(n); y = Mul(k, const gamma)")
                  .c_str(),
              "y = SimplifiedLayerNormalization(c, gamma)", kExtended);
  // (Not after a Sub: that is LayerNorm's centred input, LayerNormFusion's.)
  constexpr const char* kNotCentred = "not c = Sub(*z)\n";
  reg.rewrite("SimplifiedLayerNormFusion(Reciprocal)",
              (std::string(kNotCentred) + kMeanSquare +
               "d = Div(const one, s); n = Mul(c, d); y = Mul(n, const gamma)")
                  .c_str(),
              "y = SimplifiedLayerNormalization(c, gamma)", kExtended);
  reg.rewrite(
      "SimplifiedLayerNormFusion",
      (std::string(kNotCentred) + kMeanSquare + "n = Div(c, s); y = Mul(n, const gamma)").c_str(),
      "y = SimplifiedLayerNormalization(c, gamma)", kExtended);
  // SkipLayerNormFusion: a residual Add (of two rank-3 values of the same dims, as ONNX
  // Runtime's inference sees them) read only by a LayerNormalization,
  // both as one kernel; with a bias Add of a 1-D constant in front of either input, that too.
  // (After LayerNormFusion, in the same pass: a spelled-out norm fuses first.)
  reg.rewrite("SkipLayerNormFusion(bias)",
              "a2 = Add(s1{rank=3}, const c{rank=1}); a1 = Add(a2{like=s2}, s2)\n"
              "y = LayerNormalization(a1, g, ?b)",
              "y = com.microsoft:SkipLayerNormalization(s1, s2, g, ?b, c) [y]", kExtended);
  reg.rewrite("SkipLayerNormFusion",
              "a = Add(s1{rank=3, like=s2}, s2); y = LayerNormalization(a, g, ?b)",
              "y = com.microsoft:SkipLayerNormalization(s1, s2, g, ?b) [y]", kExtended);
  // LayerNormFusion: mean, centred, variance, normalised, scaled and shifted in one kernel.
  reg.rewrite("LayerNormFusion",
              "m = ReduceMean(x, *ma); d = Sub(x, m); p = Pow(d, const two)\n"
              "v = ReduceMean(p, *va); a = Add(v, const eps); r = Sqrt(a); n = Div(d, r)\n"
              "g = Mul(n, const gamma); y = Add(g, const beta)",
              "y = LayerNormalization(x, gamma, beta)", kExtended);
}

void register_all_level(Registration& reg, const std::string& block) {
  // NchwcTransformer (core/optimizer/nchwc_transformer.cc), in its order. A Conv with constant
  // weights runs as the NCHWc kernel when, one group, its input channels are a multiple of 4
  // (at least one block) or fewer than one block (read as NCHW), or it is depthwise over a
  // multiple of 4 channels; otherwise a blocked input is read through ReorderOutput. Its output
  // channels are padded up to whole blocks (`nchwc_block`). Checked against the
  // graphs ONNX Runtime 1.32 saves on this (AVX-512, block 16) machine.
  const std::string padded = "[y, nchwc_block=" + block + "]";
  // The values on the blocked layout. Where every input is blocked, ONNX Runtime keeps some
  // ai.onnx operators on it (TransformActivation, TransformConcat, TransformBinary): no
  // ReorderOutput before them, and their output is blocked too. They stay the ai.onnx
  // operators, marked `@blocked` so that the rules here and below see their layout. (Not when
  // their output is a graph output: ONNX Runtime then adds a ReorderOutput, which is not
  // modelled.)
  constexpr const char* kBlocked =
      "com.microsoft.nchwc:Conv|MaxPool|AveragePool|GlobalAveragePool|GlobalMaxPool|@blocked";
  // (2-D convolutions only: weights of rank 4.)
  // One group: input channels a multiple of 4, at least one block. Measured with ONNX Runtime
  // 1.30 at block 16, after a blocked value and after a plain one: 20, 24, 28, 36, 40, 44 run
  // blocked (the weights padded); 18, 22, 26, 30, 42 run the plain Conv (after a blocked value,
  // through ReorderOutput).
  const std::string min_channels = std::to_string(std::stoi(block) - 1);
  const std::string one_group = "const w{rank=4, d1%4, d1>" + min_channels + "}, ?const b)";
  const std::string few_inputs = "const w{rank=4, d1<" + block + "}, ?const b)";
  // Depthwise: channels a multiple of 4, any count (8, 12, 20, 24, 72 run blocked; 18, 22 the
  // plain Conv, measured as above).
  const std::string depthwise = "const w{rank=4, d0%4, d1=1}, ?const b)";
  for (const char* op : {"Conv", "com.microsoft:FusedConv"}) {
    const std::string name = std::string(op) == "Conv" ? "Conv" : "FusedConv";
    const std::string blocked = "y = com.microsoft.nchwc:Conv(x, w, ?b) " + padded;
    reg.rewrite(("Nchwc" + name).c_str(),
                ("y = " + std::string(op) + "{group?=1}(x, " + one_group).c_str(), blocked.c_str(),
                kNchwcConvert);
    reg.rewrite(("NchwcNchwInput" + name).c_str(),
                ("y = " + std::string(op) + "{group?=1}(x, " + few_inputs).c_str(), blocked.c_str(),
                kNchwcConvert);
    reg.rewrite(("NchwcDepthwise" + name).c_str(),
                ("y = " + std::string(op) + "{group!=1}(x, " + depthwise).c_str(), blocked.c_str(),
                kNchwcConvert);
  }
  // A pool whose input is blocked runs blocked too (in the same pass: a Conv after it is then
  // blocked whatever its channels).
  // (A pool needs whole blocks of channels: after a Conv whose output is padded, it reads the
  // Conv's output through ReorderOutput, as NCHW.)
  const std::string blocked_conv =
      "keep p = com.microsoft.nchwc:Conv(x, const w{d0%" + block + "}, *r)";
  constexpr const char* kBlockedPool =
      "keep p = com.microsoft.nchwc:MaxPool|AveragePool|GlobalAveragePool|GlobalMaxPool(*i)";
  // Once more after the fusions below, which make a blocked value of a residual block's end.
  for (const auto& [pass, suffix] : {std::pair{kNchwcConvert, ""}, std::pair{kNchwcFuse, "Late"}}) {
    for (const char* pool : {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"}) {
      const std::string replacement = std::string("y = com.microsoft.nchwc:") + pool + "(p) [y]";
      const std::string reads = std::string("; y = ") + pool + "(p)";
      reg.rewrite((std::string("Nchwc") + pool + suffix).c_str(), (blocked_conv + reads).c_str(),
                  replacement.c_str(), pass);
      reg.rewrite((std::string("Nchwc") + pool + "AfterPool" + suffix).c_str(),
                  (std::string(kBlockedPool) + reads).c_str(), replacement.c_str(), pass);
    }
  }
  // TransformPool: a MaxPool or AveragePool of a float NCHW value of whole blocks runs blocked
  // whatever made its input, reading it through ReorderInput (its output is reordered after
  // it). A quantized model's pool after a DequantizeLinear: the dequantized value is held
  // twice, plain and blocked.
  for (const char* pool : {"MaxPool", "AveragePool"}) {
    reg.rewrite((std::string("Nchwc") + pool + "Reordered").c_str(),
                (std::string("keep x = !") + kBlocked + "(*z); y, _ = " + pool +
                 "(x{rank=4, type=1, d1%" + block + "})")
                    .c_str(),
                (std::string("t = com.microsoft.nchwc:ReorderInput(x); y = com.microsoft.nchwc:") +
                 pool + "(t) [y]")
                    .c_str(),
                kNchwcFuse);
  }
  // ... and after a value an ai.onnx operator keeps blocked (below), of whole blocks.
  for (const char* pool : {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"}) {
    reg.rewrite(
        (std::string("Nchwc") + pool + "AfterBlocked").c_str(),
        (std::string("keep p = @blocked(*i); y = ") + pool + "(p{d1%" + block + "})").c_str(),
        (std::string("y = com.microsoft.nchwc:") + pool + "(p) [y]").c_str(), kNchwcFuse);
  }
  // NchwcConvSumFusion: a blocked Conv read only by an Add of two blocked values of the same
  // dims (`same`: by derivation through the blocked nodes, as the transformer tracks them, or
  // in the inference) adds the other one itself, writing into its buffer (MayInplace(3, 0));
  // then NchwcConvReluFusion.
  reg.rewrite("NchwcConvSumFusion",
              (std::string("c = com.microsoft.nchwc:Conv{!activation}(x, w, ?b)\n"
                           "keep s = ") +
               kBlocked + "(*z); y = Add|Sum(c, s{same=c})")
                  .c_str(),
              "y = com.microsoft.nchwc:Conv(x, w, ?b, s) [c]", kNchwcFuse);
  reg.rewrite("NchwcConvReluFusion",
              "c = com.microsoft.nchwc:Conv{!activation}(*i); y = Relu|Sigmoid|Tanh(c)",
              "y = com.microsoft.nchwc:Conv(*i) [c, activation=@y]", kNchwcFuse);
  // TransformBatchNormalization: a BatchNormalization (with its epsilon) of a blocked value runs
  // as a depthwise 1x1 NCHWc Conv, which an activation then fuses into (its weights here: the
  // scale, whose [C] the Conv's shape rule reads as 1x1).
  reg.rewrite("NchwcBatchNormalization",
              (std::string("keep x = ") + kBlocked +
               "(*z)\n"
               "y = BatchNormalization{spatial?=1}(x, const s{rank=1}, const b, const m, const v)")
                  .c_str(),
              ("y = com.microsoft.nchwc:Conv(x, s, b) [nchwc_block=" + block + "]").c_str(),
              kNchwcFuse);
  // (ONNX Runtime 1.30 also keeps QuickGelu, a SiLU, on the blocked layout, without fusing it
  // into the Conv: an EfficientNet's graph as it saves it.)
  for (const char* op : {"Relu", "Sigmoid", "Tanh", "com.microsoft:QuickGelu"}) {
    reg.rewrite((std::string("NchwcActivation(") + op + ")").c_str(),
                (std::string("keep x = ") + kBlocked + "(*z); ~y = " + op + "(x)").c_str(),
                (std::string("y = ") + op + "(x) [y] @blocked").c_str(), kNchwcFuse);
  }
  // Concat along channels of blocked values of whole blocks each (1 to 64 inputs: a DenseNet
  // block concatenates every earlier layer's output).
  for (int n = 1; n <= 64; ++n) {
    std::string pattern;
    std::string inputs;
    std::string reads;
    for (int k = 0; k < n; ++k) {
      const std::string a = "a" + std::to_string(k);
      pattern += "keep " + a + " = " + kBlocked + "(*z" + std::to_string(k) + ")\n";
      inputs += (k == 0 ? "" : ", ") + a;
      reads += (k == 0 ? "" : ", ") + a + "{d1%" + block + "}";
    }
    reg.rewrite(("NchwcConcat(" + std::to_string(n) + ")").c_str(),
                (pattern + "~y = Concat{axis=1}(" + reads + ")").c_str(),
                ("y = Concat(" + inputs + ") [y] @blocked").c_str(), kNchwcFuse);
  }
  // TransformResize: a nearest Resize (asymmetric, floor) of a blocked value (whole blocks here,
  // so that its ReorderOutput drops no padding) by whole-number scales of its spatial dims runs
  // as NCHWc Upsample: the output stays blocked, and is reordered once after it. ONNX Runtime
  // then holds the upsampled value twice, where a plain Resize after a ReorderOutput holds the
  // input twice.
  const std::string nearest_resize =
      std::string("keep x = ") + kBlocked +
      "(*z)\n"
      "RESIZED = Resize{mode?=\"nearest\", coordinate_transformation_mode=\"asymmetric\", "
      "nearest_mode=\"floor\"}(x{d1%" +
      block + "}, ?r, const s{d0=4, whole, e0=1, e1=1})";
  std::string inner = nearest_resize;
  inner.replace(inner.find("RESIZED"), 7, "~y");
  reg.rewrite("NchwcUpsample", inner.c_str(),
              "y = com.microsoft.nchwc:Upsample(x) [scales=ints(s)] @blocked", kNchwcFuse);
  // (A graph output: the Upsample writes a blocked value, ReorderOutput the output.)
  std::string output = nearest_resize;
  output.replace(output.find("RESIZED"), 7, "$y");
  reg.rewrite("NchwcUpsampleGraphOutput", output.c_str(),
              "t = com.microsoft.nchwc:Upsample(x) [scales=ints(s)] @blocked\n"
              "y = com.microsoft.nchwc:ReorderOutput(t)",
              kNchwcFuse);
  // Add, Sum or Mul of two blocked values of the same dims (`same`, as above).
  for (const char* op : {"Add", "Sum", "Mul"}) {
    reg.rewrite((std::string("NchwcBinary(") + op + ")").c_str(),
                (std::string("keep a = ") + kBlocked + "(*za); keep b = " + kBlocked +
                 "(*zb); ~y = " + op + "(a{same=b}, b)")
                    .c_str(),
                (std::string("y = ") + op + "(a, b) [y] @blocked").c_str(), kNchwcFuse);
  }
  // An Add or Sum of two blocked values whose dims cannot be shown the same (a residual block
  // whose branch passed through a plain node: a squeeze-and-excitation Mul) runs blocked all
  // the same: both inputs reshaped to [N, C/block, H, W, block], added, reshaped back. The
  // Reshapes are views: the Add's output is the only new buffer. (A Mul of such values reads
  // them through ReorderOutput: its common case is [N,C,H,W] by [N,C,1,1], which the blocked
  // kernels do not broadcast.)
  for (const char* op : {"Add", "Sum"}) {
    reg.rewrite((std::string("NchwcBinaryReshaped(") + op + ")").c_str(),
                (std::string("keep a = ") + kBlocked + "(*za); keep b = " + kBlocked +
                 "(*zb); ~y = " + op + "(a{!same=b}, b)")
                    .c_str(),
                ("split = Constant() [value=tensor(0, -1, 0, 0, " + block +
                 ")]\n"
                 "joined = Constant() [value=tensor(0, -1, 0, 0)]\n"
                 "sa = Reshape(a, split) @blocked; sb = Reshape(b, split) @blocked\n"
                 "s = " +
                 op +
                 "(sa, sb) @blocked\n"
                 "y = Reshape(s, joined) @blocked")
                    .c_str(),
                kNchwcFuse);
  }
  // Where the layouts meet, ONNX Runtime copies: a blocked Conv whose input another operator
  // made reads it through ReorderInput, and the readers of a blocked value that have no NCHWc
  // kernel read it through one ReorderOutput (which drops a Conv's padding channels).
  for (const auto& [name, weights] :
       {std::pair<const char*, std::string>{"NchwcReorderInput", "d1%4, d1>" + min_channels},
        std::pair<const char*, std::string>{"NchwcReorderInputDepthwise", "d1=1"}}) {
    reg.rewrite(name,
                ("keep x = !com.microsoft.nchwc:*|@blocked(*z)\n"
                 "y = com.microsoft.nchwc:Conv(x, const w{" +
                 weights + "}, *r)")
                    .c_str(),
                "t = com.microsoft.nchwc:ReorderInput(x)\n"
                "y = com.microsoft.nchwc:Conv(t, w, *r) [y]",
                kReorder);
  }
  constexpr const char* kReroute = "; reroute p -> q for !com.microsoft.nchwc:*|@blocked";
  reg.rewrite(
      "NchwcReorderOutput", "keep p = com.microsoft.nchwc:Conv(x, const w, *r)",
      (std::string("q = com.microsoft.nchwc:ReorderOutput(p) [channels=dim(w, 0)]") + kReroute)
          .c_str(),
      kReorder);
  // A blocked graph output: the kernel writes a new value, ReorderOutput the output.
  reg.rewrite("NchwcReorderGraphOutput", "$p = com.microsoft.nchwc:Conv(x, const w, *r)",
              "t = com.microsoft.nchwc:Conv(x, w, *r) [p]\n"
              "p = com.microsoft.nchwc:ReorderOutput(t) [channels=dim(w, 0)]",
              kReorder);
  // (Its channels: the value's own, as the inference gives them before the rewrites; a blocked
  // Add of Conv outputs holds the Convs' padding channels too.)
  reg.rewrite(
      "NchwcReorderOutputAfterBlocked", "keep p = @blocked(*i)",
      (std::string("q = com.microsoft.nchwc:ReorderOutput(p) [channels=dim(p, 1)]") + kReroute)
          .c_str(),
      kReorder);
  reg.rewrite("NchwcReorderOutputAfterPool", kBlockedPool,
              (std::string("q = com.microsoft.nchwc:ReorderOutput(p)") + kReroute).c_str(),
              kReorder);
  // A blocked Conv that reads fewer channels than a block reads them as NCHW: after a blocked
  // value, through the same ReorderOutput (an equal node is shared).
  const std::string nchw_reader =
      "; y = com.microsoft.nchwc:Conv{group?=1}(p, const v{d1<" + block + "}, *s)";
  const std::string reread = "y = com.microsoft.nchwc:Conv(q, v, *s) [y]";
  reg.rewrite("NchwcReorderOutputForNchwInput",
              ("keep p = com.microsoft.nchwc:Conv(x, const w, *r)" + nchw_reader).c_str(),
              ("q = com.microsoft.nchwc:ReorderOutput(p) [channels=dim(w, 0)]; " + reread).c_str(),
              kReorder);
  reg.rewrite("NchwcReorderOutputAfterPoolForNchwInput",
              (std::string(kBlockedPool) + nchw_reader).c_str(),
              ("q = com.microsoft.nchwc:ReorderOutput(p); " + reread).c_str(), kReorder);
  reg.rewrite("NchwcReorderOutputAfterBlockedForNchwInput",
              (std::string("keep p = @blocked(*i)") + nchw_reader).c_str(),
              ("q = com.microsoft.nchwc:ReorderOutput(p) [channels=dim(p, 1)]; " + reread).c_str(),
              kReorder);
}

/// The NCHWc block ONNX Runtime's MLAS picks on the machine cctx runs on: 16 channels where the
/// processor has AVX-512F, 8 elsewhere on x86-64 (AVX2 and SSE kernels).
const char* this_machines_nchwc_block() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") ? "16" : "8";
#else
  return "8";
#endif
}

}  // namespace

sdk::Status register_rewrites(sdk::IRegistrar& r) {
  using sdk::Status;
  using sdk::StringRef;
  StringRef level("disabled");
  StringRef block("auto");
  r.accept_option("graph_optimization",
                  "disabled (default), basic, extended or all: the session option "
                  "graph_optimization_level whose rewrites the analysed graph gets");
  r.accept_option("nchwc_block",
                  "auto (default: 16 where this machine has AVX-512, else 8), 16 or 8: channels "
                  "per NCHWc block, level all");
  r.option("graph_optimization", &level);
  r.option("nchwc_block", &block);
  const std::string level_text(level.data, level.size);
  std::string block_text(block.data, block.size);
  if (block_text == "auto") block_text = this_machines_nchwc_block();
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
    return r.fail(Status::kInvalidArgument, "option 'nchwc_block' must be auto, 8 or 16");
  }
  Registration onnx(r, "");
  if (rank <= 2) register_function_inlining(onnx);
  if (rank == 0) return onnx.status();
  register_basic(onnx);
  register_qdq_rewrites(onnx, rank);
  if (rank >= 2) register_extended(onnx);
  if (rank >= 3) {
    register_all_level(onnx, block_text);
    // A HardSwish no Conv took as its activation (after a Gemm: MobileNetV3's classifier) runs
    // as its function body at level all too.
    register_function_inlining(onnx, kNchwcConvert);
  }
  return onnx.status();
}

}  // namespace cctx::opsets::onnxruntime
