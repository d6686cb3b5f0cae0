#include "model/tensor_data.hpp"

#include <onnx/onnx_pb.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "model/tensor_payloads.hpp"

namespace cctx {

namespace {

template <class T>
T load_le(const char* p) {
  static_assert(std::endian::native == std::endian::little, "big-endian hosts are not supported");
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

double half_to_double(std::uint16_t h) {
  const int sign = (h >> 15) & 1;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  double value;
  if (exponent == 0) {
    value = std::ldexp(static_cast<double>(mantissa), -24);
  } else if (exponent == 31) {
    value = mantissa == 0 ? HUGE_VAL : std::nan("");
  } else {
    value = std::ldexp(static_cast<double>(mantissa + 1024), exponent - 25);
  }
  return sign ? -value : value;
}

double bfloat16_to_double(std::uint16_t b) {
  std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// Data held elsewhere: in an external file, or left in the model file by Model::load.
bool external(const onnx::TensorProto& t) {
  return t.data_location() == onnx::TensorProto::EXTERNAL || detail::skipped_payload(t) >= 0;
}

}  // namespace

std::int64_t tensor_element_count(const onnx::TensorProto& t) {
  std::int64_t count = 1;
  for (std::int64_t d : t.dims()) {
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) return -1;
  }
  return count;
}

bool tensor_int_values(const onnx::TensorProto& t, std::size_t max_elements,
                       std::vector<std::int64_t>* out) {
  const std::int64_t count = tensor_element_count(t);
  if (count < 0 || static_cast<std::size_t>(count) > max_elements || external(t)) return false;
  const auto n = static_cast<std::size_t>(count);
  out->clear();
  out->reserve(n);
  const std::string& raw = t.raw_data();
  auto from_raw = [&](auto tag) {
    using T = decltype(tag);
    if (raw.size() != n * sizeof(T)) return false;
    for (std::size_t k = 0; k < n; ++k)
      out->push_back(static_cast<std::int64_t>(load_le<T>(raw.data() + k * sizeof(T))));
    return true;
  };
  const bool has_raw = t.has_raw_data();
  switch (t.data_type()) {
    case onnx::TensorProto::INT64:
      if (has_raw) return from_raw(std::int64_t{});
      if (t.int64_data_size() != static_cast<int>(n)) return false;
      out->assign(t.int64_data().begin(), t.int64_data().end());
      return true;
    case onnx::TensorProto::UINT64:
      if (has_raw) return from_raw(std::uint64_t{});
      if (t.uint64_data_size() != static_cast<int>(n)) return false;
      for (std::uint64_t v : t.uint64_data()) out->push_back(static_cast<std::int64_t>(v));
      return true;
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::BOOL:
      if (has_raw) {
        switch (t.data_type()) {
          case onnx::TensorProto::INT32:
            return from_raw(std::int32_t{});
          case onnx::TensorProto::INT16:
            return from_raw(std::int16_t{});
          case onnx::TensorProto::INT8:
            return from_raw(std::int8_t{});
          case onnx::TensorProto::UINT16:
            return from_raw(std::uint16_t{});
          default:
            return from_raw(std::uint8_t{});
        }
      }
      if (t.int32_data_size() != static_cast<int>(n)) return false;
      out->assign(t.int32_data().begin(), t.int32_data().end());
      return true;
    case onnx::TensorProto::UINT32:
      if (has_raw) return from_raw(std::uint32_t{});
      if (t.uint64_data_size() != static_cast<int>(n)) return false;
      for (std::uint64_t v : t.uint64_data()) out->push_back(static_cast<std::int64_t>(v));
      return true;
    default:
      return false;
  }
}

bool tensor_float_values(const onnx::TensorProto& t, std::size_t max_elements,
                         std::vector<double>* out) {
  const std::int64_t count = tensor_element_count(t);
  if (count < 0 || static_cast<std::size_t>(count) > max_elements || external(t)) return false;
  const auto n = static_cast<std::size_t>(count);
  out->clear();
  out->reserve(n);
  const std::string& raw = t.raw_data();
  const bool has_raw = t.has_raw_data();
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      if (has_raw) {
        if (raw.size() != n * 4) return false;
        for (std::size_t k = 0; k < n; ++k) out->push_back(load_le<float>(raw.data() + 4 * k));
        return true;
      }
      if (t.float_data_size() != static_cast<int>(n)) return false;
      out->assign(t.float_data().begin(), t.float_data().end());
      return true;
    case onnx::TensorProto::DOUBLE:
      if (has_raw) {
        if (raw.size() != n * 8) return false;
        for (std::size_t k = 0; k < n; ++k) out->push_back(load_le<double>(raw.data() + 8 * k));
        return true;
      }
      if (t.double_data_size() != static_cast<int>(n)) return false;
      out->assign(t.double_data().begin(), t.double_data().end());
      return true;
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16: {
      const bool half = t.data_type() == onnx::TensorProto::FLOAT16;
      auto convert = [&](std::uint16_t bits) {
        return half ? half_to_double(bits) : bfloat16_to_double(bits);
      };
      if (has_raw) {
        if (raw.size() != n * 2) return false;
        for (std::size_t k = 0; k < n; ++k)
          out->push_back(convert(load_le<std::uint16_t>(raw.data() + 2 * k)));
        return true;
      }
      if (t.int32_data_size() != static_cast<int>(n)) return false;
      for (std::int32_t v : t.int32_data()) out->push_back(convert(static_cast<std::uint16_t>(v)));
      return true;
    }
    default:
      return false;
  }
}

}  // namespace cctx
