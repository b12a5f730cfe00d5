// SPDX-License-Identifier: Apache-2.0
// Issue 14: every diagnostic of a render names where in the input it comes from: a JSON
// path of the input (and its line:column) for JSON, line:column of the message for markup.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ocml/convert.hpp"
#include "ocml/json.hpp"
#include "ocml/render.hpp"
#include "openai_corpus.hpp"

namespace {

using ocml::dialect;
using ocml::json;

// The path a diagnostic's message begins with ("messages[2].name: …" -> "messages[2].name").
std::string path_of(const ocml::diagnostic& d) {
  const auto colon = d.message.find(": ");
  return colon == std::string::npos ? std::string() : d.message.substr(0, colon);
}

// Whether `path` ("messages[2].tool_calls[0].function.arguments") names a value of `j`.
bool names_a_value(const json& j, const std::string& path) {
  const json* v = &j;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') ++i;
    if (path[i] == '[') {
      const auto close = path.find(']', i);
      const std::size_t k = std::stoul(path.substr(i + 1, close - i - 1));
      if (!v->is_array() || k >= v->size()) return false;
      v = &(*v)[k];
      i = close + 1;
      continue;
    }
    const auto end = path.find_first_of(".[", i);
    const std::string key = path.substr(i, end == std::string::npos ? end : end - i);
    if (!v->is_object() || !v->contains(key)) return false;
    v = &(*v)[key];
    i = end == std::string::npos ? path.size() : end;
  }
  return true;
}

const json kConversation = json::parse(R"({"messages":[
  {"role":"developer","content":"x"},
  {"role":"user","content":"hi","name":"bob"},
  {"role":"assistant","content":"","reasoning_content":"think","tool_calls":[
    {"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}},
    {"id":"c2","type":"function","function":{"name":"g","arguments":"not json"}}]},
  {"role":"tool","tool_call_id":"c2","content":"r"}]})");

std::vector<std::string> warnings_of(dialect d, const std::string& text) {
  const auto r = ocml::render_json(text, {.render = {.dialect = d}});
  EXPECT_TRUE(r.ok()) << ocml::dialect_name(d);
  std::vector<std::string> out;
  for (const auto& w : r.diagnostics) {
    EXPECT_EQ(w.level, ocml::severity::warning);
    out.push_back(std::to_string(w.line) + ":" + std::to_string(w.column) + " " + w.message);
  }
  return out;
}

TEST(WarningPath, OpenAIInputIsNamedByItsOwnPaths) {
  const std::string text = kConversation.dump(2);  // keys sorted, one per line
  EXPECT_EQ(warnings_of(dialect::chatml, text),
            (std::vector<std::string>{
                "4:15 messages[0].role: ChatML (Qwen2.5) has no developer role (dropped, as its "
                "template does)",
                "10:15 messages[1].name: ChatML (Qwen2.5) cannot hold a name (dropped)",
                "15:28 messages[2].reasoning_content: ChatML (Qwen2.5) cannot hold reasoning "
                "(dropped)",
                "30:26 messages[2].tool_calls[1].function.arguments: arguments of 'g' are not JSON "
                "(written as a JSON string)"}));
  EXPECT_EQ(warnings_of(dialect::gabgpt, text),
            (std::vector<std::string>{
                "3:5 messages[0]: GabGPT cannot hold developer messages (dropped)",
                "10:15 messages[1].name: GabGPT cannot hold a name (dropped)",
                "16:21 messages[2].tool_calls: GabGPT cannot hold tool calls (dropped)",
                "35:5 messages[3]: GabGPT cannot hold tool messages (dropped)"}));
  // Formats without call ids answer calls by order: losing ids is no warning in them.
  for (const dialect d : {dialect::harmony, dialect::ocml_2_0, dialect::ocml_2_2}) {
    EXPECT_TRUE(warnings_of(d, text).empty()) << ocml::dialect_name(d);
  }
}

TEST(WarningPath, EveryDiagnosticOfACorpusNamesAValueOfItsInput) {
  ocml::test::openai_corpus gen(14);
  std::size_t diagnostics = 0;
  for (int i = 0; i < 400; ++i) {
    const json conv = gen.conversation();
    const std::string text = conv.dump();
    for (const auto& info : ocml::dialects()) {
      const dialect d = info.id;
      const auto r = ocml::render_json(text, {.render = {.dialect = d}});
      for (const auto& w : r.diagnostics) {
        ++diagnostics;
        const std::string path = path_of(w);
        ASSERT_TRUE(names_a_value(conv, path))
            << ocml::dialect_name(d) << ": " << w.to_string() << "\n"
            << text;
        ASSERT_NE(w.line, 0u) << w.to_string();
        if (d == dialect::harmony) ADD_FAILURE() << "harmony warned: " << w.to_string();
      }
    }
  }
  EXPECT_GT(diagnostics, 100u);  // the corpus has names, reasoning and developer roles
}

TEST(WarningPath, ASplitMessageIsNamedAsTheCallerWroteIt) {
  // Grouped input to a split dialect: the error of call 0's name names it, not the split
  // message the renderer saw.
  ocml::conversation c;
  c.messages.push_back({.role = ocml::role::user, .content = "q"});
  ocml::message a{.role = ocml::role::assistant, .reasoning = "r"};
  a.tool_calls.push_back({"c1", "bad name", "{}"});
  c.messages.push_back(a);
  auto text = ocml::render(c, {.dialect = dialect::ocml_2_2});
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(path_of(text.error()), "messages[1].tool_calls[0].name") << text.error().to_string();

  // Split input to a grouped dialect: the call's split message is named.
  ocml::conversation s = ocml::split_form(c);
  s.messages[1].content = "<|im_end|>";  // the analysis message: the grouped reasoning
  s.messages[2].recipient = "functions.ok";
  auto chatml = ocml::render(s, {.dialect = dialect::chatml});
  ASSERT_TRUE(chatml.ok());
  std::vector<ocml::diagnostic> w;
  s.messages[1].content = "r";
  s.messages[2].recipient = "functions.a\"b";
  auto refused = ocml::render(s, {.dialect = dialect::chatml}, &w);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(path_of(refused.error()), "messages[2].recipient") << refused.error().to_string();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(path_of(w[0]), "messages[1].content") << w[0].to_string();  // the reasoning
}

TEST(WarningPath, ConvertPlacesAWarningAtItsMessage) {
  // At the line:column where the decoder read the message's header (3:20, after [SEP]).
  const std::string pcml = "[USR]Hi[/USR]\n\n[AST]name=\"Bo\"[SEP]Hello<end>[/AST]";
  const auto r = ocml::convert(pcml, {.from = dialect::pcml, .to = dialect::chatml});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].to_string(),
            "E-RENDER-UNREPRESENTABLE 3:20 warning: messages[1]: chatml cannot hold author names "
            "(dropped)");
}

}  // namespace
