// SPDX-License-Identifier: Apache-2.0
// ChatML (Qwen2.5 + Hermes): byte-identical to the Qwen2.5 template under Jinja2,
// round trips, chunking, injection safety.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "openai_corpus.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using ocml::json;

namespace {

TEST(ChatmlReference, ByteIdenticalToQwen25TemplateOnSeededCorpus) {
  const fs::path tmpl = fs::path(OCML_REFERENCE_DIR) / "templates" / "qwen25.jinja";
  if (!fs::exists(tmpl)) GTEST_SKIP() << "../shared/reference is absent";
  const std::string py = ocml::test::python_with_jinja();
  if (py.empty()) GTEST_SKIP() << "python3-jinja2 is not installed";
  const fs::path dir = fs::temp_directory_path() / ("ocml_chatml_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ocml::test::openai_corpus gen(2024);
  std::vector<json> convs;
  {
    std::ofstream in(dir / "in.jsonl");
    for (int i = 0; i < 1200; ++i) {
      convs.push_back(gen.conversation());
      in << convs.back().dump() << '\n';
    }
  }
  const std::string cmd = py + " " + std::string(OCML_TEST_TOOLS_DIR) + "/render_jinja.py " +
                          tmpl.string() + " " + (dir / "in.jsonl").string() + " " +
                          (dir / "out.jsonl").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream out(dir / "out.jsonl");
  std::string line;
  std::size_t i = 0;
  std::size_t differences = 0;
  while (std::getline(out, line)) {
    ASSERT_LT(i, convs.size());
    const std::string expected = json::parse(line).get<std::string>();
    auto conv = ocml::from_openai_json(convs[i]);
    ASSERT_TRUE(conv.ok()) << conv.error().to_string();
    auto text = ocml::render(
        *conv, {.dialect = ocml::dialect::chatml,
                .add_generation_prompt = convs[i].value("add_generation_prompt", false)});
    ASSERT_TRUE(text.ok()) << text.error().to_string();
    if (*text != expected) {
      ++differences;
      ADD_FAILURE() << "conversation " << i << "\n--- jinja2\n"
                    << expected << "\n--- ocml\n"
                    << *text;
    }
    ++i;
  }
  EXPECT_EQ(i, convs.size());
  EXPECT_EQ(differences, 0u);

  // The batch tool takes a one-pass path (simdjson straight to ChatML): it must give the
  // same bytes as the library path checked above (and honour each line's
  // add_generation_prompt, as Jinja2 did).
  const std::string batch = std::string(OCML_CLI_PATH) + " render -d chatml --jsonl -j 2 " +
                            (dir / "in.jsonl").string() + " > " + (dir / "batch.jsonl").string() +
                            " 2>/dev/null";
  ASSERT_EQ(std::system(batch.c_str()), 0);
  std::ifstream batch_out(dir / "batch.jsonl");
  std::size_t k = 0;
  while (std::getline(batch_out, line)) {
    auto conv = ocml::from_openai_json(convs[k]);
    auto text = ocml::render(
        *conv, {.dialect = ocml::dialect::chatml,
                .add_generation_prompt = convs[k].value("add_generation_prompt", false)});
    ASSERT_EQ(json::parse(line)["text"].get<std::string>(), *text) << "line " << k + 1;
    ++k;
  }
  EXPECT_EQ(k, convs.size());
  fs::remove_all(dir);
}

// A conversation in the shape ChatML holds: a first system message, no names or ids.
ocml::conversation chatml_shaped(ocml::test::openai_corpus& gen) {
  json j = gen.conversation();
  auto& msgs = j["messages"];
  if (msgs.empty() || msgs[0]["role"] != "system")
    msgs.insert(msgs.begin(), json{{"role", "system"}, {"content", "S"}});
  for (auto& m : msgs) {
    m.erase("name");
    m.erase("reasoning_content");
    m.erase("tool_call_id");
    if (m.contains("tool_calls")) {
      for (auto& tc : m["tool_calls"]) {
        tc.erase("id");
        // ChatML carries arguments as objects written the Python way.
        tc["function"]["arguments"] =
            ocml::json::parse(tc["function"]["arguments"].get<std::string>()).dump();
      }
    }
  }
  auto c = ocml::from_openai_json(j);
  return ocml::grouped_form(*c);
}

TEST(Chatml, ParseOfRenderIsIdentityAndChunkInvariant) {
  ocml::test::openai_corpus gen(7);
  for (int i = 0; i < 500; ++i) {
    const ocml::conversation c = chatml_shaped(gen);
    auto text = ocml::render(c, {.dialect = ocml::dialect::chatml});
    ASSERT_TRUE(text.ok()) << text.error().to_string();
    const auto r = ocml::parse(*text, {.dialect = ocml::dialect::chatml});
    ASSERT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].to_string() << "\n" << *text;
    // Arguments come back in Python's spelling; compare them as JSON.
    ocml::conversation got = r.conversation;
    ocml::conversation want = c;
    for (auto* conv : {&got, &want}) {
      for (auto& m : conv->messages) {
        m.end = ocml::end_token::unspecified;
        for (auto& tc : m.tool_calls) tc.arguments = json::parse(tc.arguments).dump();
      }
      for (auto& t : conv->tools) t = ocml::tool{t.name, t.description, t.parameters, t.source};
    }
    ASSERT_EQ(ocml::to_native_json(got), ocml::to_native_json(want)) << *text;
    const auto whole = ocml::test::events_chunked(*text, {.dialect = ocml::dialect::chatml}, 0);
    for (std::size_t chunk : {1u, 2u, 3u, 7u, 16u}) {
      ASSERT_EQ(ocml::test::events_chunked(*text, {.dialect = ocml::dialect::chatml}, chunk),
                whole);
    }
  }
}

TEST(Chatml, ContentThatSpellsMarkupIsRefused) {
  for (const char* bad : {"x<|im_end|>y", "<|im_start|>system"}) {
    ocml::conversation c;
    c.messages.push_back({.role = ocml::role::user, .content = bad});
    auto r = ocml::render(c, {.dialect = ocml::dialect::chatml});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ocml::error_code::unrepresentable);
  }
  ocml::conversation c;
  c.messages.push_back({.role = ocml::role::assistant, .content = "see <tool_call>"});
  EXPECT_FALSE(ocml::render(c, {.dialect = ocml::dialect::chatml}).ok());
  // A user may write <tool_call>: it is text there, and parses back as text.
  c.messages[0].role = ocml::role::user;
  auto ok = ocml::render(c, {.dialect = ocml::dialect::chatml});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ocml::parse(*ok, {.dialect = ocml::dialect::chatml}).conversation.messages[1].content,
            "see <tool_call>");
}

TEST(Chatml, CompletionWithToolCallAndBadJson) {
  const auto r = ocml::parse(
      "Let me check.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>",
      {.dialect = ocml::dialect::chatml, .completion = true});
  ASSERT_EQ(r.conversation.messages.size(), 1u);
  EXPECT_EQ(r.conversation.messages[0].content, "Let me check.");
  ASSERT_EQ(r.conversation.messages[0].tool_calls.size(), 1u);
  EXPECT_EQ(r.conversation.messages[0].tool_calls[0].arguments, "{\"a\": 1}");
  EXPECT_TRUE(r.ok());  // completion: ending without <|im_end|> is a warning
  const auto bad =
      ocml::parse("<|im_start|>assistant\n<tool_call>\n{name: f}\n</tool_call><|im_end|>",
                  {.dialect = ocml::dialect::chatml});
  EXPECT_EQ(ocml::test::codes(bad), std::vector<std::string>{"E-BODY-CONSTRAINT-VIOLATION"});
}

}  // namespace
