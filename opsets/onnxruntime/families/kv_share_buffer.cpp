// KV caches the caller binds (option kv_share_buffer: on). onnxruntime-genai, with
// past_present_share_buffer, binds each GroupQueryAttention's present key/value output to its
// past input's buffer (I/O binding): the kernel sees both at one address and appends in place,
// and ONNX Runtime allocates no present. A static cache updated by ai.onnx TensorScatter (opset
// 24) bound the same way is written in place as well (its kernel is MayInplace(0, 0)). Both are
// stated as write_into(present, past, the past buffer's bytes): the present allocates nothing,
// and an evaluation whose present would outgrow the buffer is refused. Measured with the
// presents bound (tests/validate/kv_share_buffer_test.py): ONNX Runtime's allocator holds no
// present. Off (the default), ONNX Runtime allocates every present: its planner never writes
// into a graph input on its own, and the ai.onnx and com.microsoft plugins' may_reuse policies
// apply to caches the graph itself makes.
#include "families.hpp"
#include "ort_kit.hpp"

namespace cctx::opsets::onnxruntime {
namespace {

/// Output `present` written into input `past`'s buffer, whose bytes are its capacity.
void write_into_past(const INodeView& node, sdk::IInplaceSink& out, std::uint32_t present,
                     std::uint32_t past) {
  Shape p;
  if (!known_shape(node, past, &p) || !has_output(node, present)) return;
  check(out.write_into(present, past,
                       product(node, p.dims, 0, p.rank()) * input_element_bytes(node, past)));
}

constexpr std::uint32_t kGqaPresentKey = 1, kGqaPresentValue = 2, kGqaPastKey = 3,
                        kGqaPastValue = 4;

constexpr sdk::kit::FnInplacePolicy kGroupQueryAttentionShared{
    [](const INodeView& node, sdk::IInplaceSink& out) {
      write_into_past(node, out, kGqaPresentKey, kGqaPastKey);
      write_into_past(node, out, kGqaPresentValue, kGqaPastValue);
      return Status::kOk;
    }};

constexpr sdk::kit::FnInplacePolicy kTensorScatterShared{
    [](const INodeView& node, sdk::IInplaceSink& out) {
      write_into_past(node, out, 0, 0);
      return Status::kOk;
    }};

}  // namespace

Status register_kv_share_buffer(sdk::IRegistrar& r) {
  sdk::StringRef share("off");
  r.accept_option("kv_share_buffer",
                  "off (default) or on: on, the caller binds each KV cache output to its past "
                  "input's buffer (GroupQueryAttention's presents, ai.onnx TensorScatter's "
                  "output), as onnxruntime-genai does with past_present_share_buffer (set by its "
                  "genai_config.json)");
  r.option("kv_share_buffer", &share);
  if (!share.equals("on") && !share.equals("off")) {
    return r.fail(Status::kInvalidArgument, "option 'kv_share_buffer' must be 'on' or 'off'");
  }
  if (share.equals("off")) return Status::kOk;
  // The domains are declared where the plugin's other rules are registered (plugin.cpp,
  // contrib.cpp).
  Registration ms(r, "com.microsoft");
  ms.inplace("GroupQueryAttention", 1, kGroupQueryAttentionShared);
  Registration onnx(r, "");
  onnx.check(ms.status());
  onnx.inplace("TensorScatter", 24, kTensorScatterShared);
  return onnx.status();
}

}  // namespace cctx::opsets::onnxruntime
