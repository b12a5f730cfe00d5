// SPDX-License-Identifier: Apache-2.0
// Display policy (2.2 §4-5, §11).
#include <gtest/gtest.h>

#include "support.hpp"

namespace {

TEST(Display, UserViewHidesEverythingButUserFinalAndPreambles) {
  const auto r = ocml::parse(
      "<|start|>system<|message|>sys<|end|><|start|>developer<|message|>dev<|end|>"
      "<|start|>user<|message|>question<|end|>"
      "<|start|>assistant<|channel|>analysis<|message|>secret thoughts<|end|>"
      "<|start|>assistant intent=preamble<|channel|>commentary<|message|>plan<|end|>"
      "<|start|>assistant<|channel|>commentary<|message|>raw commentary<|end|>"
      "<|start|>assistant to=functions.f<|channel|>commentary<|message|>{}<|call|>"
      "<|start|>tool name=functions.f<|channel|>commentary<|message|>tool out<|end|>"
      "<|start|>assistant<|channel|>final<|message|>answer<|return|>",
      {});
  ASSERT_TRUE(r.ok());
  const std::string user = ocml::render_view(r.conversation, {});
  EXPECT_EQ(user, "user: question\n\nassistant: plan\n\nassistant: answer\n\n");
  for (const char* hidden : {"sys", "dev", "secret", "raw commentary", "tool out", "{}"}) {
    EXPECT_EQ(user.find(hidden), std::string::npos) << hidden;
  }
  const std::string debug = ocml::render_view(r.conversation, {.debug = true});
  EXPECT_NE(debug.find("[hidden assistant/analysis] secret thoughts"), std::string::npos);
  EXPECT_NE(debug.find("[shown assistant/commentary intent=preamble] plan"), std::string::npos);
  EXPECT_NE(debug.find("[hidden functions.f/commentary] tool out"), std::string::npos);
}

// The bar of issue 30: a Qwen3 transcript with a think block, two calls and tools shows
// all of them in the debug view, each part marked hidden, with its name and arguments.
TEST(Display, DebugViewShowsReasoningCallsAndToolDeclarations) {
  const auto conv = ocml::from_openai_json(nlohmann::json::parse(R"({
    "tools": [
      {"type": "function", "function": {"name": "get_weather", "description": "Weather now.",
       "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}},
      {"type": "function", "function": {"name": "get_time", "description": "Local time.",
       "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}}}}],
    "messages": [
      {"role": "user", "content": "Weather and time in Paris?"},
      {"role": "assistant", "content": "", "reasoning_content": "Two tools are needed.",
       "tool_calls": [
         {"id": "a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
         {"id": "b", "type": "function", "function": {"name": "get_time", "arguments": "{\"tz\": \"CET\"}"}}]}]})"));
  ASSERT_TRUE(conv.ok()) << conv.error().to_string();
  const auto text = ocml::render(*conv, {.dialect = ocml::dialect::qwen3});
  ASSERT_TRUE(text.ok()) << text.error().to_string();
  const auto r = ocml::parse(*text, {.dialect = ocml::dialect::qwen3});
  ASSERT_TRUE(r.ok());
  const std::string v = ocml::render_view(r.conversation, {.debug = true});
  for (const char* want :
       {"[hidden tool declaration] get_weather: Weather now.",
        "[hidden tool declaration] get_time: Local time.",
        "parameters: {\"properties\":{\"city\":{\"type\":\"string\"}}",
        "[shown user] Weather and time in Paris?", "[hidden reasoning] Two tools are needed.",
        "[hidden tool call get_weather] {\"city\": \"Paris\"}",
        "[hidden tool call get_time] {\"tz\": \"CET\"}"}) {
    EXPECT_NE(v.find(want), std::string::npos) << want << "\n--- view\n" << v;
  }
  EXPECT_EQ(v.find("\x1b["), std::string::npos);  // no colour unless asked
  const std::string coloured = ocml::render_view(r.conversation, {.debug = true, .color = true});
  EXPECT_NE(coloured.find("\x1b[36m[hidden tool call get_weather]\x1b[0m"), std::string::npos)
      << coloured;
  // The user sees the question only: the assistant turn has no visible text.
  EXPECT_EQ(ocml::render_view(r.conversation, {}), "user: Weather and time in Paris?\n\n");
}

}  // namespace
