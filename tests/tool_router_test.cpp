// SPDX-License-Identifier: Apache-2.0
// The tool router: schemas, routing rules, concurrency, deadlines, cancellation, commands.
#include <gtest/gtest.h>

#include <thread>

#include "ocml/decoder.hpp"
#include "ocml/render.hpp"
#include "ocml/tools.hpp"
#include "support.hpp"

namespace {

using namespace std::chrono_literals;

const ocml::json kWeatherSchema = ocml::json::parse(R"({
  "type": "object",
  "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
  "required": ["city"], "additionalProperties": false})");

ocml::tool_call_request call(std::string id, std::string recipient, std::string args,
                             std::string channel = "commentary") {
  return {.call_id = std::move(id),
          .recipient = std::move(recipient),
          .channel = std::move(channel),
          .arguments = std::move(args)};
}

std::string code(const ocml::tool_reply& r) {
  return r.error ? std::string(ocml::error_name(r.error->code)) : "ok";
}

// Sleeps up to `ms`, returning early when the call is cancelled.
void nap(const ocml::tool_context& ctx, int ms) {
  for (int i = 0; i < ms && !ctx.cancelled(); ++i) std::this_thread::sleep_for(1ms);
}

ocml::tool_router weather_router(ocml::router_options o = {}) {
  ocml::tool_router r(o);
  EXPECT_TRUE(r.add({.name = "get_weather",
                     .parameters = kWeatherSchema,
                     .handler = [](const ocml::json& a,
                                   const ocml::tool_context&) -> ocml::result<ocml::json> {
                       return ocml::json{{"city", a["city"]}, {"temp_c", 21}};
                     }})
                  .ok());
  return r;
}

TEST(ToolRouter, ValidCallGetsTheEnvelope) {
  auto router = weather_router();
  const auto replies = router.run({call("c1", "functions.get_weather", R"({"city":"Paris"})")});
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_TRUE(replies[0].ok);
  const auto env = replies[0].envelope();
  EXPECT_EQ(env["ok"], true);
  EXPECT_EQ(env["content"]["temp_c"], 21);
  EXPECT_TRUE(env["error"].is_null());
  EXPECT_EQ(env["provenance"]["source"], "ocml:get_weather");
  EXPECT_TRUE(env["provenance"]["timestamp"].is_string());
  const auto m = replies[0].to_message();
  EXPECT_EQ(m.role, ocml::role::tool);
  EXPECT_EQ(m.call_id, "c1");
  EXPECT_EQ(m.name, "functions.get_weather");
}

TEST(ToolRouter, SchemaViolationsNameTheFailingPath) {
  auto router = weather_router();
  const auto replies = router.run({call("a", "functions.get_weather", R"({"city":7})"),
                                   call("b", "functions.get_weather", R"({"town":"Paris"})"),
                                   call("c", "functions.get_weather", R"({"city":"X","days":0})"),
                                   call("d", "functions.get_weather", R"({"city":)")});
  ASSERT_EQ(replies.size(), 4u);
  std::map<std::string, std::string> why;
  for (const auto& r : replies) {
    ASSERT_EQ(code(r), "E-CALL-SCHEMA") << r.call_id;
    EXPECT_FALSE(r.ok);
    why[r.call_id] = r.error->message;
  }
  EXPECT_NE(why["a"].find("at /city"), std::string::npos) << why["a"];
  EXPECT_NE(why["c"].find("at /days"), std::string::npos) << why["c"];
  EXPECT_NE(why["d"].find("not JSON"), std::string::npos) << why["d"];
  EXPECT_FALSE(why["b"].empty());
}

TEST(ToolRouter, TwoConcurrentCallsAnsweredOutOfOrder) {
  ocml::tool_router router({.max_concurrency = 2});
  const auto sleeper = [](const ocml::json& a,
                          const ocml::tool_context& ctx) -> ocml::result<ocml::json> {
    nap(ctx, a["ms"].get<int>());
    return ocml::json{{"slept", a["ms"]}};
  };
  ASSERT_TRUE(router.add({.name = "sleep", .handler = sleeper}).ok());
  std::vector<std::string> order;
  const auto replies =
      router.run({call("slow", "functions.sleep", R"({"ms":400})"),
                  call("fast", "functions.sleep", R"({"ms":10})")},
                 [&order](const ocml::tool_reply& r) { order.push_back(r.call_id); });
  // Started first, finished last: with one worker the slow call would have replied first.
  EXPECT_EQ(order, (std::vector<std::string>{"fast", "slow"}));
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0].call_id, "fast");
  EXPECT_TRUE(replies[0].ok && replies[1].ok);
}

TEST(ToolRouter, DeadlineFires) {
  ocml::tool_router router({.max_concurrency = 2});
  std::atomic<bool> saw_cancel{false};
  ASSERT_TRUE(router
                  .add({.name = "slow",
                        .handler = [&saw_cancel](const ocml::json&, const ocml::tool_context& ctx)
                            -> ocml::result<ocml::json> {
                          nap(ctx, 5000);
                          saw_cancel = ctx.cancelled();
                          return ocml::json("late");
                        }})
                  .ok());
  const auto replies = router.run({call("c1", "functions.slow", R"({"deadline_ms":50})")});
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(code(replies[0]), "E-TOOL-TIMEOUT");
  EXPECT_TRUE(saw_cancel);  // the handler was told, and its late result was discarded
}

TEST(ToolRouter, CancellationOfOneCallAndOfTheRun) {
  ocml::tool_router router({.max_concurrency = 4});
  ASSERT_TRUE(router
                  .add({.name = "wait",
                        .handler = [](const ocml::json&,
                                      const ocml::tool_context& ctx) -> ocml::result<ocml::json> {
                          nap(ctx, 5000);
                          return ocml::json("done");
                        }})
                  .ok());
  ASSERT_TRUE(router
                  .add({.name = "quick",
                        .handler = [](const ocml::json&, const ocml::tool_context&)
                            -> ocml::result<ocml::json> { return ocml::json(1); }})
                  .ok());
  // The quick call's reply cancels the waiting one.
  const auto replies =
      router.run({call("w", "functions.wait", "{}"), call("q", "functions.quick", "{}")},
                 [&router](const ocml::tool_reply& r) {
                   if (r.call_id == "q") EXPECT_TRUE(router.cancel("w", "user pressed stop"));
                 });
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(code(replies[1]), "E-TOOL-CANCELLED");
  EXPECT_EQ(replies[1].error->message, "user pressed stop");
  // A run-wide cancellation.
  ocml::cancellation all;
  std::thread stopper([&all] {
    std::this_thread::sleep_for(50ms);
    all.cancel();
  });
  const auto more =
      router.run({call("a", "functions.wait", "{}"), call("b", "functions.wait", "{}")}, {}, &all);
  stopper.join();
  ASSERT_EQ(more.size(), 2u);
  EXPECT_EQ(code(more[0]), "E-TOOL-CANCELLED");
  EXPECT_EQ(code(more[1]), "E-TOOL-CANCELLED");
}

TEST(ToolRouter, RoutingRules) {
  ocml::tool_router router;
  const auto echo = [](const ocml::json& a,
                       const ocml::tool_context& ctx) -> ocml::result<ocml::json> {
    return ocml::json{{"to", ctx.recipient()}, {"args", a}};
  };
  ASSERT_TRUE(router.add({.name = "f", .handler = echo}).ok());
  ASSERT_TRUE(
      router.add({.name = "browser", .handler = echo, .kind = ocml::tool_kind::builtin}).ok());
  const auto r = router.run(
      {call("1", "functions.f", "{}", "analysis"),
       call("2", "browser.search", R"({"q":"x"})", "analysis"), call("3", "functions.nope", "{}"),
       call("4", "browser.open", "{}", "final"), call("5", "functions.f", "{}", "")});
  std::map<std::string, std::string> got;
  for (const auto& x : r) got[x.call_id] = code(x);
  EXPECT_EQ(got["1"], "E-TOOL-ROUTING");  // function tools only from commentary
  EXPECT_EQ(got["2"], "ok");              // built-ins also from analysis
  EXPECT_EQ(got["3"], "E-TOOL-UNKNOWN");
  EXPECT_EQ(got["4"], "E-TOOL-ROUTING");
  EXPECT_EQ(got["5"], "ok");  // dialects without channels
}

TEST(ToolRouter, HandlerErrorsAndExceptionsAreReplies) {
  ocml::tool_router router;
  ASSERT_TRUE(router
                  .add({.name = "boom",
                        .handler = [](const ocml::json&, const ocml::tool_context&)
                            -> ocml::result<ocml::json> { throw std::runtime_error("kaput"); }})
                  .ok());
  ASSERT_TRUE(router
                  .add({.name = "env",
                        .handler = [](const ocml::json&,
                                      const ocml::tool_context&) -> ocml::result<ocml::json> {
                          return ocml::json::parse(
                              R"({"ok":false,"error":{"message":"quota exceeded"}})");
                        }})
                  .ok());
  const auto r = router.run({call("1", "functions.boom", "{}"), call("2", "functions.env", "{}")});
  for (const auto& x : r) {
    EXPECT_EQ(code(x), "E-TOOL-FAILED");
    EXPECT_NE(x.error->message.find(x.call_id == "1" ? "kaput" : "quota exceeded"),
              std::string::npos);
  }
  EXPECT_FALSE(router.add({.name = "boom"}).ok());  // taken
  EXPECT_EQ(router.add({.name = "bad", .parameters = ocml::json::parse(R"({"type": 5})")}).ok(),
            false);
}

TEST(ToolRouter, ExternalCommands) {
  ocml::tool_router router({.max_concurrency = 4});
  // Reads {"a":..,"b":..} on stdin, prints the sum: a real stdin/stdout round trip.
  ASSERT_TRUE(router
                  .add({.name = "add",
                        .handler = ocml::command_tool(
                            "python3 -c 'import json,sys; a=json.load(sys.stdin); "
                            "print(json.dumps({\"sum\": a[\"a\"] + a[\"b\"]}))'")})
                  .ok());
  ASSERT_TRUE(
      router.add({.name = "crash", .handler = ocml::command_tool("echo dying >&2; kill -SEGV $$")})
          .ok());
  ASSERT_TRUE(
      router.add({.name = "fail", .handler = ocml::command_tool("echo nope >&2; exit 3")}).ok());
  ASSERT_TRUE(
      router.add({.name = "garbage", .handler = ocml::command_tool("echo 'not json {'")}).ok());
  ASSERT_TRUE(router.add({.name = "hang", .handler = ocml::command_tool("sleep 30")}).ok());
  const auto r = router.run(
      {call("add", "functions.add", R"({"a":2,"b":40})"), call("crash", "functions.crash", "{}"),
       call("fail", "functions.fail", "{}"), call("garbage", "functions.garbage", "{}"),
       call("hang", "functions.hang", R"({"deadline_ms":100})")});
  std::map<std::string, ocml::tool_reply> got;
  for (const auto& x : r) got[x.call_id] = x;
  ASSERT_EQ(got.size(), 5u);
  EXPECT_TRUE(got["add"].ok) << got["add"].envelope().dump();
  EXPECT_EQ(got["add"].content["sum"], 42);
  EXPECT_EQ(code(got["crash"]), "E-TOOL-FAILED");
  EXPECT_NE(got["crash"].error->message.find("signal 11"), std::string::npos);
  EXPECT_NE(got["crash"].error->message.find("dying"), std::string::npos);
  EXPECT_EQ(code(got["fail"]), "E-TOOL-FAILED");
  EXPECT_NE(got["fail"].error->message.find("status 3: nope"), std::string::npos);
  EXPECT_EQ(code(got["garbage"]), "E-TOOL-FAILED");
  EXPECT_NE(got["garbage"].error->message.find("invalid JSON"), std::string::npos);
  EXPECT_EQ(code(got["hang"]), "E-TOOL-TIMEOUT");
}

TEST(ToolRouter, CallsFromEveryDialectShape) {
  const auto harmony = ocml::parse(
      "<|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json"
      "<|message|>{\"city\":\"Oslo\"}<|call|>",
      {.dialect = ocml::dialect::harmony});
  const auto chatml = ocml::parse(
      "<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
      "{\"city\": \"Oslo\"}}\n</tool_call><|im_end|>",
      {.dialect = ocml::dialect::chatml});
  for (const auto* r : {&harmony, &chatml}) {
    ASSERT_TRUE(r->ok());
    const auto calls = ocml::tool_router::calls_in(r->conversation.messages);
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].recipient, "functions.get_weather");
    // A generated id in OpenAI's shape: "call_" and 24 base-62 characters.
    EXPECT_TRUE(ocml::test::is_generated_call_id(calls[0].call_id)) << calls[0].call_id;
    auto router = weather_router();
    const auto replies = router.run(calls);
    ASSERT_EQ(replies.size(), 1u);
    EXPECT_TRUE(replies[0].ok) << replies[0].envelope().dump();
  }
}

TEST(ToolRouter, ReplyRendersInEveryDialectWithTheCallIdEchoed) {
  auto router = weather_router();
  const auto reply = router.run({call("xyz789", "functions.get_weather", R"({"city":"Rome"})")})[0];
  ocml::conversation c;
  c.messages.push_back(reply.to_message());
  const auto text = ocml::render(c, {.dialect = ocml::dialect::ocml_2_2});
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("call_id=xyz789"), std::string::npos) << *text;
  EXPECT_NE(text->find("\"temp_c\":21"), std::string::npos);
  for (const auto d : {ocml::dialect::chatml, ocml::dialect::pcml, ocml::dialect::harmony,
                       ocml::dialect::ocml_0_1}) {
    const auto t = ocml::render(c, {.dialect = d});
    EXPECT_TRUE(t.ok()) << ocml::dialect_name(d);
  }
}

}  // namespace

namespace {

// deadline_ms is a whole number of milliseconds from 1 to 24 h: 9.2e15 and 1e300 overflowed
// the clock into a deadline already past (an instant timeout) (issue 13).
TEST(ToolRouter, DeadlineMsIsValidated) {
  auto router = weather_router();
  std::vector<ocml::tool_call_request> calls;
  const char* bad[] = {"0", "-5", "1.5", "9.2e15", "1e300", "\"100\"", "86400001"};
  for (std::size_t i = 0; i < std::size(bad); ++i) {
    calls.push_back(call("b" + std::to_string(i), "functions.get_weather",
                         std::string(R"({"city":"Paris","deadline_ms":)") + bad[i] + "}"));
  }
  calls.push_back(
      call("ok", "functions.get_weather", R"({"city":"Paris","deadline_ms":86400000})"));
  const auto replies = router.run(calls);
  ASSERT_EQ(replies.size(), calls.size());
  for (const auto& r : replies) {
    if (r.call_id == "ok") {
      EXPECT_EQ(code(r), "ok");
    } else {
      EXPECT_EQ(code(r), "E-CALL-SCHEMA") << r.call_id;
      EXPECT_NE(r.error->message.find("deadline_ms"), std::string::npos) << r.error->message;
    }
  }
}

}  // namespace
