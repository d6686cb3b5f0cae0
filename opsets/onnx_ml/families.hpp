// One registration function per operator family of ai.onnx.ml. A family registers the shape rules
// of its operators through the SDK's Registration (bound to the ai.onnx.ml domain), which keeps
// the first error; plugin.cpp calls every family in order.
//
// No family registers tag traits or in-place policies: every operator here inherits input 0's tag
// (the host's default), and onnxruntime's CPU kernels for them declare no in-place reuse.
#pragma once

#include <cctx/sdk/kit.hpp>

namespace cctx::opsets::onnx_ml {

using Registration = cctx::sdk::kit::Registration;

void register_preprocessing(Registration& reg);  // Binarizer, Imputer, Normalizer, Scaler, ...
void register_encoders(Registration& reg);       // LabelEncoder, CategoryMapper, OneHotEncoder
void register_maps(Registration& reg);           // CastMap, DictVectorizer, ZipMap
void register_linear(Registration& reg);         // Linear*, SVM* classifiers and regressors
void register_trees(Registration& reg);          // TreeEnsemble, TreeEnsembleClassifier/Regressor

}  // namespace cctx::opsets::onnx_ml
