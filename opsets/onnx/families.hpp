// One registration function per operator family. A family registers the rules of its operators
// (shape rules, scratch estimators, in-place policies, tag traits) through a Registration, which
// keeps the first error; plugin.cpp calls every family in order.
#pragma once

namespace cctx::opsets::onnx {

class Registration;

void register_elementwise(Registration& reg);   // unary, binary broadcast, variadic, Where
void register_matmul(Registration& reg);        // MatMul, Gemm
void register_tensor_shape(Registration& reg);  // Shape, Size, Reshape, Flatten, Squeeze, ...
void register_concat_split(Registration& reg);  // Concat, Split
void register_tags(Registration& reg);          // tag traits of the spec's tables
void register_inplace(Registration& reg);       // in-place policies of the spec's tables

}  // namespace cctx::opsets::onnx
