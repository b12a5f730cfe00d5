// SPDX-License-Identifier: Apache-2.0
// OpenChatML 0.1: every example in the spec parses and renders back byte for byte;
// thought blocks, function calling, FIM and multi-file documents; round trips.
#include <gtest/gtest.h>

#include <filesystem>

#include "openai_corpus.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using ocml::json;

namespace {

const ocml::decoder_options k01{.dialect = ocml::dialect::ocml_0_1};
const fs::path kDir = fs::path(OCML_FIXTURE_DIR) / "ocml-0.1";

std::vector<std::string> examples() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kDir)) {
    if (e.path().filename().string().starts_with("spec_example_"))
      out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

class SpecExample : public ::testing::TestWithParam<std::string> {};

TEST_P(SpecExample, ParsesAndRendersBackByteForByte) {
  const std::string text = ocml::test::read_file(kDir / GetParam());
  const auto r = ocml::parse(text, k01);
  ASSERT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].to_string();
  auto back = ocml::render(r.conversation, {.dialect = ocml::dialect::ocml_0_1});
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, text);
  // Through native JSON too.
  auto again =
      ocml::from_native_json(json::parse(ocml::dump_json(ocml::to_native_json(r.conversation))));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, r.conversation);
  const auto whole = ocml::test::events_chunked(text, k01, 0);
  for (std::size_t chunk : {1u, 2u, 3u, 5u, 8u, 13u, 64u}) {
    ASSERT_EQ(ocml::test::events_chunked(text, k01, chunk), whole) << chunk;
  }
}

INSTANTIATE_TEST_SUITE_P(OpenChatML01, SpecExample, ::testing::ValuesIn(examples()),
                         [](const auto& info) {
                           return info.param.substr(0, info.param.find('.'));
                         });

TEST(Ocml01, ThoughtFlagsAndBlocksAreKeptApart) {
  const auto r = ocml::parse(ocml::test::read_file(kDir / "spec_example_01.txt"), k01);
  const auto& sys = r.conversation.messages[0];
  EXPECT_EQ(sys.content, "You are a helpful AI assistant.");
  EXPECT_EQ(sys.flags, (std::vector<std::string>{"reflect", "introspect", "reason"}));
  const auto& a = r.conversation.messages[2];
  EXPECT_TRUE(a.reflection.starts_with("The user is asking a straightforward question"));
  EXPECT_TRUE(a.introspection.starts_with("As an AI assistant, my goal"));
  EXPECT_TRUE(a.reasoning.starts_with("The box has a \"Band-Aid\" label"));
  EXPECT_TRUE(a.content.starts_with("Based on the \"Band-Aid\" label"));
  // OpenAI JSON: the reason block is reasoning_content; the other two stay recoverable.
  const json j = ocml::to_openai_json(r.conversation, {});
  EXPECT_EQ(j["messages"][2]["reasoning_content"], a.reasoning);
  EXPECT_EQ(j["messages"][2]["reflection"], a.reflection);
  EXPECT_EQ(j["messages"][2]["introspection"], a.introspection);
  auto back = ocml::from_openai_json(j);
  ASSERT_TRUE(back.ok());
  auto text = ocml::render(*back, {.dialect = ocml::dialect::ocml_0_1});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, ocml::test::read_file(kDir / "spec_example_01.txt"));
}

TEST(Ocml01, FunctionCallingExample) {
  const auto r = ocml::parse(ocml::test::read_file(kDir / "spec_example_05.txt"), k01);
  ASSERT_EQ(r.conversation.tools.size(), 1u);
  EXPECT_EQ(r.conversation.tools[0].name, "get_stock_fundamentals");
  const auto& call = r.conversation.messages[2];
  ASSERT_EQ(call.tool_calls.size(), 1u);
  EXPECT_EQ(call.tool_calls[0].name, "get_stock_fundamentals");
  EXPECT_EQ(call.tool_calls[0].arguments, "{\"symbol\": \"TSLA\"}");
  EXPECT_EQ(r.conversation.messages[3].role, ocml::role::tool);
  EXPECT_TRUE(
      r.conversation.messages[3].content.starts_with("{\n\"name\": \"get_stock_fundamentals\""));
  const json j = ocml::to_openai_json(r.conversation, {});
  EXPECT_EQ(j["messages"][2]["tool_calls"][0]["function"]["name"], "get_stock_fundamentals");
  EXPECT_EQ(j["messages"][3]["role"], "tool");
  EXPECT_EQ(j["messages"][3]["tool_call_id"], j["messages"][2]["tool_calls"][0]["id"]);
}

TEST(Ocml01, DocumentsInBothJsonForms) {
  const auto fim = ocml::parse(ocml::test::read_file(kDir / "spec_example_08.txt"), k01);
  ASSERT_EQ(fim.conversation.document.size(), 1u);
  EXPECT_TRUE(fim.conversation.document[0].fim);
  EXPECT_EQ(fim.conversation.document[0].prefix, "The capital of France is ");
  EXPECT_EQ(fim.conversation.document[0].middle, "");
  EXPECT_EQ(fim.conversation.document[0].suffix, ", which is known for its famous Eiffel Tower.");
  const auto done = ocml::parse(ocml::test::read_file(kDir / "spec_example_12.txt"), k01);
  EXPECT_TRUE(done.conversation.document[0].middle.starts_with("for i in range(2, n):"));
  const auto files = ocml::parse(ocml::test::read_file(kDir / "spec_example_09.txt"), k01);
  ASSERT_EQ(files.conversation.document.size(), 3u);
  EXPECT_EQ(files.conversation.document[0].text, "This is the content from the first file.\n");
  for (const auto& c : {fim.conversation, files.conversation}) {
    for (const json& j : {ocml::to_native_json(c), ocml::to_openai_json(c, {})}) {
      ASSERT_TRUE(j.contains("document"));
      auto back = ocml::from_json(j, ocml::json_format::automatic);
      ASSERT_TRUE(back.ok()) << back.error().to_string();
      EXPECT_EQ(back->document, c.document);
    }
  }
}

TEST(Ocml01, StructureTemplateIsRejectedWithACode) {
  const auto r = ocml::parse(ocml::test::read_file(kDir / "n_structure_template.txt"), k01);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(ocml::error_name(r.diagnostics[0].code), "E-PARSE-HEADER");
  EXPECT_EQ(r.diagnostics[0].line, 1u);
}

TEST(Ocml01, NamesRolesAndConfigurableBosEos) {
  EXPECT_FALSE(ocml::parse("<|im_start|>robot\nx<|im_end|>", k01).ok());
  EXPECT_FALSE(ocml::parse("<|im_start|>user name=A B\nx<|im_end|>", k01).ok());
  ocml::conversation c;
  c.messages.push_back(
      {.role = ocml::role::user, .name = "Eric", .content = "Hi\n", .end = ocml::end_token::end});
  auto text = ocml::render(c, {.dialect = ocml::dialect::ocml_0_1, .bos = "<s>", .eos = "</s>"});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "<s><|im_start|>user name=Eric\nHi\n<|im_end|></s>");
  const auto r =
      ocml::parse(*text, {.dialect = ocml::dialect::ocml_0_1, .bos = "<s>", .eos = "</s>"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.conversation, c);
  c.messages[0].name = "Eric Idle";
  EXPECT_FALSE(ocml::render(c, {.dialect = ocml::dialect::ocml_0_1}).ok());
}

TEST(Ocml01, RandomConversationsRoundTrip) {
  ocml::test::openai_corpus gen(21);
  for (int i = 0; i < 400; ++i) {
    json j = gen.conversation();
    for (auto& m : j["messages"]) {
      m.erase("name");
      m.erase("tool_call_id");
      if (m.contains("tool_calls")) {
        for (auto& tc : m["tool_calls"]) tc.erase("id");
      }
    }
    auto c = ocml::from_openai_json(j);
    ASSERT_TRUE(c.ok());
    const auto g = ocml::grouped_form(*c);
    auto text = ocml::render(g, {.dialect = ocml::dialect::ocml_0_1});
    ASSERT_TRUE(text.ok()) << text.error().to_string();
    const auto r = ocml::parse(*text, k01);
    ASSERT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].to_string() << "\n" << *text;
    ocml::conversation want = g;
    ocml::conversation got = r.conversation;
    for (auto* conv : {&want, &got}) {
      for (auto& m : conv->messages) {
        m.end = ocml::end_token::unspecified;
        for (auto& tc : m.tool_calls) tc.arguments = json::parse(tc.arguments).dump();
      }
    }
    ASSERT_EQ(ocml::to_native_json(got), ocml::to_native_json(want)) << *text;
  }
}

}  // namespace
