// One registration function per operator family. Each registers the shape rules (and scratch
// estimators) of its operators; tags and in-place policies are tables in tags.cpp / inplace.cpp.
#pragma once

#include <cctx/sdk/registrar.hpp>

namespace cctx::opsets::onnx {

sdk::Status register_elementwise(sdk::IRegistrar& r);    // unary, binary broadcast, variadic, Where
sdk::Status register_matmul(sdk::IRegistrar& r);         // MatMul, Gemm
sdk::Status register_tensor_shape(sdk::IRegistrar& r);   // Shape, Size, Reshape, Flatten, ...
sdk::Status register_concat_split(sdk::IRegistrar& r);   // Concat, Split
sdk::Status register_indexing(sdk::IRegistrar& r);       // Gather, Slice, Expand, Range, ...
sdk::Status register_generators(sdk::IRegistrar& r);     // Constant, ConstantOfShape
sdk::Status register_nn(sdk::IRegistrar& r);             // Conv, pooling, Softmax, norms
sdk::Status register_reduce(sdk::IRegistrar& r);         // ReduceMean, ReduceSum, ...
sdk::Status register_tags(sdk::IRegistrar& r);           // tag traits of every op
sdk::Status register_inplace(sdk::IRegistrar& r);        // in-place policies of every op

}  // namespace cctx::opsets::onnx
