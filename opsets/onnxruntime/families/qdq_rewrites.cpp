// ONNX Runtime's transformers of quantized (QDQ) graphs as graph rewrites: what a session of a
// model written by a QDQ quantizer (ONNX Runtime's own quantize_static, most exporters' int8
// paths) really runs on an x86 CPU. A DequantizeLinear -> float operator -> QuantizeLinear
// group becomes one quantized kernel (QLinearConv, QGemm, QLinearAdd, ...), so the float
// values between them are never made; where it cannot (int8 activations, mixed types), the
// float operator stays, and each reader has a dequantized copy of its own.
//
// Read from core/optimizer/qdq_transformer (ensure_unique_dq_for_node_unit.cc, qdq_s8_to_u8.cc,
// selectors_actions/qdq_selector_action_transformer.cc and qdq_selectors.cc) and
// core/optimizer/layout_transformation (the NHWC transformer); checked against the graphs ONNX
// Runtime 1.30 saves for the QDQ models of `make quantized` (tests/validate/ort_rewrites_check.py).
#include <string>
#include <vector>

#include "families.hpp"
#include "rewrite_passes.hpp"

namespace cctx::opsets::onnxruntime {

namespace {

// How a rule sees an activation's 8-bit type as ONNX Runtime has it when it selects groups:
// uint8 when written so, or int8 made uint8 (QDQS8ToU8: a QuantizeLinear read by one
// DequantizeLinear alone). Marked here by the prepare pass, as ONNX Runtime rewrites the zero
// points: @u8q on the QuantizeLinear, @u8dq on the DequantizeLinear. An unmarked pair is int8.

/// A DequantizeLinear of activation VAR whose quantized input is qVAR, of the given type.
std::string dequantized(const std::string& var, bool u8) {
  if (u8) return var + " = @u8dq(q" + var + ", const s" + var + ", ?const z" + var + ")\n";
  return var + " = DequantizeLinear(q" + var + ", const s" + var + ", const z" + var +
         "{type=3})\n";
}

/// The QuantizeLinear that makes y from the float operator's output `from`.
std::string quantized(bool u8, const std::string& from = "c") {
  return u8 ? "y = @u8q(" + from + ", const ys, const yz)"
            : "y = QuantizeLinear(" + from + ", const ys, const yz{type=3})";
}

/// Weights: a DequantizeLinear of an 8-bit constant (int8 or uint8, either mark).
std::string weights(const std::string& var) {
  return var + " = DequantizeLinear|@u8dq(const q" + var + "{type=2|type=3}, const s" + var +
         ", ?const z" + var + ")\n";
}

/// A bias: a DequantizeLinear of an int32 constant.
std::string bias(const std::string& var) {
  return var + " = DequantizeLinear(const q" + var + "{type=6}, const s" + var + ", ?const z" +
         var + ")\n";
}

/// `q, s, ?z` of activation VAR, as a QLinear operator reads it.
std::string reads(const std::string& var) { return "q" + var + ", s" + var + ", ?z" + var; }

void register_prepare(Registration& reg) {
  // EnsureUniqueDQForNodeUnit: a DequantizeLinear read twice is copied, one per reader.
  reg.rewrite("EnsureUniqueDQForNodeUnit", "builtin:unique_dequantize_per_reader", "", kQdqPrepare);
  // QDQS8ToU8Transformer: an int8 QuantizeLinear read by one DequantizeLinear alone, both with
  // the same one-element zero point, run as uint8 (the zero point plus 128): the x86 kernels'
  // activations are uint8. (Same bytes; the groups the next pass accepts and the kernels'
  // paths change.)
  reg.rewrite("QDQS8ToU8",
              "q = QuantizeLinear(a, const s, const z{type=3, scalar})\n"
              "d = DequantizeLinear(q{readers=1}, const s2, ?const z2)",
              "u = Constant() [value=uint8_of(z)]\n"
              "q = QuantizeLinear(a, s, u) @u8q; d = DequantizeLinear(q, s2, u) @u8dq",
              kQdqPrepare);
  // ... and the pairs written uint8.
  reg.rewrite("QDQS8ToU8(uint8 QuantizeLinear)", "y = QuantizeLinear(c, const s, const z{type=2})",
              "y = QuantizeLinear(c, s, z) @u8q", kQdqPrepare);
  reg.rewrite("QDQS8ToU8(uint8 DequantizeLinear)",
              "d = DequantizeLinear(q, const s, const z{type=2})",
              "d = DequantizeLinear(q, s, z) @u8dq", kQdqPrepare);
}

void register_select(Registration& reg) {
  // Conv -> QLinearConv, Gemm -> QGemm: uint8 in and out (int8 activations are not allowed on
  // x86, QDQIsInt8Allowed), 8-bit weights, an int32 bias or none. (QGemm's float output,
  // without a QuantizeLinear, is not modelled.) BIAS stands for the bias, or nothing.
  struct Weighted {
    const char* op;
    const char* becomes;  ///< the replacement's text from its operator on
    const char* absent;   ///< where the bias goes without one: "" (dropped) or ", _" (kept)
  };
  static constexpr Weighted kWeighted[] = {
      {"Conv", "QLinearConv(qx, sx, ?zx, qw, sw, ?zw, ys, yz BIAS) [c]", ""},
      {"Gemm", "com.microsoft:QGemm(qx, sx, ?zx, qw, sw, ?zw BIAS, ys, yz) [c]", ", _"}};
  for (const Weighted& op : kWeighted) {
    for (const bool with_bias : {true, false}) {
      const std::string pattern = dequantized("x", true) + weights("w") +
                                  (with_bias ? bias("b") : "") + "c = " + op.op +
                                  (with_bias ? "(x, w, b)\n" : "(x, w)\n") + quantized(true);
      std::string becomes = std::string("y = ") + op.becomes;
      becomes.replace(becomes.find(" BIAS"), 5, with_bias ? ", qb" : op.absent);
      reg.rewrite(
          (std::string("QDQSelectorAction(") + op.op + (with_bias ? ")" : ", no bias)")).c_str(),
          pattern.c_str(), becomes.c_str(), kQdqSelect);
    }
  }
  // Unary operators -> com.microsoft QLinear*: input and output of one type, uint8 or int8.
  struct Unary {
    const char* op;
    const char* becomes;
    const char* attributes;
  };
  static constexpr Unary kUnary[] = {
      {"GlobalAveragePool", "QLinearGlobalAveragePool", "[c, channels_last=0]"},
      {"AveragePool", "QLinearAveragePool", "[c, channels_last=0]"},
      {"LeakyRelu", "QLinearLeakyRelu", "[c]"},
      {"Sigmoid", "QLinearSigmoid", "[c]"},
      {"Softmax", "QLinearSoftmax", "[c]"}};
  for (const Unary& u : kUnary) {
    for (const bool u8 : {true, false}) {
      reg.rewrite((std::string("QDQSelectorAction(") + u.op + (u8 ? ")" : ", int8)")).c_str(),
                  (dequantized("x", u8) + "c = " + u.op + "(x)\n" + quantized(u8)).c_str(),
                  (std::string("y = com.microsoft:") + u.becomes + "(" + reads("x") + ", ys, yz) " +
                   u.attributes)
                      .c_str(),
                  kQdqSelect);
    }
  }
  // Add, Mul -> QLinearAdd, QLinearMul: both inputs and the output of one type.
  for (const char* op : {"Add", "Mul"}) {
    for (const bool u8 : {true, false}) {
      reg.rewrite(
          (std::string("QDQSelectorAction(") + op + (u8 ? ")" : ", int8)")).c_str(),
          (dequantized("a", u8) + dequantized("b", u8) + "c = " + op + "(a, b)\n" + quantized(u8))
              .c_str(),
          (std::string("y = com.microsoft:QLinear") + op + "(" + reads("a") + ", " + reads("b") +
           ", ys, yz)")
              .c_str(),
          kQdqSelect);
    }
  }
  // Concat -> QLinearConcat (output scale and zero point first, then each input's three;
  // every input with its zero point).
  for (int n = 1; n <= 8; ++n) {
    for (const bool u8 : {true, false}) {
      std::string pattern, inputs, quantized_inputs;
      for (int k = 0; k < n; ++k) {
        const std::string v = "i" + std::to_string(k);
        pattern += v + " = " + (u8 ? "@u8dq" : "DequantizeLinear") + "(q" + v + ", const s" + v +
                   ", const z" + v + (u8 ? ")\n" : "{type=3})\n");
        inputs += (k == 0 ? "" : ", ") + v;
        quantized_inputs += ", q" + v + ", s" + v + ", z" + v;
      }
      reg.rewrite(
          ("QDQSelectorAction(Concat, " + std::to_string(n) + (u8 ? ")" : ", int8)")).c_str(),
          (pattern + "c = Concat(" + inputs + ")\n" + quantized(u8)).c_str(),
          ("y = com.microsoft:QLinearConcat(ys, yz" + quantized_inputs + ") [c]").c_str(),
          kQdqSelect);
    }
  }
  // Operators that move data without computing on it run on the quantized values: the
  // DequantizeLinear and QuantizeLinear around them go (DropQDQNodes; Flatten as ONNX Runtime
  // 1.30's saved graphs show). Same type in and out (the scales and zero points, equal in a
  // quantizer's output, are not compared here).
  for (const char* op :
       {"MaxPool", "Gather", "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten", "Resize"}) {
    for (const bool u8 : {true, false}) {
      reg.rewrite((std::string("QDQSelectorAction(drop, ") + op + (u8 ? ")" : ", int8)")).c_str(),
                  (dequantized("x", u8) + "c = " + op + "(x, *r)\n" + quantized(u8)).c_str(),
                  (std::string("y = ") + op + "(qx, *r) [c]").c_str(), kQdqSelect);
    }
  }
}

void register_nhwc(Registration& reg) {
  // NhwcTransformer: a 2-D QLinearConv runs channels-last (com.microsoft's QLinearConv), between
  // Transposes to NHWC and back; the transpose optimizer then cancels a pair that meets
  // between two such operators. A pool whose input comes back from NHWC runs channels-last too.
  reg.rewrite("NhwcTransformer(QLinearConv)", "y = QLinearConv(x, sx, ?zx, const w{rank=4}, *r)",
              "t = Transpose(x) [perm=(0, 2, 3, 1)]\n"
              "u = com.microsoft:QLinearConv(t, sx, ?zx, w, *r) [y, channels_last=1] @nhwc\n"
              "y = Transpose(u) [perm=(0, 3, 1, 2)]",
              kNhwc);
  reg.rewrite("NhwcTransformer(MaxPool)",
              "keep u = @nhwc(*i); t = Transpose{perm=[0,3,1,2]}(u); y = MaxPool(t)",
              "p = com.microsoft:NhwcMaxPool(u) [y] @nhwc; y = Transpose(p) [perm=(0, 3, 1, 2)]",
              kNhwc);
  for (const char* pool : {"QLinearGlobalAveragePool", "QLinearAveragePool"}) {
    reg.rewrite((std::string("NhwcTransformer(") + pool + ")").c_str(),
                (std::string("keep u = @nhwc(*i); t = Transpose{perm=[0,3,1,2]}(u)\n"
                             "y = com.microsoft:") +
                 pool + "(t, *r)")
                    .c_str(),
                (std::string("p = com.microsoft:") + pool +
                 "(u, *r) [y, channels_last=1] @nhwc; y = Transpose(p) [perm=(0, 3, 1, 2)]")
                    .c_str(),
                kNhwc);
  }
  // The transpose optimizer then moves the Transposes back to NCHW past the quantized
  // elementwise operators whose inputs both come back from NHWC (a residual block of QLinearConv
  // and QLinearAdd runs NHWC from end to end) ...
  for (const char* op : {"QLinearAdd", "QLinearMul"}) {
    reg.rewrite((std::string("TransposeOptimizer(") + op + ")").c_str(),
                (std::string("keep a = Transpose{perm=[0,3,1,2]}(x)\n"
                             "keep b = Transpose{perm=[0,3,1,2]}(z)\n"
                             "c = com.microsoft:") +
                 op + "(a, sa, ?za, b, sb, ?zb, sc, ?zc)")
                    .c_str(),
                (std::string("d = com.microsoft:") + op +
                 "(x, sa, ?za, z, sb, ?zb, sc, ?zc) [c] @nhwc\n"
                 "c = Transpose(d) [perm=(0, 3, 1, 2)]")
                    .c_str(),
                kNhwc);
  }
  // ... cancels a Transpose back to NHWC against the one it reads (the first stays while
  // another node reads it) ...
  reg.rewrite("TransposeOptimizer(cancel NHWC pair)",
              "a = Transpose{perm=[0,3,1,2]}(x); b = Transpose{perm=[0,2,3,1]}(a)", "b = x", kNhwc);
  reg.rewrite("TransposeOptimizer(cancel NHWC pair, shared)",
              "keep a = Transpose{perm=[0,3,1,2]}(x); b = Transpose{perm=[0,2,3,1]}(a)", "b = x",
              kNhwc);
  // ... and removes the Transposes nobody reads any more.
  reg.rewrite("TransposeOptimizer(unread)", "keep u = @nhwc(*i); _ = Transpose{perm=[0,3,1,2]}(u)",
              "", kNhwc);
  // A uint8 NHWC value dequantized for a float Add or Mul: the Transpose moves past the
  // DequantizeLinear (to float), and a QuantizeLinear and DequantizeLinear pair after it keeps
  // the Add's group whole. ONNX Runtime 1.30's saved graphs do so at the end of a chain of
  // NHWC operators (MobileNetV2's residual blocks), not after one QLinearConv alone (ResNet's:
  // its Transpose stays before the DequantizeLinear); the rule follows what they show.
  reg.rewrite("TransposeOptimizer(DequantizeLinear before a float Add)",
              "keep v = @nhwc(*i); keep u = @nhwc(v, *j); t = Transpose{perm=[0,3,1,2]}(u)\n"
              "d = @u8dq(t, const s, ?const z); keep c = Add|Mul(d, e)",
              "f = DequantizeLinear(u, s, ?z) @u8dq; g = Transpose(f) [perm=(0, 3, 1, 2)]\n"
              "h = QuantizeLinear(g, s, ?z) @u8q; d = DequantizeLinear(h, s, ?z) @u8dq",
              kNhwc);
}

}  // namespace

void register_qdq_rewrites(Registration& reg, int level) {
  if (level >= 1) register_prepare(reg);
  if (level >= 2) register_select(reg);
  if (level >= 3) register_nhwc(reg);
}

}  // namespace cctx::opsets::onnxruntime
