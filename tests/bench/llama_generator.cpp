#include "llama_generator.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace cctx::bench {

namespace {

constexpr int kNodesPerLayer = 69;

/// Appends nodes, initializers and values to a GraphProto with readable generated names.
class Writer {
 public:
  explicit Writer(onnx::GraphProto* g) : g_(g) {}

  std::string node(const char* op, std::vector<std::string> inputs, const std::string& output,
                   std::vector<onnx::AttributeProto> attrs = {}) {
    onnx::NodeProto* n = g_->add_node();
    n->set_op_type(op);
    for (std::string& i : inputs) n->add_input(std::move(i));
    n->add_output(output);
    for (onnx::AttributeProto& a : attrs) *n->add_attribute() = std::move(a);
    return output;
  }

  void weight(const std::string& name, std::vector<std::int64_t> dims) {
    onnx::TensorProto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    std::int64_t count = 1;
    for (std::int64_t d : dims) {
      t->add_dims(d);
      count *= d;
    }
    // Deterministic small values; raw_data keeps the file compact.
    std::string raw(static_cast<std::size_t>(count) * 4, '\0');
    for (std::int64_t k = 0; k < count; ++k) {
      float v = static_cast<float>((k % 7) - 3) * 0.01f;
      std::memcpy(raw.data() + 4 * k, &v, 4);
    }
    t->set_raw_data(raw);
  }

  void ints(const std::string& name, std::vector<std::int64_t> values, bool scalar = false) {
    onnx::TensorProto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    if (!scalar) t->add_dims(static_cast<std::int64_t>(values.size()));
    for (std::int64_t v : values) t->add_int64_data(v);
  }

  void scalar_float(const std::string& name, float v) {
    onnx::TensorProto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_float_data(v);
  }

  void io(bool input, const std::string& name, int dtype, std::vector<std::string> dims) {
    onnx::ValueInfoProto* vi = input ? g_->add_input() : g_->add_output();
    vi->set_name(name);
    auto* t = vi->mutable_type()->mutable_tensor_type();
    t->set_elem_type(dtype);
    for (const std::string& d : dims) {
      auto* dim = t->mutable_shape()->add_dim();
      if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0]))) {
        dim->set_dim_value(std::stoll(d));
      } else {
        dim->set_dim_param(d);
      }
    }
  }

 private:
  onnx::GraphProto* g_;
};

onnx::AttributeProto int_attr(const char* name, std::int64_t v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(v);
  return a;
}

onnx::AttributeProto ints_attr(const char* name, std::vector<std::int64_t> v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INTS);
  for (std::int64_t x : v) a.add_ints(x);
  return a;
}

/// x * 1/sqrt(mean(x^2) + eps) * w: 7 nodes, as exporters decompose RMSNorm.
std::string rms_norm(Writer& w, const std::string& p, const std::string& x,
                     const std::string& weight) {
  std::string sq = w.node("Pow", {x, "c_two"}, p + "sq");
  std::string mean =
      w.node("ReduceMean", {sq}, p + "mean", {ints_attr("axes", {-1}), int_attr("keepdims", 1)});
  std::string eps = w.node("Add", {mean, "c_eps"}, p + "eps");
  std::string root = w.node("Sqrt", {eps}, p + "root");
  std::string inv = w.node("Reciprocal", {root}, p + "inv");
  std::string scaled = w.node("Mul", {x, inv}, p + "scaled");
  return w.node("Mul", {scaled, weight}, p + "out");
}

/// Rotary embedding of a [B, heads, S, hd] tensor: x*cos + rotate_half(x)*sin (7 nodes).
std::string rotary(Writer& w, const std::string& p, const std::string& x, const std::string& cos,
                   const std::string& sin) {
  std::string lo = w.node("Slice", {x, "c_zero1", "c_half1", "c_axis3"}, p + "lo");
  std::string hi = w.node("Slice", {x, "c_half1", "c_hd1", "c_axis3"}, p + "hi");
  std::string neg = w.node("Neg", {hi}, p + "neg");
  std::string rot = w.node("Concat", {neg, lo}, p + "rot", {int_attr("axis", 3)});
  std::string xc = w.node("Mul", {x, cos}, p + "xc");
  std::string xs = w.node("Mul", {rot, sin}, p + "xs");
  return w.node("Add", {xc, xs}, p + "out");
}

}  // namespace

int llama_nodes_per_layer() { return kNodesPerLayer; }

LlamaConfig llama_for_nodes(std::int64_t nodes) {
  LlamaConfig c;
  c.layers = static_cast<int>(std::max<std::int64_t>(1, (nodes - 3) / kNodesPerLayer));
  return c;
}

std::unique_ptr<onnx::ModelProto> make_llama(const LlamaConfig& c) {
  auto model = std::make_unique<onnx::ModelProto>();
  model->set_ir_version(8);
  model->set_producer_name("cctx-bench");
  auto* op = model->add_opset_import();
  op->set_domain("");
  op->set_version(c.opset);
  onnx::GraphProto* g = model->mutable_graph();
  g->set_name("llama_decoder_" + std::to_string(c.layers));
  Writer w(g);
  const int hd = c.hidden / c.heads;
  const int max_pos = 4096;

  w.io(true, "input_ids", onnx::TensorProto::INT64, {"batch", "seq"});
  w.ints("c_axes0", {0});
  w.ints("c_heads", {c.heads});
  w.ints("c_hd", {hd});
  w.ints("c_hidden", {c.hidden});
  w.ints("c_zero1", {0});
  w.ints("c_half1", {hd / 2});
  w.ints("c_hd1", {hd});
  w.ints("c_axis3", {3});
  w.ints("c_i0", {0}, true);
  w.ints("c_i1", {1}, true);
  w.ints("c_i2", {2}, true);
  w.scalar_float("c_two", 2.0f);
  w.scalar_float("c_eps", 1e-6f);
  w.scalar_float("c_sqrt_hd", std::sqrt(static_cast<float>(hd)));
  w.weight("embedding", {c.vocab, c.hidden});
  w.weight("cos_table", {max_pos, hd});
  w.weight("sin_table", {max_pos, hd});
  std::string x = w.node("Gather", {"embedding", "input_ids"}, "embedded", {int_attr("axis", 0)});

  for (int l = 0; l < c.layers; ++l) {
    const std::string p = "l" + std::to_string(l) + "_";
    for (const char* m : {"ln1", "ln2"}) w.weight(p + m, {c.hidden});
    for (const char* m : {"wq", "wk", "wv", "wo"}) w.weight(p + m, {c.hidden, c.hidden});
    w.weight(p + "wg", {c.hidden, c.ffn});
    w.weight(p + "wu", {c.hidden, c.ffn});
    w.weight(p + "wd", {c.ffn, c.hidden});
    const std::string past_k = p + "past_key", past_v = p + "past_value";
    w.io(true, past_k, onnx::TensorProto::FLOAT,
         {"batch", std::to_string(c.heads), "past_seq", std::to_string(hd)});
    w.io(true, past_v, onnx::TensorProto::FLOAT,
         {"batch", std::to_string(c.heads), "past_seq", std::to_string(hd)});

    std::string xn = rms_norm(w, p + "ln1_", x, p + "ln1");
    std::string q = w.node("MatMul", {xn, p + "wq"}, p + "q");
    std::string k = w.node("MatMul", {xn, p + "wk"}, p + "k");
    std::string v = w.node("MatMul", {xn, p + "wv"}, p + "v");
    // The exporter's shape chain: [batch, seq, heads, head_dim] from Shape(x).
    std::string sh = w.node("Shape", {xn}, p + "shape");
    std::string b = w.node("Gather", {sh, "c_i0"}, p + "b", {int_attr("axis", 0)});
    std::string s = w.node("Gather", {sh, "c_i1"}, p + "s", {int_attr("axis", 0)});
    std::string bu = w.node("Unsqueeze", {b, "c_axes0"}, p + "bu");
    std::string su = w.node("Unsqueeze", {s, "c_axes0"}, p + "su");
    std::string heads_shape =
        w.node("Concat", {bu, su, "c_heads", "c_hd"}, p + "heads_shape", {int_attr("axis", 0)});
    std::vector<std::int64_t> to_heads{0, 2, 1, 3};
    std::string q4 = w.node("Reshape", {q, heads_shape}, p + "q4");
    std::string k4 = w.node("Reshape", {k, heads_shape}, p + "k4");
    std::string v4 = w.node("Reshape", {v, heads_shape}, p + "v4");
    std::string qt = w.node("Transpose", {q4}, p + "qt", {ints_attr("perm", to_heads)});
    std::string kt = w.node("Transpose", {k4}, p + "kt", {ints_attr("perm", to_heads)});
    std::string vt = w.node("Transpose", {v4}, p + "vt", {ints_attr("perm", to_heads)});
    // Positions past_seq .. past_seq+seq of the rotary tables.
    std::string psh = w.node("Shape", {past_k}, p + "past_shape");
    std::string pstart = w.node("Gather", {psh, "c_i2"}, p + "pos_start", {int_attr("axis", 0)});
    std::string pend = w.node("Add", {pstart, s}, p + "pos_end");
    std::string pstart1 = w.node("Unsqueeze", {pstart, "c_axes0"}, p + "pos_start1");
    std::string pend1 = w.node("Unsqueeze", {pend, "c_axes0"}, p + "pos_end1");
    std::string cos = w.node("Slice", {"cos_table", pstart1, pend1, "c_axes0"}, p + "cos");
    std::string sin = w.node("Slice", {"sin_table", pstart1, pend1, "c_axes0"}, p + "sin");
    std::string qr = rotary(w, p + "rq_", qt, cos, sin);
    std::string kr = rotary(w, p + "rk_", kt, cos, sin);
    std::string present_k =
        w.node("Concat", {past_k, kr}, p + "present_key", {int_attr("axis", 2)});
    std::string present_v =
        w.node("Concat", {past_v, vt}, p + "present_value", {int_attr("axis", 2)});
    w.io(false, present_k, onnx::TensorProto::FLOAT, {});
    w.io(false, present_v, onnx::TensorProto::FLOAT, {});
    std::string ktr =
        w.node("Transpose", {present_k}, p + "ktr", {ints_attr("perm", {0, 1, 3, 2})});
    std::string scores = w.node("MatMul", {qr, ktr}, p + "scores");
    std::string scaled = w.node("Div", {scores, "c_sqrt_hd"}, p + "scores_scaled");
    std::string probs = w.node("Softmax", {scaled}, p + "probs", {int_attr("axis", -1)});
    std::string ctx = w.node("MatMul", {probs, present_v}, p + "context");
    std::string ctx_t = w.node("Transpose", {ctx}, p + "context_t", {ints_attr("perm", to_heads)});
    std::string merged_shape =
        w.node("Concat", {bu, su, "c_hidden"}, p + "merged_shape", {int_attr("axis", 0)});
    std::string merged = w.node("Reshape", {ctx_t, merged_shape}, p + "merged");
    std::string attn = w.node("MatMul", {merged, p + "wo"}, p + "attn");
    std::string h = w.node("Add", {x, attn}, p + "h");
    std::string hn = rms_norm(w, p + "ln2_", h, p + "ln2");
    std::string gate = w.node("MatMul", {hn, p + "wg"}, p + "gate");
    std::string up = w.node("MatMul", {hn, p + "wu"}, p + "up");
    std::string sig = w.node("Sigmoid", {gate}, p + "sig");
    std::string silu = w.node("Mul", {gate, sig}, p + "silu");
    std::string gated = w.node("Mul", {silu, up}, p + "gated");
    std::string down = w.node("MatMul", {gated, p + "wd"}, p + "down");
    x = w.node("Add", {h, down}, p + "out");
  }
  w.weight("final_ln", {c.hidden});
  w.weight("lm_head", {c.hidden, c.vocab});
  std::string xn = rms_norm(w, "final_", x, "final_ln");
  std::string logits = w.node("MatMul", {xn, "lm_head"}, "logits");
  w.io(false, logits, onnx::TensorProto::FLOAT, {});
  return model;
}

}  // namespace cctx::bench
