// SPDX-License-Identifier: Apache-2.0
// Qwen3: byte-identical to Qwen3's template under Jinja2 (half the corpus with
// enable_thinking false), parsing of <think> in completions and transcripts, chunking.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "dialects/qwen3/qwen3.hpp"
#include "interchange/json_escape.hpp"
#include "openai_corpus.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using ocml::json;

namespace {

// The seeded corpus, shaped for Qwen3: half with `chat_template_kwargs.enable_thinking`
// false; assistant content null read as "" (ocml's reading: the template raises on null);
// some assistant turns with their reasoning written inline as "<think>…</think>". (User
// text that is a whole <tool_response> block is refused: ChatML cannot escape it.)
std::vector<json> qwen3_corpus(std::size_t n) {
  ocml::test::openai_corpus gen(3003);
  std::vector<json> out;
  for (std::size_t i = 0; i < n; ++i) {
    json c = gen.conversation();
    if (i % 2 == 0) c["chat_template_kwargs"] = {{"enable_thinking", false}};
    std::size_t k = 0;
    for (auto& m : c["messages"]) {
      ++k;
      if (m["role"] == "assistant") {
        if (m["content"].is_null()) m["content"] = "";
        if (!m.contains("reasoning_content") && (i + k) % 5 == 0) {
          m["content"] = "<think>\ninline " + std::to_string(k) + "\n\n</think>\n\n" +
                         m["content"].get<std::string>();
        }
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

TEST(Qwen3Reference, ByteIdenticalToQwen3TemplateOnSeededCorpus) {
  const fs::path tmpl = fs::path(OCML_REFERENCE_DIR) / "templates" / "qwen3.jinja";
  if (!fs::exists(tmpl)) GTEST_SKIP() << "../shared/reference is absent";
  const std::string py = ocml::test::python_with_jinja();
  if (py.empty()) GTEST_SKIP() << "python3-jinja2 is not installed";
  const fs::path dir = fs::temp_directory_path() / ("ocml_qwen3_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::vector<json> convs = qwen3_corpus(1200);
  {
    std::ofstream in(dir / "in.jsonl");
    for (const auto& c : convs) in << c.dump() << '\n';
  }
  const std::string cmd = py + " " + std::string(OCML_TEST_TOOLS_DIR) + "/render_jinja.py " +
                          tmpl.string() + " " + (dir / "in.jsonl").string() + " " +
                          (dir / "out.jsonl").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::vector<std::string> expected;
  {
    std::ifstream out(dir / "out.jsonl");
    std::string line;
    while (std::getline(out, line)) expected.push_back(json::parse(line).get<std::string>());
  }
  ASSERT_EQ(expected.size(), convs.size());
  std::size_t differences = 0, thinking_off = 0, with_reasoning = 0;
  for (std::size_t i = 0; i < convs.size(); ++i) {
    auto conv = ocml::from_openai_json(convs[i]);
    ASSERT_TRUE(conv.ok()) << conv.error().to_string();
    const bool thinking = !convs[i].contains("chat_template_kwargs");
    thinking_off += thinking ? 0 : 1;
    with_reasoning += expected[i].find("<think>\n") != std::string::npos ? 1 : 0;
    auto text = ocml::render(
        *conv, {.dialect = ocml::dialect::qwen3,
                .add_generation_prompt = convs[i].value("add_generation_prompt", false),
                .enable_thinking = thinking});
    ASSERT_TRUE(text.ok()) << text.error().to_string();
    if (*text != expected[i]) {
      ++differences;
      if (differences < 5) {
        ADD_FAILURE() << "conversation " << i << "\n--- jinja2\n"
                      << expected[i] << "\n--- ocml\n"
                      << *text;
      }
    }
  }
  EXPECT_EQ(differences, 0u);
  EXPECT_EQ(thinking_off, convs.size() / 2);
  EXPECT_GT(with_reasoning, convs.size() / 10);  // the corpus exercises the think blocks

  // The batch tool reads `chat_template_kwargs` and `add_generation_prompt` per line: same
  // bytes as Jinja2.
  const std::string batch = std::string(OCML_CLI_PATH) + " render -d qwen3 --jsonl -j 2 " +
                            (dir / "in.jsonl").string() + " > " + (dir / "batch.jsonl").string() +
                            " 2>/dev/null";
  ASSERT_EQ(std::system(batch.c_str()), 0);
  std::ifstream batch_out(dir / "batch.jsonl");
  std::string line;
  std::size_t k = 0, batch_differences = 0;
  while (std::getline(batch_out, line)) {
    ASSERT_LT(k, expected.size());
    const std::string got = json::parse(line)["text"].get<std::string>();
    if (got != expected[k] && ++batch_differences <= 2) {
      ADD_FAILURE() << "batch line " << k + 1 << "\n--- jinja2\n"
                    << expected[k] << "\n--- ocml\n"
                    << got;
    }
    ++k;
  }
  EXPECT_EQ(k, convs.size());
  EXPECT_EQ(batch_differences, 0u);
  fs::remove_all(dir);
}

// The one-pass renderer (OpenAI JSON straight to Qwen3's template, the batch path) writes
// the bytes the general path renders from the conversation, as text and as an escaped
// line, with the same warnings; it takes most of the corpus, and declines what the general
// path refuses or reads otherwise.
TEST(Qwen3OnePass, EqualsTheGeneralPath) {
  std::vector<json> convs = qwen3_corpus(500);
  // Newlines around reasoning and inline think blocks; a backslash before an n or a newline
  // at the end (an escaped "\n" that is not a newline).
  for (const std::string r :
       {"\n\nr\n\n", "ends with a backslash and n: \\n", "a\\\n", "\\", "\n", "x\"y\\z"}) {
    const json user = {{"role", "user"}, {"content", "q"}};
    convs.push_back(
        {{"messages",
          {user, {{"role", "assistant"}, {"reasoning_content", r}, {"content", "\n\na"}}}}});
    convs.push_back(
        {{"messages",
          {user, {{"role", "assistant"}, {"content", "<think>" + r + "</think>\n\\n b"}}}}});
  }
  std::size_t taken = 0;
  for (std::size_t i = 0; i < convs.size(); ++i) {
    const std::string text = convs[i].dump();
    const ocml::render_options o{.dialect = ocml::dialect::qwen3,
                                 .add_generation_prompt = i % 3 == 0,
                                 .enable_thinking = i % 2 == 1,
                                 .keep_reasoning = i % 7 == 0};
    std::string plain;
    std::vector<ocml::diagnostic> w1;
    if (!ocml::detail::qwen3::render_openai_text(text, o, plain, w1)) continue;
    ++taken;
    ocml::detail::escaped_buffer line;
    std::vector<ocml::diagnostic> w2;
    ASSERT_TRUE(ocml::detail::qwen3::render_openai_json_text(text, o, line, w2));
    EXPECT_EQ(line.view(), json(plain).dump().substr(1, json(plain).dump().size() - 2));
    EXPECT_EQ(w2, w1);
    auto conv = ocml::from_openai_json(convs[i]);
    ASSERT_TRUE(conv.ok()) << conv.error().to_string();
    std::vector<ocml::diagnostic> w3;
    auto general = ocml::render(*conv, o, &w3);
    ASSERT_TRUE(general.ok()) << general.error().to_string() << " for " << text;
    EXPECT_EQ(plain, *general) << text;
    // The general path's paths count the model's messages (reasoning split off), the
    // one-pass path's the request's: the warnings agree but for the index.
    ASSERT_EQ(w3.size(), w1.size()) << text;
    for (std::size_t k = 0; k < w3.size(); ++k) {
      EXPECT_EQ(w3[k].code, w1[k].code);
      EXPECT_EQ(w3[k].message.substr(w3[k].message.find("]")),
                w1[k].message.substr(w1[k].message.find("]")));
    }
  }
  EXPECT_GT(taken, convs.size() * 8 / 10) << "of " << convs.size();
  // Declined: what the general path refuses, and reasoning that is not text.
  for (
      const char* bad : {
          R"({"messages":[{"role":"assistant","content":"a <think> b"}]})",
          R"({"messages":[{"role":"user","content":"q"},{"role":"assistant","reasoning_content":"x</think>y","content":"a"}]})",
          R"({"messages":[{"role":"assistant","reasoning_content":{"a":1},"content":"a"}]})",
          R"({"messages":[{"role":"user","reasoning_content":"r","content":"a"}]})",
      }) {
    std::string out;
    std::vector<ocml::diagnostic> w;
    EXPECT_FALSE(
        ocml::detail::qwen3::render_openai_text(bad, {.dialect = ocml::dialect::qwen3}, out, w))
        << bad;
  }
}

ocml::parse_result completion(std::string_view text, ocml::think_start t = {}) {
  return ocml::parse(
      text, {.dialect = ocml::dialect::qwen3, .lenient = true, .completion = true, .think = t});
}

TEST(Qwen3Parse, ThinkBlockIsReasoning) {
  const auto r = completion("<think>\nStep 1.\n\nStep 2.\n</think>\n\nThe answer.<|im_end|>");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.conversation.messages.size(), 1u);
  EXPECT_EQ(r.conversation.messages[0].reasoning, "Step 1.\n\nStep 2.");
  EXPECT_EQ(r.conversation.messages[0].content, "The answer.");
}

TEST(Qwen3Parse, CloseTagWithoutOpenTagMeansThePromptOpenedIt) {
  const auto r = completion("Let me think.\n</think>\n\nDone.");
  ASSERT_EQ(r.conversation.messages.size(), 1u);
  EXPECT_EQ(r.conversation.messages[0].reasoning, "Let me think.");
  EXPECT_EQ(r.conversation.messages[0].content, "Done.");
}

TEST(Qwen3Parse, EmptyThinkBlockGivesNoReasoning) {
  const auto r = completion("<think>\n\n</think>\n\nHi.<|im_end|>");
  ASSERT_EQ(r.conversation.messages.size(), 1u);
  EXPECT_EQ(r.conversation.messages[0].reasoning, "");
  EXPECT_EQ(r.conversation.messages[0].content, "Hi.");
}

TEST(Qwen3Parse, CallDraftedInsideThinkIsReasoningNotACall) {
  const auto r = completion(
      "<think>\nMaybe <tool_call>\n{\"name\": \"f\", \"arguments\": "
      "{}}\n</tool_call>?\n</think>\n\n"
      "<tool_call>\n{\"name\": \"g\", \"arguments\": {\"x\": 1}}\n</tool_call><|im_end|>");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.conversation.messages.size(), 1u);
  const auto& m = r.conversation.messages[0];
  EXPECT_EQ(m.reasoning, "Maybe <tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>?");
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].name, "g");
  EXPECT_EQ(m.content, "");
}

TEST(Qwen3Parse, PlainAnswerWithoutThinkIsContent) {
  for (auto t : {ocml::think_start::detect, ocml::think_start::closed}) {
    const auto r = completion("Just the answer.<|im_end|>", t);
    ASSERT_EQ(r.conversation.messages.size(), 1u);
    EXPECT_EQ(r.conversation.messages[0].content, "Just the answer.");
    EXPECT_EQ(r.conversation.messages[0].reasoning, "");
  }
  const auto open = completion("Thinking...\n</think>\n\nAnswer.", ocml::think_start::open);
  EXPECT_EQ(open.conversation.messages[0].reasoning, "Thinking...");
  EXPECT_EQ(open.conversation.messages[0].content, "Answer.");
}

TEST(Qwen3Parse, ReasoningStreamsWhileTheModelThinks) {
  std::vector<std::string> kinds;
  ocml::decoder d({.dialect = ocml::dialect::qwen3, .completion = true}, [&](const ocml::event& e) {
    if (e.kind == ocml::event_kind::reasoning) kinds.push_back("reasoning:" + std::string(e.text));
    if (e.kind == ocml::event_kind::content) kinds.push_back("content:" + std::string(e.text));
  });
  d.push("<think>\nfirst ");
  ASSERT_FALSE(kinds.empty());  // reported before the block closes
  EXPECT_EQ(kinds.front(), "reasoning:first ");
  d.push("second\n</think>\n\nok");
  d.finish();
  EXPECT_EQ(kinds.back(), "content:ok");
}

TEST(Qwen3Render, ReasoningThatSpellsMarkupIsRefused) {
  // Fuzz finding 26 (convert gabgpt -> qwen3): reasoning holding <|im_end|> was written
  // into the think block as it stood and forged the end of the turn.
  for (const char* r : {"a<|im_end|>b", "x<|im_start|>user", "done</think>forged"}) {
    ocml::conversation c;
    c.messages.push_back({.role = ocml::role::user, .content = "q"});
    c.messages.push_back({.role = ocml::role::assistant, .content = "ok", .reasoning = r});
    const auto text = ocml::render(c, {.dialect = ocml::dialect::qwen3});
    ASSERT_FALSE(text.ok()) << r;
    EXPECT_EQ(text.error().code, ocml::error_code::unrepresentable);
  }
}

TEST(Qwen3Parse, CallTagInSystemTurnIsText) {
  // Fuzz finding 23: the system turn is begun only when it ends (it may be only the tools
  // block), and its tags were read with the role of the turn before it.
  const auto r = ocml::parse(
      "<|im_start|>assistant\nok<|im_end|>\n<|im_start|>system\nUse <tool_call> tags.<|im_end|>\n",
      {.dialect = ocml::dialect::qwen3, .lenient = true});
  ASSERT_EQ(r.conversation.messages.size(), 2u);
  EXPECT_EQ(r.conversation.messages[1].role, ocml::role::system);
  EXPECT_EQ(r.conversation.messages[1].content, "Use <tool_call> tags.");
}

TEST(Qwen3Parse, SameResultAtEveryChunkSize) {
  const std::vector<std::string> inputs = {
      "<think>\nA\n\nB\n</think>\n\nC<tool_call>\n{\"name\": \"f\", \"arguments\": "
      "{}}\n</tool_call>",
      "x\n\n</think>\n\ny<|im_end|>", "<think>\n\n\n</think>\n\n\n\nz",
      "no think at all\n<tool_call>\n{\"name\": \"h\", \"arguments\": {\"s\": \"</think>\"}}\n"
      "</tool_call>"};
  for (const auto& text : inputs) {
    for (const bool lenient : {false, true}) {
      const ocml::decoder_options o{
          .dialect = ocml::dialect::qwen3, .lenient = lenient, .completion = true};
      const auto whole = ocml::parse(text, o);
      for (std::size_t chunk = 1; chunk <= 16; ++chunk) {
        const auto r = ocml::test::parse_chunked(text, o, chunk);
        EXPECT_EQ(r.conversation, whole.conversation) << text << " chunk " << chunk;
        EXPECT_EQ(r.diagnostics, whole.diagnostics) << text << " chunk " << chunk;
      }
    }
  }
}

TEST(Qwen3RoundTrip, RenderedTranscriptParsesBack) {
  const std::vector<json> convs = qwen3_corpus(200);
  std::size_t checked = 0;
  for (const auto& j : convs) {
    auto conv = ocml::from_openai_json(j);
    ASSERT_TRUE(conv.ok());
    auto text = ocml::render(*conv, {.dialect = ocml::dialect::qwen3});
    ASSERT_TRUE(text.ok());
    const auto back = ocml::parse(*text, {.dialect = ocml::dialect::qwen3});
    ASSERT_TRUE(back.ok()) << *text;
    // Rendering again what was parsed gives the same text (reasoning the template drops
    // stays dropped; nothing else moves).
    auto again = ocml::render(back.conversation, {.dialect = ocml::dialect::qwen3});
    ASSERT_TRUE(again.ok()) << again.error().to_string() << "\n" << *text;
    if (*again != *text) {
      std::size_t at = 0;
      while (at < text->size() && at < again->size() && (*text)[at] == (*again)[at]) ++at;
      ADD_FAILURE() << "differs at byte " << at << ":\n--- rendered\n"
                    << text->substr(at > 80 ? at - 80 : 0, 200) << "\n--- again\n"
                    << again->substr(at > 80 ? at - 80 : 0, 200);
    }
    ++checked;
  }
  EXPECT_EQ(checked, convs.size());
}

}  // namespace
