// SPDX-License-Identifier: Apache-2.0
// -d model:PATH: a model's own chat template builds the prompt, its response template parses
// the completion while it streams, its eos_token stops it. Checked on the bundled example
// (examples/models/chatml-tools) and, when ../shared/reference is present, on Qwen3's real
// chat template.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ocml/json.hpp"
#include "ocml/model_format.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using ocml::json;

namespace {

const fs::path kExample = fs::path(OCML_SOURCE_DIR) / "examples" / "models" / "chatml-tools";

ocml::conversation weather_conversation() {
  auto c = ocml::from_openai_json(json::parse(R"({"messages": [
      {"role": "system", "content": "Be brief."},
      {"role": "user", "content": "Weather in Paris for 3 days?"}],
    "tools": [{"type": "function", "function": {"name": "get_weather",
      "description": "Forecast", "parameters": {"type": "object", "properties": {
        "city": {"type": "string"}, "days": {"type": "integer"}}}}}]})"));
  EXPECT_TRUE(c);
  return *c;
}

TEST(ModelFormat, LoadsBothTemplatesAndTheStop) {
  auto f = ocml::model_format::load(kExample.string());
  ASSERT_TRUE(f) << f.error().to_string();
  EXPECT_EQ(f->stop(), std::vector<std::string>{"<|im_end|>"});
  EXPECT_EQ(f->response().fields(),
            (std::vector<std::string>{"thinking", "tool_calls", "content"}));
  auto none = ocml::model_format::load((fs::path(OCML_SOURCE_DIR) / "no-such-model").string());
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ocml::error_code::io_error);
}

TEST(ModelFormat, ToolRoundTrip) {
  auto f = ocml::model_format::load(kExample.string());
  ASSERT_TRUE(f);
  ocml::conversation conv = weather_conversation();
  auto prompt = f->prompt(conv);
  ASSERT_TRUE(prompt) << prompt.error().to_string();
  EXPECT_TRUE(
      prompt->ends_with("<|im_start|>user\nWeather in Paris for 3 days?<|im_end|>\n"
                        "<|im_start|>assistant\n"));
  EXPECT_NE(prompt->find("\"name\": \"get_weather\""), std::string::npos) << "tools in the prompt";
  ocml::scripted_model engine(
      {{.text = "<think>\nNeed the forecast.\n</think>\n\nChecking.\n<tool_call>\n{\"name\": "
                "\"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": \"3\"}}\n"
                "</tool_call><|im_end|>ignored",
        .chunk = 5},
       {.text = "Sunny, 18 °C.<|im_end|>", .chunk = 3}});
  std::string shown;
  std::string reasoning;
  auto g = ocml::generate(engine, *f, *prompt, conv, {}, [&](const ocml::delta& d) {
    if (d.kind == ocml::delta_kind::text) shown.append(d.text);
    if (d.kind == ocml::delta_kind::reasoning) reasoning.append(d.text);
  });
  EXPECT_EQ(g.finish, ocml::finish_reason::tool_calls);
  ASSERT_EQ(engine.requests().size(), 1U);
  EXPECT_EQ(engine.requests()[0].prompt, *prompt);
  EXPECT_EQ(engine.requests()[0].stop, std::vector<std::string>{"<|im_end|>"});
  EXPECT_EQ(g.message["thinking"], "Need the forecast.");
  EXPECT_EQ(g.message["content"], "Checking.");
  // The schema types "days": the model wrote a string.
  EXPECT_EQ(g.message["tool_calls"][0]["function"]["arguments"],
            json::parse(R"({"city": "Paris", "days": 3})"));
  EXPECT_EQ(shown, "Checking.");
  EXPECT_EQ(reasoning, "Need the forecast.");
  ASSERT_FALSE(g.messages.empty());
  // The answer goes back into the conversation, then the tool's reply, then the next round.
  for (auto& m : g.messages) conv.messages.push_back(m);
  const json openai = ocml::to_openai_json(conv, {});
  const json& call = openai["messages"].back()["tool_calls"][0];
  EXPECT_EQ(call["function"]["name"], "get_weather");
  auto with_reply = ocml::from_openai_json(
      json::parse(R"({"messages": [{"role": "tool", "tool_call_id": ")" +
                  call["id"].get<std::string>() + R"(", "content": "sunny, 18C"}]})"));
  ASSERT_TRUE(with_reply);
  conv.messages.push_back(with_reply->messages[0]);
  auto prompt2 = f->prompt(conv);
  ASSERT_TRUE(prompt2) << prompt2.error().to_string();
  EXPECT_NE(prompt2->find("<|im_start|>assistant\n<think>\nNeed the forecast.\n</think>\n\n"
                          "Checking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
                          "{\"city\": \"Paris\", \"days\": 3}}\n</tool_call><|im_end|>\n"
                          "<|im_start|>user\n<tool_response>\nsunny, 18C\n</tool_response>"
                          "<|im_end|>\n<|im_start|>assistant\n"),
            std::string::npos)
      << *prompt2;
  shown.clear();
  auto g2 = ocml::generate(engine, *f, *prompt2, conv, {}, [&](const ocml::delta& d) {
    if (d.kind == ocml::delta_kind::text) shown.append(d.text);
  });
  EXPECT_EQ(g2.finish, ocml::finish_reason::stop);
  EXPECT_EQ(g2.message, json::parse(R"({"role": "assistant", "content": "Sunny, 18 °C."})"));
  EXPECT_EQ(shown, "Sunny, 18 °C.");
}

TEST(ModelFormat, EngineFailuresAreReported) {
  auto f = ocml::model_format::load(kExample.string());
  ASSERT_TRUE(f);
  const ocml::conversation conv = weather_conversation();
  ocml::scripted_model dropped({{.text = "Half an ans", .drop_connection = true}});
  auto g = ocml::generate(dropped, *f, *f->prompt(conv), conv, {});
  EXPECT_EQ(g.finish, ocml::finish_reason::error);
  ocml::scripted_model none({});
  auto g2 = ocml::generate(none, *f, *f->prompt(conv), conv, {});
  EXPECT_EQ(g2.finish, ocml::finish_reason::error);
  ASSERT_FALSE(g2.diagnostics.empty());
  EXPECT_EQ(g2.diagnostics.back().code, ocml::error_code::engine);
  ocml::scripted_model longer({{.text = std::string(100, 'x') + "<|im_end|>"}});
  auto g3 = ocml::generate(longer, *f, *f->prompt(conv), conv, {.max_bytes = 10});
  EXPECT_EQ(g3.finish, ocml::finish_reason::length);
  EXPECT_EQ(g3.text.size(), 10U);
  ASSERT_FALSE(g3.diagnostics.empty());
  EXPECT_EQ(g3.diagnostics.back().code, ocml::error_code::limit_exceeded);
  // The cut never splits a character (it cut "x" + 50 "é" inside the fifth at 10 bytes).
  std::string e;
  for (int i = 0; i < 50; ++i) e += "\xC3\xA9";
  ocml::scripted_model accents({{.text = "x" + e + "<|im_end|>"}});
  auto g4 = ocml::generate(accents, *f, *f->prompt(conv), conv, {.max_bytes = 10});
  EXPECT_EQ(g4.text, "x" + e.substr(0, 8));
}

// Qwen3's own chat template (from ../shared/reference) with ocml's Qwen3 response template:
// the prompt carries the tools, and a call comes back typed.
TEST(ModelFormat, RealQwen3Template) {
  const fs::path tmpl =
      fs::path(OCML_REFERENCE_DIR) / "templates" / "models" / "Qwen-Qwen3-0.6B.jinja";
  if (!fs::exists(tmpl)) GTEST_SKIP() << "no " << tmpl << " (../shared/reference is absent)";
  const json response = json::parse(
      ocml::test::read_file(fs::path(OCML_SOURCE_DIR) / "tests/response/templates/qwen3.json"));
  const json config = {{"eos_token", "<|im_end|>"},
                       {"chat_template", ocml::test::read_file(tmpl)},
                       {"response_template", response}};
  const fs::path dir =
      fs::temp_directory_path() / ("ocml_qwen3_format_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "tokenizer_config.json") << config.dump();
  auto f = ocml::model_format::load(dir.string());
  ASSERT_TRUE(f) << f.error().to_string();
  const ocml::conversation conv = weather_conversation();
  auto prompt = f->prompt(conv);
  ASSERT_TRUE(prompt) << prompt.error().to_string();
  EXPECT_NE(prompt->find("<tools>"), std::string::npos);
  EXPECT_NE(prompt->find("\"get_weather\""), std::string::npos);
  EXPECT_TRUE(prompt->ends_with("<|im_start|>assistant\n")) << *prompt;
  ocml::scripted_model engine({{.text = "<think>\nok\n</think>\n\n<tool_call>\n{\"name\": "
                                        "\"get_weather\", \"arguments\": {\"city\": \"Paris\"}}"
                                        "\n</tool_call><|im_end|>"}});
  auto g = ocml::generate(engine, *f, *prompt, conv, {});
  EXPECT_EQ(g.finish, ocml::finish_reason::tool_calls);
  EXPECT_EQ(g.message["thinking"], "ok");
  EXPECT_EQ(g.message["tool_calls"][0]["function"]["arguments"]["city"], "Paris");
}

}  // namespace
