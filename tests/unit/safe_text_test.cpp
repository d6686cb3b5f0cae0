// The sanitisers of model text (cctx/safe_text.hpp), byte by byte: UTF-8 edge cases (overlong
// forms, surrogates, beyond U+10FFFF, truncated sequences), what each output kind escapes or
// replaces, and that plain text passes through unchanged.
#include "cctx/safe_text.hpp"

#include <gtest/gtest.h>

namespace cctx::safe_text {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";

TEST(SafeTextUtf8, WellFormedSequencesAreKept) {
  for (const std::string s : {"", "plain", "caf\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
                              "\xF4\x8F\xBF\xBF", "\xED\x9F\xBF", "\xEE\x80\x80"}) {
    EXPECT_TRUE(is_utf8(s)) << s;
    EXPECT_EQ(utf8(s), s);
  }
}

TEST(SafeTextUtf8, EveryMalformedByteBecomesOneReplacement) {
  const std::pair<std::string, std::string> cases[] = {
      {"\xFF", kReplacement},
      {"a\xC0\x80", "a" + kReplacement + kReplacement},              // overlong NUL
      {"\xE0\x80\xAF", kReplacement + kReplacement + kReplacement},  // overlong '/'
      {"\xED\xA0\x80", kReplacement + kReplacement + kReplacement},  // a surrogate
      {"\xF4\x90\x80\x80",
       kReplacement + kReplacement + kReplacement + kReplacement},  // > U+10FFFF
      {"\xE2\x82", kReplacement + kReplacement},                    // truncated at the end
      {"\xE2\x82z", kReplacement + kReplacement + "z"},             // truncated inside
      {"\x80z", kReplacement + "z"},                                // a lone continuation
  };
  for (const auto& [in, expected] : cases) {
    EXPECT_FALSE(is_utf8(in));
    EXPECT_EQ(utf8(in), expected);
    EXPECT_TRUE(is_utf8(utf8(in)));
  }
}

TEST(SafeTextTerminal, ControlsAreSpelledOut) {
  EXPECT_EQ(terminal("plain text"), "plain text");
  EXPECT_EQ(terminal("\x1b]0;title\x07"), "\\x1b]0;title\\x07");
  EXPECT_EQ(terminal(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(terminal("tab\tdel\x7f"), "tab\\x09del\\x7f");
  EXPECT_EQ(terminal("c1\xC2\x9B"
                     "31m"),
            "c1\\u009b31m");
  EXPECT_EQ(terminal("abc\xE2\x80\xAE"
                     "cba"),
            "abc\\u202ecba");
  EXPECT_EQ(terminal("\xE2\x81\xA6x\xE2\x81\xA9"), "\\u2066x\\u2069");
  EXPECT_EQ(terminal("bad\xFF\xFE"), "bad\\xff\\xfe");
  EXPECT_EQ(terminal("caf\xC3\xA9 \xE2\x82\xAC"), "caf\xC3\xA9 \xE2\x82\xAC");  // kept
}

TEST(SafeTextTerminal, NewlinesAreKeptOnlyWhenAsked) {
  EXPECT_EQ(terminal("one\ntwo"), "one\\x0atwo");
  EXPECT_EQ(terminal("one\ntwo\x1b", Lines::kKeep), "one\ntwo\\x1b");
  EXPECT_EQ(terminal("one\r\n", Lines::kKeep), "one\\x0d\n");
}

TEST(SafeTextTerminal, EscapedTextIsLeftAsItIs) {
  // Escaping twice changes nothing: outputs may pass through it at more than one layer.
  const std::string once = terminal("\x1b[2J\xFF\xC2\x9B");
  EXPECT_EQ(terminal(once), once);
}

TEST(SafeTextXml, SpecialsAndForbiddenCharacters) {
  EXPECT_EQ(xml("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;");
  EXPECT_EQ(xml("Op\x1b[31m"), "Op\\x1b[31m");
  EXPECT_EQ(xml(std::string("\0", 1)), "\\x00");
  EXPECT_EQ(xml("\xEF\xBF\xBE\xEF\xBF\xBF"), "\\ufffe\\uffff");  // not XML characters
  EXPECT_EQ(xml("\xFF"), "\\xff");
  EXPECT_EQ(xml("caf\xC3\xA9"), "caf\xC3\xA9");
}

TEST(SafeTextCsv, QuotingFollowsRfc4180) {
  EXPECT_EQ(csv("plain"), "plain");
  EXPECT_EQ(csv(""), "");
  EXPECT_EQ(csv("a,b"), "\"a,b\"");
  EXPECT_EQ(csv("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv("cr\rhere"), "\"cr\rhere\"");
}

TEST(SafeTextCsv, FormulasAreNeutralisedNumbersAreNot) {
  EXPECT_EQ(csv("=cmd|' /C calc'!A0"), "'=cmd|' /C calc'!A0");
  EXPECT_EQ(csv("+1+1"), "'+1+1");
  EXPECT_EQ(csv("-N+5"), "'-N+5");
  EXPECT_EQ(csv("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(csv("\tx"), "'\tx");
  EXPECT_EQ(csv("\rx"), "\"'\rx\"");
  EXPECT_EQ(csv("=a,b"), "\"'=a,b\"");
  for (const std::string number : {"-5", "+5", "-1.5", "-.5", "1e9", "-2E-3", "+0"}) {
    EXPECT_EQ(csv(number), number);
  }
  for (const std::string text : {"-", "+", "-e5", "-1e", "-1.2.3", "- 1"}) {
    EXPECT_EQ(csv(text), "'" + text);
  }
}

TEST(SafeTextCsv, NoNulNoMalformedBytes) {
  EXPECT_EQ(csv(std::string("a\0b", 3)), "a" + kReplacement + "b");
  EXPECT_EQ(csv("\x1b[2J"), kReplacement + "[2J");
  EXPECT_EQ(csv("bad\xFF"), "bad" + kReplacement);
  EXPECT_EQ(csv("tab\tkept"), "tab\tkept");
}

TEST(SafeTextJson, InvalidUtf8IsReplacedNotThrown) {
  const nlohmann::json j = {{"name", "bad\xFF"}, {"ok", "caf\xC3\xA9"}};
  EXPECT_EQ(json(j), "{\"name\":\"bad" + kReplacement + "\",\"ok\":\"caf\xC3\xA9\"}");
  EXPECT_EQ(json(nlohmann::json("\x1b")), "\"\\u001b\"");
}

}  // namespace
}  // namespace cctx::safe_text
