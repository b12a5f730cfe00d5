// SPDX-License-Identifier: Apache-2.0
// The malformed gpt-oss output seen in the wild: strict mode rejects it with a code,
// lenient mode recovers and reports each recovery as a warning.
#include <gtest/gtest.h>

#include "support.hpp"

using ocml::test::codes;

namespace {

struct wild_case {
  const char* name;
  const char* text;
  bool completion;
  const char* strict_code;
  const char* lenient_code;
  // Expected messages after lenient recovery: channel|content|end per message.
  std::vector<std::string> recovered;
};

std::string summary(const ocml::message& m) {
  return m.channel + "|" + m.content + "|" + std::string(ocml::end_name(m.end));
}

class Wild : public ::testing::TestWithParam<wild_case> {};

TEST_P(Wild, StrictRejectsWithCode) {
  const auto& c = GetParam();
  const auto r =
      ocml::parse(c.text, {.dialect = ocml::dialect::ocml_2_2, .completion = c.completion});
  EXPECT_FALSE(r.ok());
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(ocml::error_name(r.diagnostics[0].code), c.strict_code);
  EXPECT_EQ(r.diagnostics[0].level, ocml::severity::error);
}

TEST_P(Wild, LenientRecoversWithAWarning) {
  const auto& c = GetParam();
  for (auto d : {ocml::dialect::ocml_2_2, ocml::dialect::harmony}) {
    const auto r = ocml::parse(c.text, {.dialect = d, .lenient = true, .completion = c.completion});
    EXPECT_TRUE(r.ok()) << c.name;
    ASSERT_FALSE(r.diagnostics.empty()) << c.name;
    EXPECT_EQ(ocml::error_name(r.diagnostics[0].code), c.lenient_code);
    EXPECT_EQ(r.diagnostics[0].level, ocml::severity::warning);
    EXPECT_NE(r.diagnostics[0].message.find("recovered"), std::string::npos);
    std::vector<std::string> got;
    for (const auto& m : r.conversation.messages) got.push_back(summary(m));
    EXPECT_EQ(got, c.recovered);
    // The recovery does not depend on chunking either.
    for (std::size_t chunk : {1u, 2u, 7u}) {
      const auto rc = ocml::test::parse_chunked(
          c.text, {.dialect = d, .lenient = true, .completion = c.completion}, chunk);
      EXPECT_EQ(rc.conversation, r.conversation) << chunk;
      EXPECT_EQ(rc.diagnostics, r.diagnostics) << chunk;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    GptOss, Wild,
    ::testing::Values(
        wild_case{"doubled_start",
                  "<|start|>assistant<|start|>assistant<|channel|>final<|message|>Hi<|return|>",
                  false,
                  "E-PARSE-HEADER",
                  "E-PARSE-HEADER",
                  {"final|Hi|return"}},
        wild_case{"doubled_start_in_completion",
                  "<|start|>assistant<|channel|>final<|message|>Hi<|return|>",
                  true,
                  "E-PARSE-HEADER",
                  "E-PARSE-HEADER",
                  {"final|Hi|return"}},
        wild_case{"stray_return_after_end",
                  "<|start|>assistant<|channel|>final<|message|>Hi<|end|><|return|>",
                  false,
                  "E-PARSE-UNEXPECTED-TOKEN",
                  "E-PARSE-UNEXPECTED-TOKEN",
                  {"final|Hi|end"}},
        wild_case{"refusal_without_channel_or_message",
                  "<|start|>assistant I'm sorry, but I can't help with that.<|end|>",
                  false,
                  "E-PARSE-HEADER",
                  "E-PARSE-HEADER",
                  {"|I'm sorry, but I can't help with that.|end"}},
        wild_case{
            "final_constrain_json_with_prose",
            "<|start|>assistant<|channel|>final <|constrain|>json<|message|>Sure: 4<|return|>",
            false,
            "E-BODY-CONSTRAINT-VIOLATION",
            "E-BODY-CONSTRAINT-VIOLATION",
            {"final|Sure: 4|return"}},
        wild_case{"duplicated_to",
                  "<|start|>assistant to=functions.f<|channel|>commentary "
                  "to=functions.f<|message|>{}<|call|>",
                  false,
                  "E-PARSE-HEADER",
                  "E-PARSE-HEADER",
                  {"commentary|{}|call"}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Wild, ContentTypeAfterChannel) {
  const char* text =
      "<|start|>assistant to=functions.f<|channel|>commentary json<|message|>{}<|call|>";
  EXPECT_EQ(codes(ocml::parse(text, {})), std::vector<std::string>{"E-PARSE-HEADER"});
  const auto lenient = ocml::parse(text, {.lenient = true});
  ASSERT_TRUE(lenient.ok());
  EXPECT_EQ(lenient.diagnostics.size(), 1u);
  EXPECT_EQ(lenient.conversation.messages[0].content_type, "json");
  // Harmony's own grammar puts the content type there: no diagnostic at all.
  const auto harmony = ocml::parse(text, {.dialect = ocml::dialect::harmony});
  EXPECT_TRUE(harmony.diagnostics.empty());
  EXPECT_EQ(harmony.conversation.messages[0].content_type, "json");
}

TEST(Wild, StartInsideBodyClosesTheMessageInLenientMode) {
  const char* text =
      "<|start|>assistant<|channel|>analysis<|message|>thinking<|start|>assistant<|channel|>final<|"
      "message|>A<|return|>";
  EXPECT_EQ(codes(ocml::parse(text, {})), std::vector<std::string>{"E-PARSE-UNEXPECTED-TOKEN"});
  const auto r = ocml::parse(text, {.lenient = true});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.conversation.messages.size(), 2u);
  EXPECT_EQ(r.conversation.messages[0].end, ocml::end_token::unterminated);
  EXPECT_EQ(r.conversation.messages[1].content, "A");
}

TEST(Wild, StrayTextIsReportedNotSilentlyDropped) {
  const auto r20 =
      ocml::parse("<|start|>user<|message|>x<|end|>garbage<|start|>user<|message|>y<|end|>",
                  {.dialect = ocml::dialect::ocml_2_0, .lenient = true});
  ASSERT_EQ(codes(r20), std::vector<std::string>{"E-PARSE-STRAY-TEXT"});
  EXPECT_EQ(r20.diagnostics[0].offset, 32u);
  EXPECT_EQ(r20.conversation.messages.size(), 2u);
  const char* text = "garbage<|start|>user<|message|>x<|end|>";
  // Harmony keeps it: text outside a header is what gpt-oss wrote without one.
  const auto r = ocml::parse(text, {.dialect = ocml::dialect::harmony, .lenient = true});
  ASSERT_EQ(codes(r), std::vector<std::string>{"E-PARSE-STRAY-TEXT"});
  EXPECT_EQ(r.diagnostics[0].offset, 0u);
  ASSERT_EQ(r.conversation.messages.size(), 2u);
  EXPECT_EQ(r.conversation.messages[0].role, ocml::role::assistant);
  EXPECT_EQ(r.conversation.messages[0].content, "garbage");
  EXPECT_EQ(r.conversation.messages[1].content, "x");
}

}  // namespace
