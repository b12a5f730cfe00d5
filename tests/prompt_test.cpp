// SPDX-License-Identifier: Apache-2.0
// Prompt building: generation prompts, chain-of-thought handling, truncation.
#include <gtest/gtest.h>

#include "ocml/prompt.hpp"
#include "support.hpp"

namespace {

using ocml::role;

using ocml::test::msg;

std::string ends(const std::string& s, std::size_t n) {
  return s.substr(s.size() - n);
}

TEST(Prompt, GenerationPromptPerDialect) {
  ocml::conversation c;
  c.messages.push_back(msg(role::user, "Hi"));
  const auto gen = [&c](ocml::dialect d, bool think = false) {
    auto p = ocml::build_prompt(c, {.dialect = d, .think = think});
    EXPECT_TRUE(p.ok());
    return p.ok() ? p->text : std::string();
  };
  EXPECT_EQ(ends(gen(ocml::dialect::ocml_2_2), 18), "<|start|>assistant");
  EXPECT_EQ(ends(gen(ocml::dialect::harmony), 18), "<|start|>assistant");
  EXPECT_EQ(ends(gen(ocml::dialect::chatml), 22), "<|im_start|>assistant\n");
  EXPECT_EQ(ends(gen(ocml::dialect::pcml), 5), "[AST]");
  EXPECT_EQ(gen(ocml::dialect::gabgpt), "<|user|>Hi<|assistant|>");
  EXPECT_EQ(gen(ocml::dialect::gabgpt, true), "<|user|>Hi<|think|>");
  EXPECT_EQ(ocml::stop_sequences(ocml::dialect::harmony),
            (std::vector<std::string>{"<|return|>", "<|call|>"}));
}

TEST(Prompt, AnalysisOfAnsweredTurnsIsDropped) {
  ocml::conversation c;
  c.messages = {msg(role::user, "Q1"),
                msg(role::assistant, "old thoughts", "analysis"),
                msg(role::assistant, "A1", "final"),
                msg(role::user, "Q2"),
                msg(role::assistant, "need a tool", "analysis"),
                msg(role::assistant, "{}", "commentary", "functions.f"),
                msg(role::tool, "{\"ok\":true}", "commentary")};
  c.messages.back().name = "functions.f";
  auto p = ocml::build_prompt(c, {.dialect = ocml::dialect::ocml_2_2});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->dropped_reasoning, 1u);
  EXPECT_EQ(p->text.find("old thoughts"), std::string::npos);
  EXPECT_NE(p->text.find("need a tool"), std::string::npos);  // leads to an unresolved call
  auto keep = ocml::build_prompt(c, {.dialect = ocml::dialect::ocml_2_2, .keep_reasoning = true});
  ASSERT_TRUE(keep.ok());
  EXPECT_NE(keep->text.find("old thoughts"), std::string::npos);
}

TEST(Prompt, InMessageReasoningOfAnsweredTurnsIsDropped) {
  ocml::conversation c;
  c.messages = {msg(role::user, "Q1"), msg(role::assistant, "A1"), msg(role::user, "Q2")};
  c.messages[1].reasoning = "old reasoning";
  auto p = ocml::build_prompt(c, {.dialect = ocml::dialect::pcml});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->dropped_reasoning, 1u);
  EXPECT_EQ(p->text.find("old reasoning"), std::string::npos);
  EXPECT_NE(p->text.find("A1"), std::string::npos);
}

TEST(Prompt, TruncationKeepsSystemAndWholeRecentTurns) {
  ocml::conversation c;
  c.messages.push_back(msg(role::system, "You are terse."));
  for (int i = 0; i < 50; ++i) {
    c.messages.push_back(msg(role::user, "question number " + std::to_string(i)));
    c.messages.push_back(msg(role::assistant, "answer number " + std::to_string(i), "final"));
  }
  c.messages.push_back(msg(role::user, "final question"));
  // A cost in "tokens": whitespace-separated words.
  const ocml::cost_function words = [](std::string_view s) {
    std::size_t n = 0;
    bool in = false;
    for (const char ch : s) {
      const bool space = ch == ' ' || ch == '\n';
      if (!space && !in) ++n;
      in = !space;
    }
    return n;
  };
  auto p = ocml::build_prompt(c, {.dialect = ocml::dialect::chatml, .budget = 60, .cost = words});
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_LE(p->cost, 60u);
  EXPECT_EQ(p->cost, words(p->text));
  EXPECT_NE(p->text.find("You are terse."), std::string::npos);
  EXPECT_NE(p->text.find("final question"), std::string::npos);
  EXPECT_NE(p->text.find("answer number 49"), std::string::npos);
  EXPECT_EQ(p->text.find("question number 0\n"), std::string::npos);
  EXPECT_GT(p->dropped_messages, 0u);
  EXPECT_EQ(p->dropped_messages % 2, 0u);  // whole turns: a question with its answer
  // One more turn would not have fitted.
  auto bigger = ocml::build_prompt(
      c, {.dialect = ocml::dialect::chatml, .budget = p->cost + 1, .cost = words});
  ASSERT_TRUE(bigger.ok());
  EXPECT_EQ(bigger->dropped_messages, p->dropped_messages);
}

TEST(Prompt, BudgetTooSmallForTheLastTurn) {
  ocml::conversation c;
  c.messages.push_back(msg(role::user, std::string(500, 'x')));
  auto p = ocml::build_prompt(c, {.dialect = ocml::dialect::chatml, .budget = 100});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, ocml::error_code::limit_exceeded);
}

}  // namespace
