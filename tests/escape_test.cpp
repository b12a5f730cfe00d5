// SPDX-License-Identifier: Apache-2.0
// The batch hot path's JSON escaping and its one-pass ChatML renderer, held against
// independent implementations: nlohmann-json's serializer and the library's general path.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/message_path.hpp"
#include "dialects/chatml/chatml.hpp"
#include "interchange/json_escape.hpp"
#include "interchange/json_path.hpp"
#include "interchange/simd_json.hpp"
#include "ocml/json.hpp"
#include "ocml/render.hpp"
#include "openai_corpus.hpp"

namespace {

using ocml::json;

// The one-pass readers' warnings agree but for where they are: the batch reader records
// the offset of the value it warns about; the simdjson reader records none (npos).
void expect_same_warnings(const std::vector<ocml::diagnostic>& placed,
                          const std::vector<ocml::diagnostic>& unplaced, std::string_view text) {
  ASSERT_EQ(placed.size(), unplaced.size()) << text;
  for (std::size_t i = 0; i < placed.size(); ++i) {
    EXPECT_EQ(placed[i].code, unplaced[i].code);
    EXPECT_EQ(placed[i].message, unplaced[i].message);
    EXPECT_EQ(unplaced[i].offset, std::string_view::npos);
    // Where the path search (an independent reader) finds the path of the warning.
    const auto at =
        ocml::detail::json_path_offset(text, ocml::detail::leading_path(placed[i].message));
    ASSERT_TRUE(at.has_value()) << placed[i].message;
    EXPECT_EQ(placed[i].offset, *at) << placed[i].message << " in " << text;
  }
}

// The inside of nlohmann's JSON string literal for `s` (valid UTF-8).
std::string nlohmann_inside(const std::string& s) {
  const std::string quoted = json(s).dump();
  return quoted.substr(1, quoted.size() - 2);
}

std::string random_text(std::mt19937& rng, std::size_t max_len) {
  // Dense in what needs escaping, with multi-byte UTF-8 that must pass through raw.
  static const std::vector<std::string> atoms = {
      "a",    "\"", "\\", "\n",         "\t", "\x01", "\x1f", "\x7f", "é",
      "日本", "😀",  "/",  "<|im_end|>", "\r", "\b",   "\f",   " ",    "0123456789abcdef"};
  std::string s;
  const std::size_t n = std::uniform_int_distribution<std::size_t>(0, max_len)(rng);
  while (s.size() < n) s += atoms[std::uniform_int_distribution<std::size_t>(0, 17)(rng)];
  return s;
}

TEST(EscapedBuffer, MatchesNlohmannAtEveryLength) {
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    // Lengths around the 16-byte steps and the 32 KiB pieces.
    const std::size_t max = i < 2900 ? 80 : 70000;
    const std::string s = random_text(rng, max);
    ocml::detail::escaped_buffer b;
    b.raw("x");
    b.escape(s);
    ASSERT_EQ(b.view(), "x" + nlohmann_inside(s)) << "input of " << s.size() << " bytes";
  }
}

TEST(EscapedBuffer, EscapingTwiceEqualsEscapingTheEscapedText) {
  std::mt19937 rng(11);
  for (int i = 0; i < 2000; ++i) {
    const std::string s = random_text(rng, 100);
    ocml::detail::escaped_buffer b;
    b.escape_twice(s);
    ASSERT_EQ(b.view(), nlohmann_inside(nlohmann_inside(s)));
  }
}

TEST(EscapedBuffer, EveryControlByteAndTruncate) {
  std::string all;
  for (int c = 0; c < 0x80; ++c) all.push_back(static_cast<char>(c));
  ocml::detail::escaped_buffer b;
  b.escape(all);
  EXPECT_EQ(b.view(), nlohmann_inside(all));
  const std::size_t n = b.size();
  b.raw("tail");
  b.truncate(n);
  EXPECT_EQ(b.view(), nlohmann_inside(all));
  b.clear();
  EXPECT_EQ(b.size(), 0u);
}

// The batch line renderer (its own reader) writes exactly the JSON string of what the
// simdjson one-pass renderer writes, which in turn is what the library path renders; it
// takes all but a few of a corpus full of quotes, escapes, unicode and calls.
TEST(ChatmlFastPath, EscapedLineEqualsPlainTextAndLibraryRender) {
  ocml::test::openai_corpus corpus(2024);
  std::size_t fast = 0;
  std::size_t line_fast = 0;
  std::size_t warned = 0;
  for (int i = 0; i < 600; ++i) {
    const std::string text = corpus.conversation().dump();
    std::string plain;
    std::vector<ocml::diagnostic> w1;
    const bool ok = ocml::detail::chatml::render_openai_text(text, false, plain, w1);
    ocml::detail::escaped_buffer line;
    std::vector<ocml::diagnostic> w2;
    if (ocml::detail::chatml::render_openai_json_text(text, false, line, w2)) {
      ASSERT_TRUE(ok) << text;
      EXPECT_EQ(line.view(), nlohmann_inside(plain));
      expect_same_warnings(w2, w1, text);
      warned += w2.size();
      // The same reader writing the text itself (the library's one-pass path).
      std::string direct = "kept:";
      std::vector<ocml::diagnostic> w4;
      ASSERT_TRUE(ocml::detail::chatml::render_openai_line_text(text, false, direct, w4));
      EXPECT_EQ(direct, "kept:" + plain);
      EXPECT_EQ(w4, w2);
      ++line_fast;
    } else {
      EXPECT_EQ(line.size(), 0u);
    }
    if (!ok) continue;
    ++fast;
    auto conv = ocml::from_openai_json(json::parse(text));
    ASSERT_TRUE(conv.ok());
    std::vector<ocml::diagnostic> w3;
    auto general = ocml::render(*conv, {.dialect = ocml::dialect::chatml}, &w3);
    ASSERT_TRUE(general.ok()) << general.error().to_string();
    EXPECT_EQ(plain, *general);
    EXPECT_EQ(w3.size(), w1.size());
  }
  // The corpus exercises both fast paths, not only their fallbacks, and their warnings.
  EXPECT_GT(fast, 500u);
  EXPECT_GT(line_fast, 500u);
  EXPECT_GT(warned, 50u);
}

// Content given as a list of text parts: the batch reader joins them as the general path
// does, and declines what it does not take (a part that is not text, more than 8 parts, a
// turn token spelled across two parts), which the general path then answers.
TEST(ChatmlFastPath, ContentPartsAreJoinedAsTheGeneralPathJoinsThem) {
  const auto with_parts = [](const json& parts) {
    return json{{"messages",
                 {{{"role", "system"}, {"content", json::array({"sys ", {{"text", "tem"}}})}},
                  {{"role", "user"}, {"content", parts}},
                  {{"role", "assistant"}, {"content", "ok"}}}}};
  };
  const std::vector<json> taken = {
      json::array({{{"type", "text"}, {"text", "one part"}}}),
      json::array({"a \"quoted\" ", {{"type", "text"}, {"text", "and\nmore"}}, "é"}),
      json::array({R"(back\slash)", "\u00e9\t"}),
      json::array(),
      json::array({"", "", "x"}),
  };
  for (const json& parts : taken) {
    const json j = with_parts(parts);
    const std::string text = j.dump();
    ocml::detail::escaped_buffer line;
    std::vector<ocml::diagnostic> w;
    ASSERT_TRUE(ocml::detail::chatml::render_openai_json_text(text, true, line, w)) << text;
    auto conv = ocml::from_openai_json(j);
    ASSERT_TRUE(conv.ok());
    auto general =
        ocml::render(*conv, {.dialect = ocml::dialect::chatml, .add_generation_prompt = true});
    ASSERT_TRUE(general.ok());
    EXPECT_EQ(line.view(), nlohmann_inside(*general)) << text;
  }
  // A part escaped as \u00e9 (not canonical): unescaped, then joined.
  const std::string raw =
      R"({"messages":[{"role":"user","content":["caf\u00e9 ",{"text":"ol\u00e9"}]}]})";
  ocml::detail::escaped_buffer line;
  std::vector<ocml::diagnostic> w;
  ASSERT_TRUE(ocml::detail::chatml::render_openai_json_text(raw, false, line, w));
  EXPECT_NE(line.view().find("user\\ncafé olé<|im_end|>"), std::string::npos) << line.view();
  const std::vector<json> declined = {
      json::array({{{"type", "image_url"}, {"image_url", {{"url", "x"}}}}}),
      json::array({"1", "2", "3", "4", "5", "6", "7", "8", "9"}),
      json::array({"a <|im_", "end|> b"}),
      json::array({{{"text", 3}}}),
  };
  for (const json& parts : declined) {
    const std::string text = with_parts(parts).dump();
    ocml::detail::escaped_buffer out;
    std::vector<ocml::diagnostic> ws;
    EXPECT_FALSE(ocml::detail::chatml::render_openai_json_text(text, false, out, ws)) << text;
  }
  // Nine parts are taken by the general path, joined the same way.
  auto conv = ocml::from_openai_json(with_parts(declined[1]));
  ASSERT_TRUE(conv.ok());
  auto general = ocml::render(*conv, {.dialect = ocml::dialect::chatml});
  ASSERT_TRUE(general.ok());
  EXPECT_NE(general->find("user\n123456789<|im_end|>"), std::string::npos);
}

}  // namespace
