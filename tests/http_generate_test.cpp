// SPDX-License-Identifier: Apache-2.0
// The generation loop through the HTTP completions backend against a loopback server:
// every GabGPT generation rule and every 2.2 stop condition.
#include <gtest/gtest.h>

#include <thread>

#include "ocml/http_engine.hpp"
#include "support/loopback_engine.hpp"

namespace {

using ocml::test::engine_reply;
using ocml::test::loopback_engine;

ocml::generation run(loopback_engine& engine, ocml::dialect d, const std::string& prompt_text,
                     ocml::generate_options o = {},
                     const std::function<void(const ocml::delta&)>& sink = {}) {
  ocml::http_engine model({.endpoint = engine.url(), .model = "loopback"});
  ocml::prompt p;
  p.text = prompt_text;
  p.stop = ocml::stop_sequences(d);
  o.dialect = d;
  return ocml::generate(model, p, o, sink);
}

std::vector<std::string> codes(const ocml::generation& g) {
  std::vector<std::string> out;
  for (const auto& d : g.diagnostics) {
    out.push_back(std::string(ocml::error_name(d.code)) +
                  (d.level == ocml::severity::warning ? " (warning)" : ""));
  }
  return out;
}

// ---- GabGPT generation rules -----------------------------------------------------------------

TEST(HttpGabGPT, StopsOnEndAndLeavesItOut) {
  loopback_engine engine({{.text = "Hello there<|end|><|user|>invented user turn"}});
  const auto g = run(engine, ocml::dialect::gabgpt, "<|user|>Hi<|assistant|>");
  ASSERT_EQ(g.messages.size(), 1u);
  EXPECT_EQ(g.messages[0].content, "Hello there");
  EXPECT_EQ(g.finish, ocml::finish_reason::stop);
  EXPECT_TRUE(g.diagnostics.empty());
  const auto reqs = engine.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0]["prompt"], "<|user|>Hi<|assistant|>");
  EXPECT_EQ(reqs[0]["stop"], nlohmann::json::array({"<|end|>"}));
  EXPECT_EQ(reqs[0]["stream"], true);
  EXPECT_EQ(reqs[0]["skip_special_tokens"], false);
  EXPECT_EQ(reqs[0]["model"], "loopback");
}

TEST(HttpGabGPT, ThinkToAssistantTransitionInOneRound) {
  loopback_engine engine({{.text = "2+2 is 4<|assistant|>The answer is 4.<|end|>", .chunk = 3}});
  const auto g = run(engine, ocml::dialect::gabgpt, "<|user|>2+2?<|think|>", {.think = true});
  EXPECT_EQ(g.rounds, 1u);
  ASSERT_EQ(g.messages.size(), 1u);
  EXPECT_EQ(g.messages[0].reasoning, "2+2 is 4");
  EXPECT_EQ(g.messages[0].content, "The answer is 4.");
  EXPECT_EQ(engine.requests().size(), 1u);
}

TEST(HttpGabGPT, SecondRoundWhenThinkingNeverReachedTheAnswer) {
  loopback_engine engine(
      {{.text = "Let me think it over.<|end|>"}, {.text = "It is 4.<|end|>junk"}});
  std::string visible;
  const auto g = run(engine, ocml::dialect::gabgpt, "<|user|>2+2?<|think|>", {.think = true},
                     [&](const ocml::delta& d) {
                       if (d.kind == ocml::delta_kind::text) visible.append(d.text);
                     });
  EXPECT_EQ(g.rounds, 2u);
  const auto reqs = engine.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[1]["prompt"], "<|user|>2+2?<|think|>Let me think it over.<|assistant|>");
  ASSERT_EQ(g.messages.size(), 1u);
  EXPECT_EQ(g.messages[0].reasoning, "Let me think it over.");
  EXPECT_EQ(g.messages[0].content, "It is 4.");
  EXPECT_EQ(visible, "It is 4.");
  EXPECT_EQ(g.text, "Let me think it over.<|assistant|>It is 4.<|end|>");
  EXPECT_EQ(g.finish, ocml::finish_reason::stop);
}

TEST(HttpGabGPT, NoSecondRoundWithoutThinkMode) {
  loopback_engine engine({{.text = "Plain answer<|end|>"}, {.text = "never asked"}});
  const auto g = run(engine, ocml::dialect::gabgpt, "<|user|>x<|assistant|>");
  EXPECT_EQ(g.rounds, 1u);
  EXPECT_EQ(engine.requests().size(), 1u);
}

TEST(HttpGabGPT, PromptTruncatedFromTheBeginning) {
  ocml::conversation c;
  for (int i = 0; i < 20; ++i) {
    c.messages.push_back({.role = ocml::role::user, .content = "question " + std::to_string(i)});
    c.messages.push_back({.role = ocml::role::assistant, .content = "answer " + std::to_string(i)});
  }
  c.messages.push_back({.role = ocml::role::user, .content = "last question"});
  auto p = ocml::build_prompt(c, {.dialect = ocml::dialect::gabgpt, .think = true, .budget = 120});
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_LE(p->text.size(), 120u);
  EXPECT_GT(p->dropped_messages, 0u);
  EXPECT_EQ(p->text.substr(0, 8), "<|user|>");  // cut only before a user turn
  EXPECT_EQ(p->text.substr(p->text.size() - 9), "<|think|>");
  loopback_engine engine({{.text = "ok<|assistant|>fine<|end|>"}});
  ocml::http_engine model({.endpoint = engine.url()});
  const auto g = ocml::generate(model, *p, {.dialect = ocml::dialect::gabgpt, .think = true});
  EXPECT_EQ(g.messages.at(0).content, "fine");
  const auto sent = engine.requests().at(0)["prompt"].get<std::string>();
  EXPECT_EQ(sent, p->text);
  EXPECT_EQ(sent.find("question 0"), std::string::npos);
  EXPECT_NE(sent.find("last question"), std::string::npos);
}

// ---- OpenChatML 2.2 stop conditions ----------------------------------------------------------

constexpr const char* kAnswer =
    "<|channel|>analysis<|message|>secret<|end|><|start|>assistant<|channel|>final<|message|>"
    "Hi!<|return|><|start|>assistant<|channel|>final<|message|>more";
constexpr const char* kCall =
    "<|channel|>commentary<|message|>x<|end|><|start|>assistant to=functions.f call_id=c1"
    "<|channel|>commentary<|constrain|>json<|message|>{\"a\":1}<|call|>after the call";

TEST(Http22, ReturnIsAHardStop) {
  loopback_engine engine({{.text = kAnswer, .chunk = 5}});
  const auto g =
      run(engine, ocml::dialect::ocml_2_2, "<|start|>user<|message|>Hi<|end|><|start|>assistant");
  EXPECT_EQ(g.finish, ocml::finish_reason::stop);
  ASSERT_EQ(g.messages.size(), 2u);
  EXPECT_EQ(g.messages[1].content, "Hi!");
  EXPECT_EQ(g.messages[1].end, ocml::end_token::return_);
  EXPECT_TRUE(g.diagnostics.empty()) << codes(g).size();
  EXPECT_EQ(engine.requests()[0]["stop"], nlohmann::json::array({"<|return|>", "<|call|>"}));
}

TEST(Http22, CallIsAHardStop) {
  loopback_engine engine({{.text = kCall, .chunk = 4}});
  const auto g = run(engine, ocml::dialect::ocml_2_2, "<|start|>assistant");
  EXPECT_EQ(g.finish, ocml::finish_reason::tool_calls);
  ASSERT_EQ(g.messages.size(), 2u);
  EXPECT_EQ(g.messages[1].recipient, "functions.f");
  EXPECT_EQ(g.messages[1].end, ocml::end_token::call);
  EXPECT_EQ(g.text.substr(g.text.size() - 8), "<|call|>");
}

TEST(Http22, StopNotReportedIsInferredWithAWarning) {
  loopback_engine engine({{.text = kCall, .report_stop = false}});
  const auto g = run(engine, ocml::dialect::ocml_2_2, "<|start|>assistant");
  EXPECT_EQ(g.finish, ocml::finish_reason::tool_calls);
  EXPECT_EQ(codes(g), std::vector<std::string>{"E-ENGINE (warning)"});
  EXPECT_EQ(g.messages.back().end, ocml::end_token::call);
}

TEST(Http22, FinalClosedByEndEndsTheResponse) {
  loopback_engine engine({{.text = "<|channel|>final<|message|>Done.<|end|><|start|>assistant"
                                   "<|channel|>analysis<|message|>rambling on",
                           .chunk = 3}});
  const auto g = run(engine, ocml::dialect::ocml_2_0, "<|start|>assistant");
  EXPECT_EQ(g.finish, ocml::finish_reason::stop);
  ASSERT_EQ(g.messages.size(), 1u);
  EXPECT_EQ(g.messages[0].content, "Done.");
  EXPECT_TRUE(g.diagnostics.empty());
}

TEST(Http22, LengthLimitFromTheEngine) {
  loopback_engine engine({{.text = kAnswer}});
  const auto g = run(engine, ocml::dialect::ocml_2_2, "<|start|>assistant", {.max_tokens = 30});
  EXPECT_EQ(g.finish, ocml::finish_reason::length);
  EXPECT_EQ(engine.requests()[0]["max_tokens"], 30);
  EXPECT_EQ(g.text.size(), 30u);
  EXPECT_EQ(codes(g), std::vector<std::string>{"E-STREAM-TRUNCATED (warning)"});
}

TEST(Http22, LocalByteLimit) {
  loopback_engine engine({{.text = kAnswer, .chunk = 7}});
  const auto g = run(engine, ocml::dialect::ocml_2_2, "<|start|>assistant", {.max_bytes = 50});
  EXPECT_EQ(g.finish, ocml::finish_reason::length);
  EXPECT_EQ(g.text.size(), 50u);
}

TEST(Http22, EngineStoppingWithoutAStopTokenIsTruncation) {
  loopback_engine engine({{.text = "<|channel|>final<|message|>half an ans", .no_finish = true}});
  const auto g = run(engine, ocml::dialect::ocml_2_2, "<|start|>assistant");
  EXPECT_EQ(g.finish, ocml::finish_reason::error);
  EXPECT_EQ(codes(g), std::vector<std::string>{"E-STREAM-TRUNCATED"});
  ASSERT_EQ(g.messages.size(), 1u);
  EXPECT_EQ(g.messages[0].content, "half an ans");  // kept, marked unterminated
  EXPECT_EQ(g.messages[0].end, ocml::end_token::unterminated);
}

TEST(Http22, CancellationMidStream) {
  loopback_engine engine({{.text = kAnswer, .chunk = 2, .delay_ms = 5}});
  ocml::cancellation cancel;
  std::size_t deltas = 0;
  const auto g = run(engine, ocml::dialect::ocml_2_2, "<|start|>assistant", {.cancel = &cancel},
                     [&](const ocml::delta& d) {
                       if (d.kind == ocml::delta_kind::reasoning && ++deltas == 2) cancel.cancel();
                     });
  EXPECT_EQ(g.finish, ocml::finish_reason::cancelled);
  EXPECT_LT(g.text.size(), std::string(kAnswer).find("<|return|>"));
  for (const auto& d : g.diagnostics) EXPECT_EQ(d.level, ocml::severity::warning);
}

TEST(Http22, StrippedSpecialTokensAreReported) {
  loopback_engine engine({{.text = kAnswer, .strip_special = true}});
  const auto g = run(engine, ocml::dialect::ocml_2_2, "<|start|>assistant");
  EXPECT_EQ(g.finish, ocml::finish_reason::error);
  const auto c = codes(g);
  EXPECT_NE(std::find(c.begin(), c.end(), "E-ENGINE-TOKENS-STRIPPED"), c.end());
}

TEST(Http, ServerErrorsAreEngineErrors) {
  loopback_engine engine({{.text = "x", .status = 503}});
  const auto g = run(engine, ocml::dialect::chatml, "p");
  EXPECT_EQ(g.finish, ocml::finish_reason::error);
  ASSERT_EQ(codes(g), std::vector<std::string>{"E-ENGINE"});
  EXPECT_NE(g.diagnostics[0].message.find("HTTP 503"), std::string::npos);
  EXPECT_NE(g.diagnostics[0].message.find("scripted failure"), std::string::npos);
}

TEST(Http, ConnectionRefusedIsAnEngineError) {
  int port = 0;
  {
    loopback_engine gone({});
    port = gone.port();
  }
  ocml::http_engine model({.endpoint = "http://127.0.0.1:" + std::to_string(port)});
  ocml::prompt p;
  p.text = "x";
  const auto g = ocml::generate(model, p, {.dialect = ocml::dialect::chatml});
  EXPECT_EQ(g.finish, ocml::finish_reason::error);
  EXPECT_EQ(codes(g), std::vector<std::string>{"E-ENGINE"});
}

TEST(Http, ChatMLAndPCMLStops) {
  loopback_engine engine({{.text = "Sure.<|im_end|>\n<|im_start|>user\nfake"},
                          {.text = "Sure.<end>[/AST]\n[USR]fake"}});
  const auto a = run(engine, ocml::dialect::chatml, "<|im_start|>assistant\n");
  ASSERT_EQ(a.messages.size(), 1u);
  EXPECT_EQ(a.messages[0].content, "Sure.");
  EXPECT_EQ(a.finish, ocml::finish_reason::stop);
  const auto b = run(engine, ocml::dialect::pcml, "[AST]");
  ASSERT_EQ(b.messages.size(), 1u);
  EXPECT_EQ(b.messages[0].content, "Sure.");
  EXPECT_EQ(b.finish, ocml::finish_reason::stop);
  EXPECT_TRUE(b.diagnostics.empty()) << b.diagnostics[0].to_string();
  EXPECT_EQ(engine.requests()[1]["stop"], nlohmann::json::array({"<end>"}));
}

TEST(Http, RequestsBeyondTheBoundAreRefused) {
  loopback_engine engine({{.text = "a<|im_end|>"}, {.text = "b<|im_end|>"}}, 1);
  EXPECT_EQ(run(engine, ocml::dialect::chatml, "p").finish, ocml::finish_reason::stop);
  const auto g = run(engine, ocml::dialect::chatml, "p");
  EXPECT_EQ(codes(g), std::vector<std::string>{"E-ENGINE"});
  EXPECT_NE(g.diagnostics[0].message.find("HTTP 429"), std::string::npos);
}

}  // namespace

namespace {

// ---- hostile engines (issue 13) --------------------------------------------------------

// Cancels `cancel` once `ms` have passed (a Ctrl-C while the engine holds the request).
std::thread cancel_after(ocml::cancellation& cancel, int ms) {
  return std::thread([&cancel, ms] {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    cancel.cancel();
  });
}

// The first cancellation stops the request whatever the engine does: silent, keep-alive
// comments only (an endless error body ends by itself: below). hostile_completed() == 0
// says the client left before the engine's 20 s were up (it would be 1 had the request
// waited them out).
TEST(HttpHostile, CancellationStopsARequestTheEngineHolds) {
  for (const engine_reply& r : {engine_reply{.silent = true}, engine_reply{.keep_alive = true}}) {
    loopback_engine engine({r});
    ocml::cancellation cancel;
    std::thread t = cancel_after(cancel, 150);
    const auto g = run(engine, ocml::dialect::chatml, "p", {.cancel = &cancel});
    t.join();
    EXPECT_EQ(g.finish, ocml::finish_reason::cancelled) << r.silent << r.keep_alive;
    EXPECT_EQ(engine.hostile_completed(), 0u);
    engine.stop();
  }
}

// Without a cancellation: an endless error body ends at its first 4 KiB, an endless
// stream at max_bytes (generate) or max_response_bytes (the client), never in memory.
TEST(HttpHostile, EndlessResponsesAreCutOff) {
  {
    loopback_engine engine({{.text = std::string(1000, 'e'), .status = 500, .endless = true}});
    const auto g = run(engine, ocml::dialect::chatml, "p");
    EXPECT_EQ(g.finish, ocml::finish_reason::error);
    EXPECT_EQ(codes(g), std::vector<std::string>{"E-ENGINE"});
    EXPECT_NE(g.diagnostics[0].message.find("HTTP 500"), std::string::npos);
    engine.stop();
  }
  {
    loopback_engine engine({{.text = std::string(4096, 'a'), .endless = true}});
    const auto g = run(engine, ocml::dialect::chatml, "p", {.max_bytes = 1 << 20});
    EXPECT_EQ(g.finish, ocml::finish_reason::length);
    EXPECT_EQ(g.text.size(), std::size_t{1} << 20);
    engine.stop();
  }
  {
    loopback_engine engine({{.text = std::string(4096, 'a'), .endless = true}});
    ocml::http_engine model({.endpoint = engine.url(), .max_response_bytes = 1 << 20});
    std::size_t got = 0;
    const auto r = model.complete({.prompt = "p"}, [&](std::string_view t) {
      got += t.size();
      return true;
    });
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ocml::error_code::limit_exceeded);
    EXPECT_LE(got, std::size_t{1} << 20);
    engine.stop();
  }
}

// A stream that ends without a finish reason or [DONE] was cut: an error, not a warning.
TEST(HttpHostile, CutStreamIsAnError) {
  loopback_engine engine({{.text = "half an answer", .cut = true}});
  const auto g = run(engine, ocml::dialect::chatml, "p");
  EXPECT_EQ(g.finish, ocml::finish_reason::error);
  const auto c = codes(g);
  EXPECT_NE(std::find(c.begin(), c.end(), "E-ENGINE"), c.end());
}

// Text that is not UTF-8 in the prompt goes to the engine as U+FFFD (it was a type_error
// exception out of the request).
TEST(HttpHostile, PromptThatIsNotUtf8IsSentRepaired) {
  loopback_engine engine({{.text = "ok<|im_end|>"}});
  const auto g = run(engine, ocml::dialect::chatml, "bad \xff byte");
  EXPECT_NE(g.finish, ocml::finish_reason::error);
  ASSERT_EQ(engine.requests().size(), 1u);
  EXPECT_EQ(engine.requests()[0]["prompt"], "bad \xef\xbf\xbd byte");
}

}  // namespace

namespace {

TEST(HttpEngine, ConnectionsAreReusedThroughAPool) {
  loopback_engine engine({{.text = "Hi<|im_end|>"}, {.text = "Again<|im_end|>"}});
  auto pool = std::make_shared<ocml::http_connections>(4);
  ocml::http_engine model({.endpoint = engine.url(), .connections = pool});
  ocml::prompt p;
  p.text = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n";
  p.stop = ocml::stop_sequences(ocml::dialect::chatml);
  ocml::cancellation cancel;
  for (const char* want : {"Hi", "Again"}) {
    const auto g = ocml::generate(model, p, {.dialect = ocml::dialect::chatml, .cancel = &cancel});
    ASSERT_EQ(g.messages.size(), 1u);
    EXPECT_EQ(g.messages[0].content, want);
    EXPECT_EQ(g.finish, ocml::finish_reason::stop);
    // The response ended cleanly: its connection went back to the pool.
    EXPECT_EQ(pool->idle(), 1u);
  }
  // A failed request does not give its connection back.
  const auto g = ocml::generate(model, p, {.dialect = ocml::dialect::chatml});
  EXPECT_EQ(g.finish, ocml::finish_reason::error);
  EXPECT_EQ(pool->idle(), 0u);
}

}  // namespace
