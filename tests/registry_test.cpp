// SPDX-License-Identifier: Apache-2.0
// The codec registry's hooks (core/codec.hpp): what the runtime, the JSON path and the CLI
// ask of a dialect instead of switching on it. Each hook is checked against the dialect's
// own renderer, decoder and token list, so a record that points at the wrong function or
// names a token its dialect does not have fails here.
#include <gtest/gtest.h>

#include <algorithm>

#include "dialects/registry.hpp"
#include "ocml/ocml.hpp"

namespace {

using ocml::detail::codec;
using ocml::detail::codecs;

bool has_token(const codec& c, std::string_view t) {
  return std::find(c.info.tokens.begin(), c.info.tokens.end(), t) != c.info.tokens.end();
}

ocml::conversation hello() {
  ocml::conversation c;
  c.messages.push_back({.role = ocml::role::system, .content = "Be brief."});
  c.messages.push_back({.role = ocml::role::user, .content = "Hi"});
  return c;
}

TEST(Registry, EveryHookBelongsToADialectThatHasIt) {
  int think = 0, preamble = 0, one_pass = 0, envelope = 0, view = 0;
  for (const codec& c : codecs()) {
    SCOPED_TRACE(c.info.name);
    if (c.think != nullptr) {
      ++think;
      EXPECT_TRUE(has_token(c, c.think->prompt_tail));
      EXPECT_TRUE(has_token(c, c.think->answer));
      EXPECT_FALSE(c.think->role.empty());
    }
    if (c.preamble != nullptr) {
      ++preamble;
      const ocml::conversation plain = hello();
      EXPECT_FALSE(c.preamble->present(plain));
      const auto origins = c.preamble->origins(plain);
      const ocml::conversation built = c.preamble->build(hello(), {.reasoning_effort = "high"});
      EXPECT_TRUE(c.preamble->present(built));
      EXPECT_EQ(origins.size(), built.messages.size());
      EXPECT_NE(built.messages.front().content.find("Reasoning: high"), std::string::npos);
    }
    if (c.one_pass != nullptr) {
      ++one_pass;
      // The one-pass text is the general path's, byte for byte.
      const std::string request =
          R"({"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}]})";
      std::string text;
      std::vector<ocml::diagnostic> warnings;
      const ocml::render_options o{.dialect = c.info.id, .add_generation_prompt = true};
      ocml::detail::request_option_values values;
      const auto* gathered = c.one_pass->read(request, values);
      ASSERT_NE(gathered, nullptr);
      c.one_pass->write_text(*gathered, o, text, warnings);
      const auto general =
          ocml::render(hello(), {.dialect = c.info.id, .add_generation_prompt = true});
      ASSERT_TRUE(general);
      EXPECT_EQ(text, *general);
      ocml::text_buffer line;
      c.one_pass->write_json_text(*gathered, o, line, warnings);
      EXPECT_EQ(ocml::json::parse("\"" + std::string(line.view()) + "\"").get<std::string>(),
                *general);
    }
    ocml::tool_reply reply{.call_id = "c1", .ok = true, .content = "sunny"};
    const ocml::message m = reply.to_message(c.info.id);
    if (c.tool_reply_envelope) {
      ++envelope;
      EXPECT_EQ(ocml::json::parse(m.content).at("ok"), true);
    } else {
      EXPECT_EQ(m.content, "sunny");
    }
    if (c.view != nullptr) ++view;
  }
  // One dialect each has these today (two the one-pass renderer); a new record that takes
  // one is counted here too.
  EXPECT_EQ(think, 1);
  EXPECT_EQ(preamble, 1);
  EXPECT_EQ(one_pass, 2);  // ChatML and Qwen3
  EXPECT_EQ(envelope, 1);
  EXPECT_EQ(view, 1);
}

// Escapes: a dialect that writes OpenChatML's escape syntax renders a control token inside
// text escaped, so that its own decoder reads the same text back.
TEST(Registry, EscapeRuleMatchesTheRenderedText) {
  ocml::conversation c;
  c.messages.push_back({.role = ocml::role::user, .content = "say <|end|> please"});
  for (const codec& k : codecs()) {
    SCOPED_TRACE(k.info.name);
    for (const bool asked : {false, true}) {
      const auto text = ocml::render(c, {.dialect = k.info.id, .openchatml_escapes = asked});
      if (!ocml::detail::writes_escapes(k, asked)) continue;
      ASSERT_TRUE(text);
      EXPECT_EQ(text->find("say <|end|> please"), std::string::npos) << *text;
      const auto back = ocml::parse(*text, {.dialect = k.info.id, .openchatml_escapes = asked});
      ASSERT_TRUE(back.ok());
      ASSERT_FALSE(back.conversation.messages.empty());
      EXPECT_EQ(back.conversation.messages.front().content, "say <|end|> please");
    }
  }
}

}  // namespace
