// SPDX-License-Identifier: Apache-2.0
// The generation loop in token mode: the prompt goes out as IDs, sampled IDs come back, the
// loop stops on the dialect's stop-token IDs whether or not the engine does, structure comes
// only from special IDs, and the HTTP client speaks vLLM's `return_token_ids` protocol.
#include <gtest/gtest.h>

#include <algorithm>

#include "ocml/generate.hpp"
#include "ocml/http_engine.hpp"
#include "ocml/token_render.hpp"
#include "support/loopback_engine.hpp"
#include "token_support.hpp"

namespace {

using ocml::dialect;
using ocml::token_id;
using ocml::test::all_dialects_vocab;

const ocml::tokenizer& vocab() {
  return all_dialects_vocab();
}

// IDs of `text`, every control token spelled in it one ID (what a model samples).
std::vector<token_id> sampled(std::string_view text) {
  return vocab().encode(text, ocml::special_tokens::all);
}

token_id id(std::string_view special) {
  return *vocab().id_of(special);
}

ocml::prompt prompt_for(dialect d, std::string_view user = "Hi") {
  ocml::conversation c;
  c.messages.push_back({.role = ocml::role::user, .content = std::string(user)});
  auto p = ocml::build_prompt(c, {.dialect = d});
  EXPECT_TRUE(static_cast<bool>(p));
  return *p;
}

ocml::generate_options token_mode(dialect d) {
  return {.dialect = d, .tokens = &vocab()};
}

constexpr std::string_view kHarmonyAnswer =
    "<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>final<|message|>"
    "Hi!<|return|>";

TEST(GenerateTokens, TheLoopStopsOnTheStopIdWhenTheEngineRunsPastIt) {
  std::vector<token_id> ids = sampled(kHarmonyAnswer);
  const std::vector<token_id> answer = ids;
  const auto more = sampled("<|start|>assistant<|channel|>final<|message|>invented");
  ids.insert(ids.end(), more.begin(), more.end());
  ocml::scripted_engine engine({{.chunk = 3, .ids = ids, .ignore_stops = true}});
  const auto p = prompt_for(dialect::harmony);
  const auto g = ocml::generate(engine, p, token_mode(dialect::harmony));
  EXPECT_EQ(g.finish, ocml::finish_reason::stop);
  EXPECT_EQ(g.token_ids, answer);
  EXPECT_EQ(g.text, kHarmonyAnswer);
  ASSERT_EQ(g.messages.size(), 2u);
  EXPECT_EQ(g.messages[0].content, "think");
  EXPECT_EQ(g.messages[1].content, "Hi!");
  EXPECT_EQ(g.messages[1].end, ocml::end_token::return_);
  EXPECT_TRUE(g.diagnostics.empty());
  // The engine got the prompt as IDs (each control token one ID) and the stop IDs.
  const auto& req = engine.requests().at(0);
  const auto enc = ocml::encode_markup(p.text, dialect::harmony, vocab(), {});
  ASSERT_TRUE(static_cast<bool>(enc));
  EXPECT_EQ(req.prompt_ids, enc->input_ids);
  EXPECT_EQ(*vocab().decode(req.prompt_ids), p.text);
  EXPECT_EQ(std::count(req.prompt_ids.begin(), req.prompt_ids.end(), id("<|start|>")),
            std::count(req.prompt_ids.begin(), req.prompt_ids.end(), id("<|message|>")) + 1);
  EXPECT_EQ(req.stop_token_ids, (std::vector<token_id>{id("<|return|>"), id("<|call|>")}));
  EXPECT_TRUE(req.stop.empty());
}

TEST(GenerateTokens, AStopIdTheEngineCutIsPutBack) {
  const auto call =
      sampled("<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\":1}<|call|>");
  for (const bool in_output : {false, true}) {
    ocml::scripted_engine engine({{.chunk = 4, .ids = call, .stop_token_in_output = in_output}});
    const auto g =
        ocml::generate(engine, prompt_for(dialect::harmony), token_mode(dialect::harmony));
    EXPECT_EQ(g.token_ids, call) << in_output;
    EXPECT_EQ(g.finish, ocml::finish_reason::tool_calls) << in_output;
    ASSERT_EQ(g.messages.size(), 1u);
    EXPECT_EQ(g.messages[0].recipient, "functions.f");
    EXPECT_EQ(g.messages[0].content, "{\"a\":1}");
    EXPECT_EQ(g.messages[0].end, ocml::end_token::call);
    EXPECT_TRUE(g.diagnostics.empty()) << in_output;
  }
}

TEST(GenerateTokens, OrdinaryTokensSpellingAStopAreContent) {
  // "<|return|>" written as ordinary tokens (byte by byte) is text, not a stop.
  std::vector<token_id> ids = sampled("<|channel|>final<|message|>say ");
  const auto spelled = vocab().encode_ordinary("<|return|>");
  ASSERT_GT(spelled.size(), 1u);
  ids.insert(ids.end(), spelled.begin(), spelled.end());
  ids.push_back(id("<|return|>"));
  ocml::scripted_engine engine({{.ids = ids, .ignore_stops = true}});
  const auto g = ocml::generate(engine, prompt_for(dialect::harmony), token_mode(dialect::harmony));
  ASSERT_EQ(g.messages.size(), 1u);
  EXPECT_EQ(g.messages[0].content, "say <|return|>");
  EXPECT_EQ(g.token_ids, ids);
  EXPECT_EQ(g.finish, ocml::finish_reason::stop);
}

TEST(GenerateTokens, ChunkingNeverChangesTheResult) {
  std::vector<token_id> ids = sampled(kHarmonyAnswer);
  const auto tail = sampled("<|start|>user<|message|>x");
  ids.insert(ids.end(), tail.begin(), tail.end());
  ocml::scripted_engine one({{.chunk = 1000, .ids = ids, .ignore_stops = true}});
  const auto whole =
      ocml::generate(one, prompt_for(dialect::harmony), token_mode(dialect::harmony));
  for (std::size_t chunk = 1; chunk <= 8; ++chunk) {
    ocml::scripted_engine engine({{.chunk = chunk, .ids = ids, .ignore_stops = true}});
    const auto g =
        ocml::generate(engine, prompt_for(dialect::harmony), token_mode(dialect::harmony));
    EXPECT_EQ(g.token_ids, whole.token_ids) << chunk;
    EXPECT_EQ(g.text, whole.text) << chunk;
    ASSERT_EQ(g.messages.size(), whole.messages.size()) << chunk;
    for (std::size_t i = 0; i < g.messages.size(); ++i) {
      EXPECT_EQ(g.messages[i].content, whole.messages[i].content) << chunk;
    }
  }
}

TEST(GenerateTokens, ChatMLAndGabGPTStopOnTheirEndIds) {
  for (const auto& [d, reply, content] : std::vector<std::tuple<dialect, std::string, std::string>>{
           {dialect::chatml, "Hello there<|im_end|>\n<|im_start|>user\nmore", "Hello there"},
           {dialect::gabgpt, "Hello there<|end|><|user|>invented", "Hello there"},
           {dialect::pcml, "Hello there<end>\n<user>\ninvented", "Hello there"}}) {
    ocml::scripted_engine engine({{.ids = sampled(reply), .ignore_stops = true}});
    const auto p = prompt_for(d);
    const auto g = ocml::generate(engine, p, token_mode(d));
    ASSERT_EQ(g.messages.size(), 1u) << ocml::dialect_name(d);
    EXPECT_EQ(g.messages[0].content, content) << ocml::dialect_name(d);
    EXPECT_EQ(g.finish, ocml::finish_reason::stop) << ocml::dialect_name(d);
    EXPECT_EQ(engine.requests().at(0).stop_token_ids.size(), 1u);
    EXPECT_EQ(engine.requests().at(0).stop_token_ids[0], id(p.stop.at(0)));
  }
}

TEST(GenerateTokens, GabGPTSecondRoundSendsTheIdsSoFar) {
  const auto thought = sampled("Let me think.<|end|>");
  const auto answer = sampled("It is 4.<|end|>");
  ocml::scripted_engine engine({{.ids = thought}, {.ids = answer}});
  ocml::conversation c;
  c.messages.push_back({.role = ocml::role::user, .content = "2+2?"});
  const auto p = *ocml::build_prompt(c, {.dialect = dialect::gabgpt, .think = true});
  auto o = token_mode(dialect::gabgpt);
  o.think = true;
  const auto g = ocml::generate(engine, p, o);
  EXPECT_EQ(g.rounds, 2u);
  ASSERT_EQ(engine.requests().size(), 2u);
  std::vector<token_id> second = engine.requests()[0].prompt_ids;
  const auto sofar = sampled("Let me think.<|assistant|>");
  second.insert(second.end(), sofar.begin(), sofar.end());
  EXPECT_EQ(engine.requests()[1].prompt_ids, second);
  ASSERT_EQ(g.messages.size(), 1u);
  EXPECT_EQ(g.messages[0].reasoning, "Let me think.");
  EXPECT_EQ(g.messages[0].content, "It is 4.");
  EXPECT_EQ(g.text, "Let me think.<|assistant|>It is 4.<|end|>");
}

TEST(GenerateTokens, LimitsAndTruncation) {
  const auto ids = sampled(kHarmonyAnswer);
  ocml::scripted_engine engine({{.ids = ids}});
  auto o = token_mode(dialect::harmony);
  o.max_tokens = 5;
  const auto g = ocml::generate(engine, prompt_for(dialect::harmony), o);
  EXPECT_EQ(g.finish, ocml::finish_reason::length);
  EXPECT_EQ(g.token_ids, std::vector<token_id>(ids.begin(), ids.begin() + 5));
  ocml::scripted_engine local({{.ids = ids}});
  o.max_tokens = 0;
  o.max_bytes = 20;
  const auto h = ocml::generate(local, prompt_for(dialect::harmony), o);
  EXPECT_EQ(h.finish, ocml::finish_reason::length);
  EXPECT_LE(h.text.size(), 20u);
  EXPECT_EQ(*vocab().decode(h.token_ids), h.text);
  // The cut is said, whatever the text's size (a token that does not fit is not fed, so the
  // CLI's old guess from the size missed long tokens and exited 0).
  EXPECT_TRUE(std::any_of(h.diagnostics.begin(), h.diagnostics.end(), [](const auto& d) {
    return d.code == ocml::error_code::limit_exceeded && d.level == ocml::severity::warning;
  }));
  // An engine that stops without a stop ID or finish reason: the stream was truncated.
  ocml::scripted_engine dropped(
      {{.drop_connection = true, .ids = sampled("<|channel|>final<|message|>Hi")}});
  const auto t =
      ocml::generate(dropped, prompt_for(dialect::harmony), token_mode(dialect::harmony));
  EXPECT_EQ(t.finish, ocml::finish_reason::error);
  ASSERT_FALSE(t.diagnostics.empty());
  EXPECT_EQ(t.diagnostics.back().code, ocml::error_code::stream_truncated);
}

TEST(GenerateTokens, AStopTokenTheVocabularyLacksIsRefused) {
  auto j = ocml::test::all_dialects_vocab_json();
  j["added_tokens"] = nlohmann::json::array();
  const auto bare = *ocml::tokenizer::from_tokenizer_json(j.dump());
  ocml::scripted_engine engine({{.ids = {1, 2}}});
  const auto g = ocml::generate(engine, prompt_for(dialect::chatml),
                                {.dialect = dialect::chatml, .tokens = &bare});
  EXPECT_EQ(g.finish, ocml::finish_reason::error);
  ASSERT_EQ(g.diagnostics.size(), 1u);
  EXPECT_EQ(g.diagnostics[0].code, ocml::error_code::token_unknown);
  EXPECT_NE(g.diagnostics[0].message.find("<|im_end|>"), std::string::npos);
  EXPECT_TRUE(engine.requests().empty());
}

TEST(GenerateTokens, AModelThatStreamsTextOnlyRefusesTokenMode) {
  struct text_only final : ocml::engine {
    ocml::result<ocml::model_finish> complete(const ocml::model_request&,
                                              const chunk_sink&) override {
      return ocml::model_finish{};
    }
  } engine;
  const auto g = ocml::generate(engine, prompt_for(dialect::chatml), token_mode(dialect::chatml));
  EXPECT_EQ(g.finish, ocml::finish_reason::error);
  ASSERT_FALSE(g.diagnostics.empty());
  EXPECT_EQ(g.diagnostics[0].code, ocml::error_code::engine);
}

// ---- over HTTP, as vLLM speaks it ------------------------------------------------------------

std::vector<std::uint32_t> as_u32(const std::vector<token_id>& ids) {
  return {ids.begin(), ids.end()};
}

TEST(GenerateTokensHttp, PromptIdsOutSampledIdsBackStopIdPutBack) {
  const auto ids = sampled(kHarmonyAnswer);
  auto more = ids;
  const auto tail = sampled("<|start|>assistant<|channel|>final<|message|>more");
  more.insert(more.end(), tail.begin(), tail.end());
  for (const bool in_output : {true, false}) {
    ocml::test::loopback_engine server(
        {{.chunk = 2, .ids = as_u32(more), .stop_token_in_output = in_output}});
    ocml::http_engine model({.endpoint = server.url(), .model = "loopback"});
    const auto p = prompt_for(dialect::harmony);
    const auto g = ocml::generate(model, p, token_mode(dialect::harmony));
    EXPECT_EQ(g.finish, ocml::finish_reason::stop) << in_output;
    EXPECT_EQ(g.token_ids, ids) << in_output;
    ASSERT_EQ(g.messages.size(), 2u);
    EXPECT_EQ(g.messages[1].content, "Hi!");
    EXPECT_TRUE(g.diagnostics.empty()) << in_output;
    const auto body = server.requests().at(0);
    EXPECT_EQ(body["prompt"],
              ocml::encode_markup(p.text, dialect::harmony, vocab(), {})->input_ids);
    EXPECT_EQ(body["stop_token_ids"], nlohmann::json::array({id("<|return|>"), id("<|call|>")}));
    EXPECT_EQ(body["return_token_ids"], true);
    EXPECT_EQ(body["skip_special_tokens"], false);
    EXPECT_FALSE(body.contains("stop"));
  }
}

TEST(GenerateTokensHttp, AnEngineWithoutTokenIdsIsAnEngineError) {
  ocml::test::loopback_engine server(
      {{.ids = as_u32(sampled("Hi<|im_end|>")), .no_token_ids = true}});
  ocml::http_engine model({.endpoint = server.url()});
  const auto g = ocml::generate(model, prompt_for(dialect::chatml), token_mode(dialect::chatml));
  EXPECT_EQ(g.finish, ocml::finish_reason::error);
  ASSERT_FALSE(g.diagnostics.empty());
  EXPECT_EQ(g.diagnostics[0].code, ocml::error_code::engine);
  EXPECT_NE(g.diagnostics[0].message.find("return_token_ids"), std::string::npos);
}

TEST(GenerateTokensHttp, LengthFromTheEngine) {
  const auto ids = sampled(kHarmonyAnswer);
  ocml::test::loopback_engine server({{.ids = as_u32(ids)}});
  ocml::http_engine model({.endpoint = server.url()});
  auto o = token_mode(dialect::harmony);
  o.max_tokens = 4;
  const auto g = ocml::generate(model, prompt_for(dialect::harmony), o);
  EXPECT_EQ(g.finish, ocml::finish_reason::length);
  EXPECT_EQ(g.token_ids, std::vector<token_id>(ids.begin(), ids.begin() + 4));
  EXPECT_EQ(server.requests().at(0)["max_tokens"], 4);
}

}  // namespace
