// One registration function per operator family. A family registers the rules of its operators
// (shape rules, scratch estimators, in-place policies, tag traits) through a Registration, which
// keeps the first error; plugin.cpp calls every family in order.
#pragma once

namespace cctx::opsets::onnx {

class Registration;

void register_schemas(Registration& reg);        // every operator's contract, from ONNX's schemas
void register_elementwise(Registration& reg);    // unary, binary broadcast, variadic, Where
void register_matmul(Registration& reg);         // MatMul, Gemm
void register_tensor_shape(Registration& reg);   // Shape, Size, Reshape, Flatten, Squeeze, ...
void register_concat_split(Registration& reg);   // Concat, Split
void register_reduce(Registration& reg);         // Reduce*, ArgMax, ArgMin
void register_control_flow(Registration& reg);   // If, Loop, Scan, SequenceMap
void register_sequence(Registration& reg);       // Sequence*, SplitToSequence, Optional*
void register_quantization(Registration& reg);   // (De)QuantizeLinear, QLinearMatMul, ...
void register_random_signal(Registration& reg);  // Random*, Bernoulli, DFT, STFT, windows
void register_text_image(Registration& reg);     // String*, TfIdf, ImageDecoder, NMS
void register_indexing(
    Registration& reg);  // Gather*, Scatter*, Slice, Expand, Tile, Pad, TopK, ...
void register_generators(Registration& reg);  // Constant, ConstantOfShape, Range, EyeLike, OneHot
void register_spatial(Registration& reg);     // Resize, Upsample, DepthToSpace, SpaceToDepth, ...
void register_conv_pool(Registration& reg);   // Conv*, pools, RoiAlign, GridSample, AffineGrid
void register_normalization(Registration& reg);    // *Normalization, LRN, Dropout
void register_attention(Registration& reg);        // Attention, RotaryEmbedding
void register_recurrent_state(Registration& reg);  // LinearAttention, CausalConvWithState
void register_rnn(Registration& reg);              // RNN, GRU, LSTM
void register_einsum(Registration& reg);           // Einsum
void register_losses(Registration& reg);           // SoftmaxCrossEntropyLoss, NLL loss
void register_training(Registration& reg);         // ai.onnx.preview.training: Gradient, optimisers
void register_tags(Registration& reg);             // tag traits of the spec's tables
void register_inplace(Registration& reg);          // in-place policies of the spec's tables

}  // namespace cctx::opsets::onnx
