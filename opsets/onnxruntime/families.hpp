// One registration function per operator family of the ONNX Runtime scratch plugin. Each
// registers scratch estimators or in-place policies (no shape rules or tags: those stay the
// ai.onnx plugin's), through the SDK's Registration bound to the ai.onnx domain.
#pragma once

#include <cctx/sdk/kit.hpp>

namespace cctx::opsets::onnxruntime {

using Registration = cctx::sdk::kit::Registration;

void register_conv(Registration& reg);       // Conv, ConvTranspose
void register_rnn(Registration& reg);        // LSTM, GRU, RNN
void register_attention(Registration& reg);  // ai.onnx Attention
void register_tensor(Registration& reg);     // Where, Softmax, LogSoftmax, Resize, TopK, zeros
void register_inplace(Registration& reg);    // the in-place kernels: aliases, unary activations
/// Conv's working buffer (im2col), which FusedConv (a Conv with an activation) shares.
const cctx::sdk::IScratchEstimator& conv_scratch_estimator();
/// QLinearConv's buffers (ai.onnx's and com.microsoft's channels-last one).
const cctx::sdk::IScratchEstimator& qlinear_conv_scratch_estimator();
/// LSTM's workspaces, which com.microsoft DynamicQuantizeLSTM shares (with its 8-bit buffers).
const cctx::sdk::IScratchEstimator& lstm_scratch_estimator();
/// A working buffer the size of input 0 (HardSwish's temporary; BiasGelu's, FastGelu's).
const cctx::sdk::IScratchEstimator& input_sized_scratch_estimator();
/// com.microsoft kernels (BiasGelu, FastGelu, FusedConv) and the NCHWc Conv: scratch, in place.
cctx::sdk::Status register_contrib(cctx::sdk::IRegistrar& r);
/// com.microsoft GroupQueryAttention's working memory (option l2_cache_bytes: its flash tiles).
cctx::sdk::Status register_group_query_attention(cctx::sdk::IRegistrar& r);
/// The graph optimisations of the level the profile's option `graph_optimization` names.
cctx::sdk::Status register_rewrites(cctx::sdk::IRegistrar& r);
/// Option kv_share_buffer: KV cache outputs written into the past buffers the caller binds.
cctx::sdk::Status register_kv_share_buffer(cctx::sdk::IRegistrar& r);

}  // namespace cctx::opsets::onnxruntime
