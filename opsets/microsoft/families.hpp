// One registration function per operator family of com.microsoft. A family registers its shape
// rules, scratch estimators, in-place policies and tag traits through the SDK's Registration
// (bound to the com.microsoft domain), which keeps the first error; plugin.cpp calls every family.
#pragma once

#include <cctx/sdk/kit.hpp>

namespace cctx::opsets::microsoft {

using Registration = cctx::sdk::kit::Registration;

void register_activations(Registration& reg);  // Gelu, QuickGelu, FastGelu, BiasGelu, BiasAdd
void register_normalization(Registration& reg);
/// LayerNormalization and SimplifiedLayerNormalization in the ai.onnx domain, as ONNX Runtime
/// registers them (version 1).
void register_onnx_domain_normalization(
    Registration& onnx);                                 // (Skip)(Simplified)LayerNormalization
void register_embed_layer_norm(Registration& reg);       // EmbedLayerNormalization
void register_attention(Registration& reg);              // Attention, PackedAttention
void register_multi_head_attention(Registration& reg);   // MultiHeadAttention
void register_group_query_attention(Registration& reg);  // GroupQueryAttention
void register_rotary_embedding(Registration& reg);       // RotaryEmbedding
void register_matmul(Registration& reg);        // FusedMatMul, MatMulNBits, quantized MatMuls
void register_quantization(Registration& reg);  // (De)QuantizeLinear, GatherBlockQuantized
void register_conv(Registration& reg);          // FusedConv, NhwcConv
/// QLinearAdd/Mul/Sigmoid/LeakyRelu/Softmax/GlobalAveragePool/AveragePool/Conv/Concat, QGemm,
/// NhwcMaxPool: the QOperator format and ONNX Runtime's rewrites of QDQ pairs.
void register_qlinear(Registration& reg);
void register_misc(Registration& reg);         // Range, Trilu
void register_recurrent(Registration& reg);    // DynamicQuantizeLSTM
void register_beam_search(Registration& reg);  // BeamSearch
/// The com.microsoft.nchwc operators (ONNX Runtime's blocked-layout CNN graph), version 1:
/// ReorderInput, ReorderOutput, Conv, MaxPool, AveragePool, the Global pools, Upsample.
void register_nchwc(Registration& nchwc);

}  // namespace cctx::opsets::microsoft
