// SPDX-License-Identifier: Apache-2.0
// OpenAI and native JSON, both directions.
#include <gtest/gtest.h>

#include "generators.hpp"
#include "ocml/convert.hpp"
#include "support.hpp"

using ocml::json;

namespace {

const char* kTranscript =
    "<|start|>user<|message|>Weather in Tokyo?<|end|>"
    "<|start|>assistant<|channel|>analysis<|message|>Need the tool.<|end|>"
    "<|start|>assistant to=functions.get_weather "
    "call_id=c1<|channel|>commentary<|constrain|>json<|message|>{\"city\":\"Tokyo\"}<|call|>"
    "<|start|>tool name=functions.get_weather call_id=c1 "
    "to=assistant<|channel|>commentary<|message|>{\"t\":20}<|end|>"
    "<|start|>assistant<|channel|>analysis<|message|>Got it.<|end|>"
    "<|start|>assistant<|channel|>final<|message|>20 °C.<|return|>";

TEST(OpenAI, GroupsAssistantTurns) {
  const auto r = ocml::parse(kTranscript, {});
  ASSERT_TRUE(r.ok());
  const json j = ocml::to_openai_json(r.conversation, {});
  const json expected = json::parse(R"({"messages":[
    {"role":"user","content":"Weather in Tokyo?"},
    {"role":"assistant","content":null,"reasoning_content":"Need the tool.",
     "tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Tokyo\"}"}}]},
    {"role":"tool","tool_call_id":"c1","name":"get_weather","content":"{\"t\":20}"},
    {"role":"assistant","content":"20 °C.","reasoning_content":"Got it."}]})");
  EXPECT_EQ(j, expected);
}

TEST(OpenAI, ThinkingKeyFor20) {
  const auto r = ocml::parse(kTranscript, {});
  const json j = ocml::to_openai_json(r.conversation, {.reasoning_key = "thinking"});
  EXPECT_EQ(j["messages"][1]["thinking"], "Need the tool.");
  EXPECT_FALSE(j["messages"][1].contains("reasoning_content"));
}

TEST(OpenAI, ImportRebuildsTheMarkupMessages) {
  const auto r = ocml::parse(kTranscript, {});
  const json j = ocml::to_openai_json(r.conversation, {});
  auto back = ocml::from_openai_json(j);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  ASSERT_EQ(back->messages.size(), r.conversation.messages.size());
  for (std::size_t i = 0; i < back->messages.size(); ++i) {
    const auto& a = back->messages[i];
    const auto& b = r.conversation.messages[i];
    EXPECT_EQ(a.role, b.role) << i;
    EXPECT_EQ(a.effective_channel(), b.effective_channel()) << i;
    EXPECT_EQ(a.recipient, b.recipient) << i;
    EXPECT_EQ(a.call_id, b.call_id) << i;
    EXPECT_EQ(a.content, b.content) << i;
    EXPECT_EQ(a.name, b.name) << i;
    EXPECT_EQ(a.constrain, b.constrain) << i;
  }
  // And projecting again gives the same OpenAI JSON.
  EXPECT_EQ(ocml::to_openai_json(*back, {}), j);
}

TEST(OpenAI, ToolNameFromCallIdAndObjectArguments) {
  const json j = json::parse(
      R"({"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],
    "messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":{"x":1}}}]},
                {"role":"tool","tool_call_id":"a","content":[{"type":"text","text":"ok"}]}]})");
  auto c = ocml::from_openai_json(j);
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->tools.size(), 1u);
  EXPECT_EQ(c->messages[0].content, "{\"x\":1}");
  EXPECT_EQ(c->messages[1].call_id, "a");
  EXPECT_EQ(c->messages[1].content, "ok");
  // The reply names no tool: harmony, which writes the tool as the author, takes the name
  // of the call it answers.
  auto text = ocml::render(*c, {.dialect = ocml::dialect::harmony});
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("<|start|>functions.f to=assistant<|channel|>commentary<|message|>ok"),
            std::string::npos);
}

TEST(OpenAI, BadInputGivesAPreciseError) {
  auto a = ocml::from_openai_json(json::parse(R"({"messages":[{"role":"robot","content":"x"}]})"));
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().code, ocml::error_code::invalid_json);
  EXPECT_NE(a.error().message.find("messages[0].role"), std::string::npos);
  auto b = ocml::parse_json_text("{\n  \"messages\": [,]\n}");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().line, 2u);
}

TEST(Native, LosslessRoundTrip) {
  for (auto d : {ocml::dialect::ocml_2_2, ocml::dialect::harmony}) {
    ocml::test::conversation_generator gen(3);
    for (int i = 0; i < 500; ++i) {
      const auto c = gen.make(d);
      auto back = ocml::from_native_json(json::parse(ocml::dump_json(ocml::to_native_json(c))));
      ASSERT_TRUE(back.ok()) << back.error().to_string();
      ASSERT_EQ(*back, c);
    }
  }
}

TEST(Native, FormatDetection) {
  EXPECT_EQ(
      ocml::detect_json_format(json::parse(
          R"({"messages":[{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f"}}]}]})")),
      ocml::json_format::openai);
  EXPECT_EQ(ocml::detect_json_format(
                json::parse(R"({"messages":[{"role":"user","content":"x","end":"end"}]})")),
            ocml::json_format::native);
  EXPECT_EQ(ocml::detect_json_format(json::parse(
                R"({"messages":[{"role":"system","content":[{"type":"system_content"}]}]})")),
            ocml::json_format::harmony);
}

}  // namespace

namespace {

TEST(Shapes, GroupedAndSplitFormsAreInverse) {
  const auto r = ocml::parse(kTranscript, {});
  const auto g = ocml::grouped_form(r.conversation);
  ASSERT_EQ(g.messages.size(), 4u);
  EXPECT_EQ(g.messages[1].reasoning, "Need the tool.");
  ASSERT_EQ(g.messages[1].tool_calls.size(), 1u);
  EXPECT_EQ(g.messages[1].tool_calls[0].name, "get_weather");
  EXPECT_EQ(g.messages[1].tool_calls[0].id, "c1");
  EXPECT_EQ(g.messages[2].name, "get_weather");
  EXPECT_EQ(g.messages[3].content, "20 °C.");
  EXPECT_EQ(g.messages[3].reasoning, "Got it.");
  // grouped_form is idempotent, and split_form brings the 2.x messages back.
  EXPECT_EQ(ocml::grouped_form(g), g);
  const auto s = ocml::split_form(g);
  ASSERT_EQ(s.messages.size(), r.conversation.messages.size());
  for (std::size_t i = 0; i < s.messages.size(); ++i) {
    EXPECT_EQ(s.messages[i].content, r.conversation.messages[i].content) << i;
    EXPECT_EQ(s.messages[i].recipient, r.conversation.messages[i].recipient) << i;
    EXPECT_EQ(s.messages[i].call_id, r.conversation.messages[i].call_id) << i;
    EXPECT_EQ(s.messages[i].effective_channel(), r.conversation.messages[i].effective_channel())
        << i;
  }
}

TEST(Native, EmbeddedReasoningAndToolCallsRoundTrip) {
  ocml::conversation c;
  ocml::message m;
  m.role = ocml::role::assistant;
  m.reasoning = "think";
  m.content = "x";
  m.tool_calls = {{"id1", "f", "{\"a\":1}"}, {"", "g", "not json"}};
  c.messages.push_back(m);
  const json j = ocml::to_native_json(c);
  EXPECT_EQ(ocml::detect_json_format(j), ocml::json_format::native);
  auto back = ocml::from_native_json(j);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, c);
}

}  // namespace

// The public readers the CLI uses instead of internals (issue 24, part 1).
TEST(Interchange, ToolsFromJsonAndRepairUtf8) {
  auto tools = ocml::tools_from_json(*ocml::parse_json_text(
      R"([{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}},
          {"name": "g"}])"));
  ASSERT_TRUE(tools) << tools.error().to_string();
  ASSERT_EQ(tools->size(), 2u);
  EXPECT_EQ((*tools)[0].name, "f");
  EXPECT_EQ((*tools)[1].name, "g");
  auto bad = ocml::tools_from_json(*ocml::parse_json_text(R"({"name": "f"})"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ocml::error_code::invalid_json);
  bool repaired = false;
  EXPECT_EQ(ocml::repair_utf8("a\xff"
                              "b",
                              &repaired),
            "a\xef\xbf\xbd"
            "b");
  EXPECT_TRUE(repaired);
  EXPECT_EQ(ocml::repair_utf8("\xc3\xa9", &repaired), "\xc3\xa9");
  EXPECT_FALSE(repaired);
}

// A library user gets what `ocml render --jsonl` does (issue 24, part 2): the request's own
// options, the one-pass ChatML path, and the batch line the CLI writes.
TEST(Interchange, RenderJsonTakesTheRequestsOptionsAndWritesTheCliLine) {
  const std::string req =
      R"({"messages": [{"role": "user", "content": "Hi"}], "add_generation_prompt": true})";
  const ocml::json_render_options chatml{.render = {.dialect = ocml::dialect::chatml}};
  const auto with = ocml::render_json(req, chatml);
  ASSERT_TRUE(with.ok());
  EXPECT_TRUE(with.text.ends_with("<|im_start|>assistant\n")) << with.text;
  ocml::json_render_options ignore = chatml;
  ignore.request_options = false;
  const auto without = ocml::render_json(req, ignore);
  ASSERT_TRUE(without.ok());
  EXPECT_TRUE(without.text.ends_with("Hi<|im_end|>\n")) << without.text;
  const std::string cases[] = {
      req,
      R"({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Yo"}],
          "continue_final_message": true})",
      R"({"messages": [{"role": "user", "content": "é\n", "channel": "final"}]})",  // native
      R"({"messages": [{"role": "assistant", "content": null, "tool_calls": [{"id": "c1",
          "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}}]}]})",
      R"({"messages": [{"role": "bot", "content": "x"}]})",  // an error
  };
  // The options as the request spells them, read by the one-pass reader or (a repeated key,
  // which it declines) by simdjson, which takes the first: the same options either way.
  const std::string msgs = R"("messages": [{"role": "user", "content": "Hi"}])";
  const std::pair<std::string, std::string> spellings[] = {
      {"{" + msgs + R"(, "chat_template_kwargs" : {"enable_thinking": false}  })",
       "<think>\n\n</think>\n\n"},
      {"{" + msgs + R"(, "add_generation_prompt": true, "add_generation_prompt": false})",
       "<|im_start|>assistant\n"},
      {"{" + msgs + R"(, "x": {"a": [1, {"b": "}"}]}, "add_generation_prompt": true})",
       "<|im_start|>assistant\n"},
      {"{" + msgs + R"(, "add_generation_prompt": "yes"})",  // not a bool: the option stays
       "<|im_start|>assistant\n"},
      {"{" + msgs + R"(, "add_generation_prompt": false})", "Hi<|im_end|>\n"},
  };
  for (const auto& [request, ending] : spellings) {
    const auto r = ocml::render_json(
        request, {.render = {.dialect = ocml::dialect::qwen3, .add_generation_prompt = true}});
    ASSERT_TRUE(r.ok()) << request;
    EXPECT_TRUE(r.text.ends_with(ending)) << request << "\n" << r.text;
  }
  for (const ocml::dialect d : {ocml::dialect::chatml, ocml::dialect::qwen3}) {
    for (const auto& c : cases) {
      const ocml::json_render_options o{.render = {.dialect = d}};
      const auto whole = ocml::render_json(c, o);
      ocml::text_buffer line;
      std::vector<ocml::diagnostic> diags;
      ocml::render_json_line(c, o, line, diags);
      EXPECT_EQ(diags.size(), whole.diagnostics.size()) << c;
      if (whole.ok()) {
        EXPECT_EQ(line.view(), ocml::dump_json(ocml::json{{"text", whole.text}})) << c;
      } else {
        EXPECT_EQ(line.view(), "") << c;
      }
    }
  }
}
