// com.microsoft GroupQueryAttention as ONNX Runtime 1.30's CPU kernel runs it
// (contrib_ops/cpu/bert/group_query_attention.cc, gqa_attention_base.h), measured one node at a
// time (tests/validate/ort_scratch_test.py) and on the decoders of tests/decoders. Everything the
// kernel allocates stays until it returns:
//   - query, key and value copied to B x heads x S x H (the packed QKV once);
//   - with do_rotary, the rotated query and key (the packed QKV again) and the position ids
//     (B x S int64; one at a prompt: the estimate keeps B x S);
//   - the attention itself, one of two paths:
//     - flash attention (float32, no softcap, no smooth softmax or head sink, no attention bias,
//       no QK output, no quantized cache): one buffer per thread of the pool (the runtime
//       parameter `threads`; measured at 1 and 4 threads on tests/decoders' genai models). A prompt
//       takes tiles of q_block x kv_block scores with the running maximum and sum and a
//       q_block x H accumulator: kv_block0 = max(1, L2 / (32 H)), q_block = min(kv_block0,
//       2 H, S), kv_block = min(kv_block0, T), q_block x (2 + kv_block + H) floats. A decode
//       step (S = 1) holds one row of T scores and H sums: T + H floats. L2 is the size of the
//       level-2 cache ONNX Runtime reads (option l2_cache_bytes);
//     - otherwise the probabilities over the whole present buffer, B x num_heads x S x
//       max(past rows, T) floats (the buffer's length, not the attended one: with
//       onnxruntime-genai's 1024-row shared buffer a decode step holds B x N x 1024 of them).
// Measured at B 2, S 33, 8 query and 2 KV heads of 32: 110,320 bytes without rotary (copies
// 101,376 + tiles 8,844), 211,688 with it; ONNX Runtime 1.23 allocated the probabilities on
// both paths (171,152 and 272,488).
#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "families.hpp"
#include "ort_kit.hpp"

namespace cctx::opsets::onnxruntime {
namespace {

constexpr std::uint32_t kQuery = 0, kKey = 1, kValue = 2, kPastKey = 3, kTotalLength = 6,
                        kAttentionBias = 10, kHeadSink = 11;
constexpr std::int32_t kFloat32 = 1;

/// The level-2 cache size ONNX Runtime's Env reports on Linux (sysconf), 0 when unknown.
std::int64_t this_machines_l2_cache_bytes() {
#if defined(_SC_LEVEL2_CACHE_SIZE)
  const long bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return bytes > 0 ? bytes : 0;
#else
  return 0;
#endif
}

std::int64_t int_attr(const INodeView& node, const char* name) {
  std::int64_t v = 0;
  return node.attr_int(StringRef::from_c_str(name), &v) ? v : 0;
}

/// True when the kernel takes its flash-attention path (group_query_attention.cc's conditions
/// as measured: softcap and smooth softmax take the probabilities).
bool takes_flash_path(const INodeView& node) {
  float softcap = 0.0F;
  if (node.attr_float(StringRef::from_c_str("softcap"), &softcap) && softcap != 0.0F) {
    return false;
  }
  if (int_attr(node, "smooth_softmax") != 0 || int_attr(node, "qk_output") != 0) return false;
  if (attr_string_or(node, "k_quant_type", "NONE") != "NONE") return false;
  if (has_input(node, kAttentionBias) || has_input(node, kHeadSink)) return false;
  return node.input_dtype(kQuery) == kFloat32;
}

Status scratch(const INodeView& node, sdk::IScratchSink& out, std::int64_t l2_bytes) {
  Shape q;
  if (!known_shape(node, kQuery, &q, 3)) return unsupported("query shape unknown");
  const std::int64_t heads = int_attr(node, "num_heads");
  const std::int64_t kv_heads = int_attr(node, "kv_num_heads");
  if (heads <= 0 || kv_heads <= 0) return unsupported("num_heads or kv_num_heads missing");
  const Dim total = scalar_value(node, kTotalLength);
  if (!total.valid()) return unsupported("total_sequence_length unknown");
  std::int64_t element = 0;
  std::string why;
  if (!input_element_bytes(node, kQuery, &element, &why)) return unsupported(why);
  const Dim batch = q.dims[0];
  const Dim sequence = q.dims[1];
  // The BNSH copies: the packed QKV once, or query, key and value each (MaybeTransposeToBNSH).
  const bool packed = !has_input(node, kKey);
  Dim key = node.constant(0);
  Dim value = node.constant(0);
  if (!packed) {
    Shape k;
    Shape v;
    if (!known_shape(node, kKey, &k, 3) || !known_shape(node, kValue, &v, 3)) {
      return unsupported("key or value shape unknown");
    }
    key = numel(node, k) * element;
    value = numel(node, v) * element;
  }
  const Dim query = numel(node, q) * element;
  Dim bytes = query + key + value;
  if (int_attr(node, "do_rotary") != 0) bytes = bytes + query + key + batch * sequence * 8;
  if (!takes_flash_path(node)) {
    Shape past;
    const Dim rows = known_shape(node, kPastKey, &past, 4) ? max(past.dims[2], total) : total;
    return out.set_bytes(bytes + batch * node.constant(heads) * sequence * rows * 4);
  }
  std::int64_t hidden = 0;
  if (!q.dims[2].get_int(&hidden)) return unsupported("query hidden size not a number");
  const std::int64_t head_size = hidden / (packed ? heads + 2 * kv_heads : heads);
  if (head_size <= 0) return unsupported("head size not positive");
  const std::int64_t kv_block0 = std::max<std::int64_t>(1, l2_bytes / (32 * head_size));
  const Dim q_block = min(sequence, std::min(kv_block0, 2 * head_size));
  const Dim tiles = q_block * (min(total, kv_block0) + (2 + head_size)) * 4;
  const Dim row = (total + head_size) * 4;
  // One buffer per thread of the pool (ThreadPool::DegreeOfParallelism).
  return out.set_bytes(bytes + select_less(sequence, node.constant(2), row, tiles) *
                                   intra_op_threads(node));
}

class GroupQueryAttentionScratch final : public sdk::IScratchEstimator {
 public:
  explicit GroupQueryAttentionScratch(std::int64_t l2_bytes) : l2_bytes_(l2_bytes) {}
  Status estimate(const INodeView& node, sdk::IScratchSink& out) const noexcept override {
    return guarded(out, [&] { return scratch(node, out, l2_bytes_); });
  }

 private:
  std::int64_t l2_bytes_;
};

/// One estimator per cache size, alive as long as the plugin is loaded (registries keep a
/// pointer to it; the host drops them before it unloads the plugin). A static object, not a
/// leaked one: unloading the plugin destroys it, so leak checkers stay quiet.
const sdk::IScratchEstimator& estimator_for(std::int64_t l2_bytes) {
  static std::mutex mutex;
  static std::map<std::int64_t, GroupQueryAttentionScratch> estimators;
  const std::lock_guard<std::mutex> lock(mutex);
  return estimators.try_emplace(l2_bytes, l2_bytes).first->second;
}

}  // namespace

Status register_group_query_attention(sdk::IRegistrar& r) {
  sdk::StringRef option("auto");
  r.accept_option("l2_cache_bytes",
                  "auto (default: this machine's level-2 cache, as ONNX Runtime reads it) or a "
                  "number of bytes: the tiles of GroupQueryAttention's flash attention");
  r.option("l2_cache_bytes", &option);
  std::int64_t l2_bytes = 0;
  if (option.equals("auto")) {
    l2_bytes = this_machines_l2_cache_bytes();
  } else {
    const char* end = option.data + option.size;
    const auto [ptr, ec] = std::from_chars(option.data, end, l2_bytes);
    if (ec != std::errc() || ptr != end || l2_bytes < 0) {
      return r.fail(Status::kInvalidArgument,
                    "option 'l2_cache_bytes' must be auto or a number of bytes");
    }
  }
  Registration ms = sdk::kit::register_domain(r, "com.microsoft", 1, 1);
  ms.scratch("GroupQueryAttention", 1, estimator_for(l2_bytes));
  return ms.status();
}

}  // namespace cctx::opsets::onnxruntime
