// SPDX-License-Identifier: Apache-2.0
// Harmony is harmony: content is written as openai/harmony and gpt-oss's chat template
// write it (no OpenChatML escape: `vector<` before <|end|> stays `vector<<|end|>`), a '<'
// before a control token is text when reading, content that spells a harmony control token
// is refused as text and written as ordinary tokens as IDs, and OpenChatML's escape is an
// opt-in that reads back only with its mirror.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_support.hpp"
#include "ocml/harmony.hpp"
#include "ocml/token_decoder.hpp"
#include "ocml/token_render.hpp"
#include "ocml/tokens.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using ocml::dialect;

namespace {

ocml::conversation convo(std::string user, std::string answer) {
  ocml::conversation c;
  c.messages.push_back({.role = ocml::role::user, .content = std::move(user)});
  ocml::message a{.role = ocml::role::assistant, .content = std::move(answer)};
  a.channel = "final";
  c.messages.push_back(std::move(a));
  return c;
}

// Role, channel and content of each message (what a round trip must keep).
std::vector<std::string> meaning(const ocml::conversation& c) {
  std::vector<std::string> out;
  for (const auto& m : c.messages) {
    out.push_back(std::string(ocml::role_name(m.role)) + "/" + m.channel + ":" + m.content);
  }
  return out;
}

TEST(HarmonyText, TrailingAngleBracketsAreWrittenAsTheyAre) {
  for (const std::string tail : {"<", "<<", "<|", "a <", "<|literal|>", "x <<|"}) {
    SCOPED_TRACE(tail);
    const auto c = convo("std::vector" + tail, "List" + tail);
    const auto text = ocml::render(c, {.dialect = dialect::harmony});
    ASSERT_TRUE(text.ok()) << text.error().to_string();
    EXPECT_EQ(*text, "<|start|>user<|message|>std::vector" + tail +
                         "<|end|><|start|>assistant<|channel|>final<|message|>List" + tail +
                         "<|end|>");
    // ... and read back as they were written, whole and at every chunk size.
    const auto back = ocml::parse(*text, {.dialect = dialect::harmony});
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(meaning(back.conversation), meaning(c));
    for (std::size_t chunk = 1; chunk <= 16; ++chunk) {
      EXPECT_EQ(ocml::test::parse_chunked(*text, {.dialect = dialect::harmony}, chunk).conversation,
                back.conversation)
          << "chunk " << chunk;
    }
  }
}

TEST(HarmonyText, AnswerEndingInAngleBracketBeforeEachStopToken) {
  // Real gpt-oss output: the answer "List<" then the stop token, in completion mode.
  struct stop_case {
    std::string stop;
    ocml::end_token end;
  };
  for (const auto& s :
       {stop_case{"<|return|>", ocml::end_token::return_},
        stop_case{"<|end|>", ocml::end_token::end}, stop_case{"<|call|>", ocml::end_token::call}}) {
    SCOPED_TRACE(s.stop);
    const bool call = s.end == ocml::end_token::call;
    const std::string text =
        std::string(call ? "<|channel|>commentary to=functions.f" : "<|channel|>final") +
        "<|message|>List<" + s.stop;
    for (const bool lenient : {false, true}) {
      const ocml::decoder_options o{
          .dialect = dialect::harmony, .lenient = lenient, .completion = true};
      const auto r = ocml::parse(text, o);
      EXPECT_TRUE(r.ok());
      EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics.front().to_string();  // no truncation
      ASSERT_EQ(r.conversation.messages.size(), 1u);
      EXPECT_EQ(r.conversation.messages[0].content, "List<");
      EXPECT_EQ(r.conversation.messages[0].end, s.end);
      for (std::size_t chunk = 1; chunk <= 16; ++chunk) {
        const auto rc = ocml::test::parse_chunked(text, o, chunk);
        EXPECT_EQ(rc.conversation, r.conversation) << "chunk " << chunk;
        EXPECT_EQ(rc.diagnostics, r.diagnostics) << "chunk " << chunk;
      }
    }
  }
}

TEST(HarmonyText, ContentSpellingAControlTokenIsRefusedWithItsPath) {
  for (const std::string t : {"<|end|>", "<|start|>", "<|message|>", "<|channel|>", "<|constrain|>",
                              "<|return|>", "<|call|>"}) {
    SCOPED_TRACE(t);
    const auto text = ocml::render(convo("ok", "say " + t + " now"), {.dialect = dialect::harmony});
    ASSERT_FALSE(text.ok());
    EXPECT_EQ(text.error().code, ocml::error_code::unrepresentable);
    EXPECT_NE(text.error().message.find("messages[1].content"), std::string::npos)
        << text.error().message;
    EXPECT_NE(text.error().message.find(t), std::string::npos);
    EXPECT_NE(text.error().message.find("token IDs"), std::string::npos);
  }
}

TEST(HarmonyText, OpenChatmlEscapesAreAnOptInWithAMirror) {
  const auto c = convo("a<|end|>b", "List<");
  const auto text = ocml::render(c, {.dialect = dialect::harmony, .openchatml_escapes = true});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text,
            "<|start|>user<|message|>a<<|end|>b<|end|><|start|>assistant<|channel|>final"
            "<|message|>List<|literal|><<|endliteral|><|end|>");
  ocml::decoder_options o{.dialect = dialect::harmony};
  o.openchatml_escapes = true;
  const auto back = ocml::parse(*text, o);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(meaning(back.conversation), meaning(c));
  // Without the mirror, the same bytes are harmony text: the escape is not read.
  const auto plain = ocml::parse(*text, {.dialect = dialect::harmony, .lenient = true});
  ASSERT_GE(plain.conversation.messages.size(), 2u);
  EXPECT_EQ(plain.conversation.messages[0].content, "a<");
}

TEST(HarmonyText, ContinueFinalMessageCutsAfterTheContentAsWritten) {
  const auto text = ocml::render(convo("hi", "List<"),
                                 {.dialect = dialect::harmony, .continue_final_message = true});
  ASSERT_TRUE(text.ok()) << text.error().to_string();
  EXPECT_EQ(*text,
            "<|start|>user<|message|>hi<|end|><|start|>assistant<|channel|>final<|message|>List<");
}

// gpt-oss's own chat template under Python Jinja2 (as transformers sets it up) and
// `ocml render -d harmony` write the same prompt for conversations whose messages end in
// '<', '<<' and '<|' (the template, like openai/harmony, writes content as it is). The two
// references differ elsewhere (the template adds blank lines after developer instructions,
// for one), and ocml follows openai/harmony's goldens there (HarmonyRender.*).
TEST(HarmonyText, ByteIdenticalToGptOssTemplateWhereMessagesEndInAngleBrackets) {
  const fs::path tmpl = fs::path(OCML_REFERENCE_DIR) / "templates" / "gpt-oss.jinja";
  if (!fs::exists(tmpl)) GTEST_SKIP() << "../shared/reference is absent";
  const std::string py = ocml::test::python_with_jinja();
  if (py.empty()) GTEST_SKIP() << "python3-jinja2 is not installed";
  const std::vector<std::string> ends = {"<", "<<", "<|", "<<|", "a <", "<|literal|>", "<b>"};
  const std::vector<std::string> heads = {"std::vector", "List", "if (a < b) {", "日本語 ", ""};
  const fs::path dir = fs::temp_directory_path() / ("ocml_gptoss_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::size_t lines = 0;
  {
    std::ofstream in(dir / "in.jsonl");
    for (std::size_t i = 0; i < 70; ++i) {
      nlohmann::json msgs = nlohmann::json::array();
      const std::size_t turns = 1 + i % 3;
      for (std::size_t t = 0; t < turns; ++t) {
        const auto text = [&](std::size_t k) {
          return heads[(i + k) % heads.size()] + ends[(i * 3 + k) % ends.size()];
        };
        msgs.push_back({{"role", "user"}, {"content", text(2 * t)}});
        if (t + 1 < turns) {  // (a conversation that ends with the answer is a training
                              // example there: <|return|>, ocml's --training)
          msgs.push_back({{"role", "assistant"}, {"content", text(2 * t + 1)}});
        }
      }
      in << nlohmann::json({{"messages", msgs}, {"add_generation_prompt", true}}).dump() << '\n';
      ++lines;
    }
  }
  const std::string ref = "OCML_TEMPLATE_NOW=2026-01-15T10:30:00 " + py + " " +
                          std::string(OCML_TEST_TOOLS_DIR) + "/render_template.py " +
                          tmpl.string() + " " + (dir / "in.jsonl").string() + " " +
                          (dir / "want.jsonl").string();
  ASSERT_EQ(std::system(ref.c_str()), 0) << ref;
  const auto ours = ocml::test::run("render -d harmony --jsonl --current-date 2026-01-15 " +
                                    (dir / "in.jsonl").string());
  ASSERT_EQ(ours.code, 0) << ours.err;
  std::ifstream want(dir / "want.jsonl");
  std::istringstream got(ours.out);
  std::string w, g;
  std::size_t compared = 0, differences = 0;
  while (std::getline(want, w) && std::getline(got, g)) {
    const auto wj = nlohmann::json::parse(w);
    ASSERT_TRUE(wj.contains("text")) << w;
    if (wj["text"] != nlohmann::json::parse(g)["text"] && ++differences <= 3) {
      ADD_FAILURE() << "line " << compared + 1 << "\n--- jinja2\n"
                    << wj["text"].get<std::string>() << "\n--- ocml\n"
                    << nlohmann::json::parse(g)["text"].get<std::string>();
    }
    ++compared;
  }
  fs::remove_all(dir);
  EXPECT_EQ(compared, lines);
  EXPECT_EQ(differences, 0u);
}

const fs::path kRef = fs::path(OCML_SOURCE_DIR) / "tests/reference";

// With the real o200k_harmony tokenizer: the IDs of a conversation whose content ends in
// '<' are the real prompt's (`vector<<|end|>` encoded with special tokens), and content that
// spells a control token, which text cannot hold, is written as ordinary tokens and read
// back from the IDs as the same text.
TEST(HarmonyText, TokenIdsOfTheRealPromptAndOfUnwritableText) {
  const fs::path ranks = kRef / "o200k_base.tiktoken";
  if (!fs::exists(ranks)) GTEST_SKIP() << "tests/reference not installed (scripts/setup.sh --dev)";
  const auto tok = *ocml::tokenizer::from_file(ranks.string(), {.encoding = "o200k_harmony"});
  for (const std::string tail : {"<", "<<", "<|"}) {
    const auto c = convo("std::vector" + tail, "List" + tail);
    const auto text = ocml::render(c, {.dialect = dialect::harmony});
    ASSERT_TRUE(text.ok());
    const auto seq = ocml::render_tokens(c, {.dialect = dialect::harmony}, tok, {});
    ASSERT_TRUE(seq.ok()) << seq.error().to_string();
    EXPECT_EQ(seq->input_ids, tok.encode(*text, ocml::special_tokens::all)) << tail;
  }
  const auto c = convo("print('<|end|>')", "It prints <|end|>.");
  const auto seq = ocml::render_tokens(c, {.dialect = dialect::harmony}, tok, {});
  ASSERT_TRUE(seq.ok()) << seq.error().to_string();
  const auto end_id = *tok.id_of("<|end|>");
  EXPECT_EQ(std::count(seq->input_ids.begin(), seq->input_ids.end(), end_id), 2);  // structure only
  const auto back = ocml::parse_tokens(seq->input_ids, tok, {.dialect = dialect::harmony});
  ASSERT_TRUE(back.ok()) << back.diagnostics.front().to_string();
  EXPECT_EQ(meaning(back.conversation), meaning(c));
}

}  // namespace
