// Small helpers shared by the report tests: files, shell quoting, counting and cutting text.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "test_env.hpp"  // quoted, read_file, write_file

namespace cctx::test {

/// Non-overlapping occurrences of `needle` in `text`.
std::size_t count(std::string_view text, std::string_view needle);
/// The value of every `attribute="..."` in `text`, in order.
std::vector<std::string> attribute_values(std::string_view text, std::string_view attribute);
/// The text between the first `open` and the next `close` ("" when absent).
std::string between(std::string_view text, std::string_view open, std::string_view close);
/// Numbers separated by spaces ("96 128 128").
std::vector<double> numbers(const std::string& text);

}  // namespace cctx::test
