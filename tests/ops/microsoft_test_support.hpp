// Shared by the com.microsoft op tests: a model builder importing the contrib domain, and a check
// that every node was shaped by a rule (no fallback).
#pragma once

#include <gtest/gtest.h>

#include "model_builder.hpp"

namespace cctx::test {

inline constexpr const char* kMs = "com.microsoft";

/// A model importing ai.onnx 17 and com.microsoft 1.
inline ModelBuilder ms_model() {
  ModelBuilder b(17);
  b.opset(kMs, 1);
  return b;
}

/// True when no node fell back to the ONNX schema, the declarations or an unknown rank.
inline ::testing::AssertionResult ruled(const Analysis& a) {
  if (a.has_warning("no shape rule") || a.has_warning("no cctx shape rule") ||
      a.has_warning("using the fallbacks")) {
    return ::testing::AssertionFailure() << a.warnings();
  }
  return ::testing::AssertionSuccess();
}

}  // namespace cctx::test
