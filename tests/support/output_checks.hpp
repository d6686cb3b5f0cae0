// Checks that an output is well-formed whatever the model's names hold: shared by the tests of
// each output kind (tests/cli/model_text_test.cpp) and the writers' fuzz target
// (tests/fuzz/fuzz_writers.cpp). Each returns "" when the text passes, else what is wrong.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cctx::test {

/// JSON that a strict parser accepts (valid UTF-8 included).
std::string json_problem(std::string_view text);
/// A well-formed XML 1.0 document (libxml2, no network, no entity expansion).
std::string xml_problem(std::string_view text);
/// An HTML page that libxml2's HTML parser reads, holding only characters XML 1.0 allows, whose
/// embedded table data (`<script type="application/json" id="cctx-data">`) is valid JSON.
std::string html_problem(std::string_view text);
/// RFC 4180 CSV whose every record has `columns` fields, valid UTF-8 without NUL, and no cell
/// that a spreadsheet would run (starting with = + - @ tab or CR, unless a number).
std::string csv_problem(std::string_view text, std::size_t columns);
/// Terminal text: valid UTF-8, no control character but newline, no DEL, no C1 control, no bidi
/// formatting character.
std::string terminal_problem(std::string_view text);

}  // namespace cctx::test
