// SPDX-License-Identifier: Apache-2.0
// ocml's response-template extensions (x-ocml-*: docs/response-templates.md), the executor
// fixes of issue 26 (lookbehinds and chunking, join separators in streamed chunks, a field
// matched twice), and the curated templates a model folder picks by fingerprint. Every parse
// here runs at every chunk size 1..16 (parse_every_chunking).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ocml/curated.hpp"
#include "ocml/derive.hpp"
#include "ocml/format.hpp"
#include "ocml/response.hpp"
#include "ocml/template.hpp"
#include "response/support.hpp"

using ocml::json;
using ocml::test::load;
using ocml::test::parse_every_chunking;
using ocml::test::parse_ok;

namespace {

// The OpenAI deltas of a parse fed one byte at a time, folded as a client folds them.
json fold_stream(const ocml::response_template& t, std::string_view text,
                 const ocml::response_parser_options& o = {}) {
  std::string content;
  std::string reasoning;
  json calls = json::array();
  ocml::response_projection proj([&](const ocml::delta& d) {
    switch (d.kind) {
      case ocml::delta_kind::text:
        content += d.text;
        break;
      case ocml::delta_kind::reasoning:
        reasoning += d.text;
        break;
      case ocml::delta_kind::call_begin:
        calls.push_back({{"name", std::string(d.name)}, {"arguments", ""}});
        break;
      case ocml::delta_kind::call_arguments:
        calls.back()["arguments"] =
            calls.back()["arguments"].get<std::string>() + std::string(d.text);
        break;
      default:
        break;
    }
  });
  ocml::response_parser p(t, o, [&](const ocml::response_event& e) { proj(e); });
  for (char c : text) p.push(std::string_view(&c, 1));
  EXPECT_TRUE(p.finish());
  return {{"content", content}, {"reasoning", reasoning}, {"calls", calls}};
}

const json kLlama = json::parse(R"json({
  "fields": {
    "tool_calls": {"open_pattern": "(?:<\\|python_tag\\|>|;[ \\t]*)?(?=\\{\\s*\"name\"\\s*:)",
                   "close": "<|eot_id|>", "repeats": true, "content": "json",
                   "x-ocml-json-end": true, "x-ocml-fallback": "text"},
    "content": {"close": "<|eot_id|>", "content_args": {"strip": false},
                "repeats": true, "join": ""}}})json");

TEST(ResponseExtensions, JsonEndClosesABareJsonCallWithoutAMarker) {
  // Llama 3.x: the call is the JSON object itself; text after it is content again.
  const json m = parse_ok(kLlama,
                          "Checking.\n{\"name\": \"f\", \"parameters\": {\"s\": \"}{\\\"\"}}; "
                          "{\"name\": \"g\", \"parameters\": {}} done<|eot_id|>");
  ASSERT_EQ(m["tool_calls"].size(), 2U);
  EXPECT_EQ(m["tool_calls"][0]["parameters"]["s"], "}{\"");  // brackets in a string are text
  EXPECT_EQ(m["tool_calls"][1]["name"], "g");
  EXPECT_EQ(m["content"], "Checking.\n done");
  // "parameters" is the call's arguments in OpenAI form.
  const json o = ocml::response_to_openai(m);
  EXPECT_EQ(o["tool_calls"][0]["function"]["arguments"], R"({"s":"}{\""})");
  // A brace in prose that opens no {"name": …} is text.
  EXPECT_EQ(parse_ok(kLlama, "a {\"x\": 1} b")["content"], "a {\"x\": 1} b");
}

TEST(ResponseExtensions, FallbackKeepsTheTextWithItsDelimitersWhereItStood) {
  json spec = kLlama;
  spec["fields"]["tool_calls"] = {{"open", "<tool_call>"},
                                  {"close", "</tool_call>"},
                                  {"repeats", true},
                                  {"content", "json"},
                                  {"x-ocml-fallback", "text"}};
  // Strict mode: a warning, not an error, and the text in place.
  const auto t = load(spec);
  const std::string out =
      "Wrap calls in <tool_call></tool_call> tags: <tool_call>{\"name\": "
      "\"f\"}</tool_call>.";
  auto m = parse_every_chunking(t, out);
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ((*m)["content"], "Wrap calls in <tool_call></tool_call> tags: .");
  ASSERT_EQ((*m)["tool_calls"].size(), 1U);
  ocml::response_parser p(t, {}, nullptr);
  p.push(out);
  ASSERT_TRUE(p.finish());
  ASSERT_EQ(p.diagnostics().size(), 1U);
  EXPECT_EQ(p.diagnostics()[0].level, ocml::severity::warning);
  // Without the extension, strict mode refuses, as transformers raises.
  spec["fields"]["tool_calls"].erase("x-ocml-fallback");
  EXPECT_FALSE(ocml::parse_response(load(spec), out));
}

TEST(ResponseExtensions, OnceOpensOnlyBeforeTheAnswer) {
  const json spec = json::parse(R"({"fields": {
    "reasoning": {"open": "<think>", "close": "</think>", "x-ocml-once": true},
    "content": {"content_args": {"strip": false}}}})");
  EXPECT_EQ(parse_ok(spec, "<think>a</think>Quote <think>b</think>."),
            json::parse(R"({"reasoning": "a", "content": "Quote <think>b</think>."})"));
  // The prompt's empty block does not count: the model may still open its own (QwQ).
  EXPECT_EQ(parse_ok(spec, "<think>a</think>x", {.prefix = "<think></think>"}),
            json::parse(R"({"reasoning": "a", "content": "x"})"));
  // A region the prompt opened and closed gives no value: it is the prompt's, and the
  // stream does not send it either; one the generation goes on with keeps the prompt's part.
  EXPECT_EQ(parse_ok(spec, "x", {.prefix = "<think>budget 0</think>"}),
            json::parse(R"({"content": "x"})"));
  const json folded = fold_stream(load(spec), "x", {.prefix = "<think>budget 0</think>"});
  EXPECT_EQ(folded["reasoning"], "");
  EXPECT_EQ(folded["content"], "x");
  EXPECT_EQ(parse_ok(spec, "fix</think>x", {.prefix = "<think>pre"})["reasoning"], "prefix");
  EXPECT_EQ(fold_stream(load(spec), "fix</think>x", {.prefix = "<think>pre"})["reasoning"],
            "prefix");
}

TEST(ResponseExtensions, InsideOpensWithinAnotherRegionWhichGoesOn) {
  const json spec = json::parse(R"({"fields": {
    "reasoning": {"open": "<think>", "close": "</think>", "content_args": {"strip": false}},
    "tool_calls": {"open": "<call>", "close": "</call>", "repeats": true, "content": "json",
                   "x-ocml-inside": "reasoning"},
    "content": {"content_args": {"strip": false}}}})");
  const std::string out =
      "<think>Look it up.<call>{\"name\": \"f\", \"arguments\": {}}</call> Done.</think>Answer.";
  EXPECT_EQ(parse_ok(spec, out), json::parse(R"({"reasoning": "Look it up. Done.",
    "tool_calls": [{"name": "f", "arguments": {}}], "content": "Answer."})"));
  const json folded = fold_stream(load(spec), out);
  EXPECT_EQ(folded["reasoning"], "Look it up. Done.");
  ASSERT_EQ(folded["calls"].size(), 1U);
  // Naming a field that does not exist (or the implicit one) is a load error.
  json bad = spec;
  bad["fields"]["tool_calls"]["x-ocml-inside"] = "content";
  EXPECT_FALSE(ocml::response_template::from_json(bad));
}

TEST(ResponseExtensions, SkipReadsStrayMarkersAsStructure) {
  const json spec = json::parse(R"({"x-ocml-skip": ["<response>", "</response>"], "fields": {
    "content": {"content_args": {"strip": false}}}})");
  const auto r = ocml::test::run_response(load(spec), "<response>Hi</response>", {}, 1);
  ASSERT_TRUE(r.message);
  EXPECT_EQ(*r.message, json::parse(R"({"content": "Hi"})"));
}

TEST(ResponseExtensions, DeclaredToolsOnlyAndUntypedValues) {
  const json spec = json::parse(R"({"fields": {
    "tool_calls": {"open_pattern": "<call (?P<name>\\w+)>", "close": "</call>",
                   "repeats": true, "content": "kv-lines",
                   "x-ocml-declared-tools-only": true, "x-ocml-untyped-values": "json",
                   "transform": {"name": "{name}", "arguments": "{content}"}},
    "content": {"content_args": {"strip": false}}}})");
  const json tools = json::parse(R"([{"type": "function", "function": {"name": "f",
    "parameters": {"type": "object", "properties": {"code": {"type": "string"},
                                                    "n": {"type": "float"}}}}}])");
  const std::string out =
      "<call f>code: 02139\nn: 2.5\nlist: [1, 2]\nzip: 02139</call>"
      "<call g>a: 1</call>";
  const json m = parse_ok(spec, out, {.tools = &tools});
  ASSERT_EQ(m["tool_calls"].size(), 1U);
  EXPECT_EQ(m["tool_calls"][0]["arguments"],
            json::parse(R"({"code": "02139", "n": 2.5, "list": [1, 2], "zip": "02139"})"));
  EXPECT_EQ(m["content"], "<call g>a: 1</call>");  // g was not declared
  // Without the request's tools, every call is a call.
  EXPECT_EQ(parse_ok(spec, out)["tool_calls"].size(), 2U);
}

TEST(ResponseExecutor, LookbehindSeesTheSameBytesAtEveryChunking) {
  // The close needs the byte before it: with the consumed bytes dropped at each push, a
  // one-byte stream could not see it (issue 26).
  const json spec = json::parse(R"({"fields": {
    "a": {"open": "<a>", "close_pattern": "(?<=x)END"},
    "content": {"content_args": {"strip": false}}}})");
  EXPECT_EQ(parse_ok(spec, "<a>yENDxEND tail"),
            json::parse(R"({"a": "yENDx", "content": " tail"})"));
  const json word = json::parse(R"({"fields": {
    "a": {"open": "<a>", "close_pattern": "\\bstop\\b"},
    "content": {"content_args": {"strip": false}}}})");
  EXPECT_EQ(parse_ok(word, "<a>nonstop stop!"), json::parse(R"({"a": "nonstop", "content": "!"})"));
}

TEST(ResponseExecutor, StreamedChunksCarryJoinSeparatorsAndFoldToTheParse) {
  const json spec = json::parse(R"({"fields": {
    "tool_calls": {"open": "<c>", "close": "</c>", "repeats": true, "content": "json"},
    "content": {"repeats": true, "join": " | "}}})");
  const std::string out = "one<c>{\"name\": \"f\", \"arguments\": {}}</c>two";
  const json m = parse_ok(spec, out);
  EXPECT_EQ(m["content"], "one | two");
  const json folded = fold_stream(load(spec), out);
  EXPECT_EQ(folded["content"], "one | two");
  ASSERT_EQ(folded["calls"].size(), 1U);
  EXPECT_EQ(folded["calls"][0]["arguments"], "{}");
  // strip: false streams the white space the value keeps.
  const json raw = json::parse(R"({"fields": {"content": {"content_args": {"strip": false}}}})");
  EXPECT_EQ(fold_stream(load(raw), "  a  ")["content"], "  a  ");
}

TEST(ResponseExecutor, XmlParametersStreamAsTheyCompleteAndConcatenateToTheArguments) {
  const json spec = json::parse(R"({"fields": {
    "tool_calls": {"open_pattern": "<function=(?P<name>\\w+)>", "close": "</function>",
                   "repeats": true, "content": "xml-inline",
                   "content_args": {"tag_pattern":
                     "<parameter=(?P<key>\\w+)>(?P<value>.*?)</parameter>\\s*"},
                   "transform": {"type": "function",
                                 "function": {"name": "{name}", "arguments": "{content}"}}},
    "content": {"content_args": {"strip": false}}}})");
  const json tools = json::parse(R"([{"type": "function", "function": {"name": "f",
    "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}}])");
  const std::string out =
      "<function=f><parameter=n>7</parameter><parameter=s>a \"b\"</parameter></function>";
  const auto t = load(spec);
  std::vector<std::pair<std::size_t, std::string>> args;  // (bytes read, delta)
  std::size_t read = 0;
  std::string name;
  ocml::response_projection proj([&](const ocml::delta& d) {
    if (d.kind == ocml::delta_kind::call_begin) name = std::string(d.name);
    if (d.kind == ocml::delta_kind::call_arguments) args.emplace_back(read, std::string(d.text));
  });
  ocml::response_parser p(t, {.tools = &tools}, [&](const ocml::response_event& e) { proj(e); });
  for (char c : out) {
    ++read;
    p.push(std::string_view(&c, 1));
  }
  const auto m = p.finish();
  ASSERT_TRUE(m);
  EXPECT_EQ(name, "f");
  // The first parameter as soon as it is complete; the last one's trailing \s* is still
  // open when </function> arrives, so it comes with the close, and the closing brace.
  ASSERT_EQ(args.size(), 2U);
  EXPECT_EQ(args[0].second, R"({"n":7)");  // typed by the schema as the close types it
  // Sent as soon as the byte after its close showed the tag was over.
  EXPECT_LE(args[0].first, out.find("<parameter=s>") + 2);
  std::string all;
  for (const auto& a : args) all += a.second;
  EXPECT_EQ(all, ocml::response_to_openai(*m)["tool_calls"][0]["function"]["arguments"]);
}

// The deltas of a parse fed one byte at a time: (bytes read when it came, kind, text).
struct timed_delta {
  std::size_t read;
  ocml::delta_kind kind;
  std::string text;
};

std::vector<timed_delta> deltas_by_byte(const ocml::response_template& t, std::string_view out,
                                        const ocml::response_parser_options& o,
                                        ocml::result<json>* message) {
  std::vector<timed_delta> got;
  std::size_t read = 0;
  ocml::response_projection proj([&](const ocml::delta& d) {
    if (d.kind == ocml::delta_kind::call_begin) {
      got.push_back({read, d.kind, std::string(d.name) + " " + std::string(d.call_id)});
    } else if (d.kind == ocml::delta_kind::call_arguments || d.kind == ocml::delta_kind::text) {
      got.push_back({read, d.kind, std::string(d.text)});
    }
  });
  ocml::response_parser p(t, o, [&](const ocml::response_event& e) { proj(e); });
  for (char c : out) {
    ++read;
    p.push(std::string_view(&c, 1));
  }
  *message = p.finish();
  return got;
}

std::string arguments_of(const std::vector<timed_delta>& ds) {
  std::string all;
  for (const auto& d : ds) {
    if (d.kind == ocml::delta_kind::call_arguments) all += d.text;
  }
  return all;
}

const json kHermes = json::parse(R"json({"fields": {
  "tool_calls": {"open_pattern": "\\n?<tool_call>", "close": ["</tool_call>", "<|im_end|>"],
                 "repeats": true, "content": "json", "x-ocml-fallback": "text",
                 "transform": {"type": "function", "function": "{content}"}},
  "content": {"close": "<|im_end|>", "content_args": {"strip": false},
              "repeats": true, "join": ""}}})json");

TEST(ResponseExecutor, JsonArgumentsStreamMemberByMemberAndConcatenateToTheArguments) {
  const json tools = json::parse(R"([{"type": "function", "function": {"name": "book",
    "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}}])");
  // A string the schema types as an integer, nesting, escapes, non-ASCII, a '}' in a string.
  const std::string out =
      "Sure.<tool_call>\n{\"name\": \"book\", \"arguments\": {\"n\": \"4\", \"where\": "
      "{\"city\": \"K\\u00f8ge\", \"tags\": [\"a}\", 2.50]}, \"note\": \"\\\"ok\\\" \xC3\xA9\"}}"
      "\n</tool_call><|im_end|>";
  ocml::result<json> m = ocml::make_error(ocml::error_code::internal, "");
  const auto ds = deltas_by_byte(load(kHermes), out, {.tools = &tools}, &m);
  ASSERT_TRUE(m);
  const json openai = ocml::response_to_openai(*m);
  ASSERT_EQ(openai["tool_calls"].size(), 1U);
  const std::string want = openai["tool_calls"][0]["function"]["arguments"];
  EXPECT_EQ(want, R"({"n":4,"where":{"city":"Køge","tags":["a}",2.5]},"note":"\"ok\" é"})");
  // The call begins (name, id) when its first argument is complete, each argument goes out
  // when the byte after it shows it ended, long before the close.
  std::vector<std::string> args;
  std::size_t begun_at = 0;
  for (const auto& d : ds) {
    if (d.kind == ocml::delta_kind::call_begin) begun_at = d.read;
    if (d.kind == ocml::delta_kind::call_arguments) args.push_back(d.text);
  }
  EXPECT_EQ(begun_at, out.find(", \"where\"") + 1);
  ASSERT_EQ(args.size(), 4U);
  EXPECT_EQ(args[0], R"({"n":4)");
  EXPECT_EQ(args[1], R"(,"where":{"city":"Køge","tags":["a}",2.5]})");
  EXPECT_EQ(args[3], "}");
  EXPECT_EQ(arguments_of(ds), want);
  // The same events at every chunking.
  (void)parse_every_chunking(load(kHermes), out, {.tools = &tools});
}

TEST(ResponseExecutor, AJsonCallBeginsOnlyWithAValidArgument) {
  // Broken before its first argument: never begun, so it stays text as written.
  ocml::result<json> m = ocml::make_error(ocml::error_code::internal, "");
  const std::string bad = "<tool_call>{\"name\": \"f\", \"arguments\": {city: 1}}</tool_call>";
  const auto ds = deltas_by_byte(load(kHermes), bad, {}, &m);
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->contains("tool_calls"));
  EXPECT_EQ((*m)["content"], bad);
  for (const auto& d : ds) EXPECT_NE(d.kind, ocml::delta_kind::call_begin);
  // Empty arguments begin when the object closes; a name after the arguments, or arguments
  // that are a JSON string, wait for the close (whole), and still fold to the parse.
  for (const std::string body :
       {R"({"name": "f", "arguments": {}})", R"({"arguments": {"a": 1}, "name": "f"})",
        R"({"name": "f", "arguments": "{\"a\": 1}"})"}) {
    const std::string out = "<tool_call>" + body + "</tool_call>";
    const auto got = deltas_by_byte(load(kHermes), out, {}, &m);
    ASSERT_TRUE(m) << body;
    const json o = ocml::response_to_openai(*m);
    ASSERT_EQ(o["tool_calls"].size(), 1U) << body;
    EXPECT_EQ(arguments_of(got), o["tool_calls"][0]["function"]["arguments"]) << body;
  }
}

TEST(ResponseExecutor, AnArgumentWrittenTwiceIsSaidWithAWarning) {
  const std::string out =
      "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1, \"a\": 2}}</tool_call>";
  // The stream sends both (its folded text, read as JSON, is the parse's: the last wins).
  ocml::result<json> m = ocml::make_error(ocml::error_code::internal, "");
  const auto ds = deltas_by_byte(load(kHermes), out, {}, &m);
  ASSERT_TRUE(m);
  EXPECT_EQ(ocml::response_to_openai(*m)["tool_calls"][0]["function"]["arguments"], R"({"a":2})");
  EXPECT_EQ(arguments_of(ds), R"({"a":1,"a":2})");
  EXPECT_EQ(json::parse(arguments_of(ds)), json::parse(R"({"a":2})"));
  ocml::response_parser p(load(kHermes), {}, [](const ocml::response_event&) {});
  p.push(out);
  ASSERT_TRUE(p.finish());
  bool said = false;
  for (const auto& d : p.diagnostics()) {
    said = said || d.message.find("an argument is written twice") != std::string::npos;
  }
  EXPECT_TRUE(said);
}

TEST(ResponseExecutor, ACallCutOrBrokenAfterItBeganStaysACallWithItsBytes) {
  // Cut by the end of the generation (max_tokens): the call the stream began stays a call,
  // its arguments as written (as OpenAI's API sends one), in lenient mode and with
  // x-ocml-fallback, with a warning; one-shot and stream agree.
  const std::string cut = "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1, \"b\": \"xy";
  for (const bool lenient : {false, true}) {
    ocml::result<json> m = ocml::make_error(ocml::error_code::internal, "");
    const auto ds = deltas_by_byte(load(kHermes), cut, {.lenient = lenient}, &m);
    ASSERT_TRUE(m);
    const json o = ocml::response_to_openai(*m);
    ASSERT_EQ(o["tool_calls"].size(), 1U);
    EXPECT_EQ(o["tool_calls"][0]["function"]["arguments"], R"({"a":1, "b": "xy)");
    EXPECT_EQ(arguments_of(ds), o["tool_calls"][0]["function"]["arguments"]);
    EXPECT_FALSE(m->contains("content"));
  }
  // Broken after an argument (the object's '}' missing): a call with the complete arguments.
  const std::string broken =
      "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}\n</tool_call><|im_end|>";
  auto p = ocml::parse_response(load(kHermes), broken);
  ASSERT_TRUE(p);
  EXPECT_EQ(ocml::response_to_openai(*p)["tool_calls"][0]["function"]["arguments"], R"({"a":1})");
  // Strict mode without a fallback: the same body is an error, never a silent guess.
  json strict = kHermes;
  strict["fields"]["tool_calls"].erase("x-ocml-fallback");
  EXPECT_FALSE(ocml::parse_response(load(strict), broken));
}

TEST(ResponseExecutor, ANamedJsonCallStreamsItsArguments) {
  // Kimi-K2 style: the name in the open delimiter, the body the arguments.
  const json spec = json::parse(R"json({"fields": {
    "tool_calls": {"open_pattern": "<call name=(?P<name>\\w+)>", "close": "</call>",
                   "repeats": true, "content": "json",
                   "transform": {"type": "function",
                                 "function": {"name": "{name}", "arguments": "{content}"}}},
    "content": {"content_args": {"strip": false}}}})json");
  const std::string out = "<call name=f>{\"a\": [1, 2], \"b\": null}</call>";
  ocml::result<json> m = ocml::make_error(ocml::error_code::internal, "");
  const auto ds = deltas_by_byte(load(spec), out, {}, &m);
  ASSERT_TRUE(m);
  ASSERT_GE(ds.size(), 3U);
  EXPECT_EQ(ds[0].kind, ocml::delta_kind::call_begin);
  EXPECT_EQ(ds[1].text, R"({"a":[1,2])");
  EXPECT_LT(ds[1].read, out.find("</call>"));
  EXPECT_EQ(arguments_of(ds), R"({"a":[1,2],"b":null})");
  (void)parse_every_chunking(load(spec), out);
}

TEST(ResponseExecutor, AFieldMatchedTwiceKeepsBothInParseAndStream) {
  const json spec = json::parse(R"({"fields": {
    "reasoning": {"open": "<think>", "close": "</think>"},
    "content": {}}})");
  const std::string out = "<think>a</think>x<think>b</think>";
  const json m = parse_ok(spec, out);
  EXPECT_EQ(m["reasoning"], "ab");
  EXPECT_EQ(fold_stream(load(spec), out)["reasoning"], "ab");
}

TEST(Curated, EveryTemplateLoadsAndTheFingerprintsPickInOrder) {
  ASSERT_GE(ocml::curated_templates().size(), 18U);
  for (const auto& t : ocml::curated_templates()) {
    EXPECT_TRUE(ocml::response_template::from_text(t.text)) << t.name;
    EXPECT_FALSE(t.source.empty()) << t.name;
  }
  const auto pick = [](std::string_view chat) {
    const auto* t = ocml::match_curated(chat);
    return t == nullptr ? std::string("none") : t->name;
  };
  EXPECT_EQ(pick("<|im_start|> <tool_call> <think>"), "qwen3");
  EXPECT_EQ(pick("<|im_start|> <tool_call>"), "hermes");
  EXPECT_EQ(pick("[TOOL_CALLS] [ARGS]"), "mistral_v11");
  EXPECT_EQ(pick("[TOOL_CALLS]"), "mistral");
  EXPECT_EQ(pick("<|start_header_id|>"), "llama3");
  EXPECT_EQ(pick("<|start_header_id|> <function="), "none");
  EXPECT_EQ(pick("{{ messages }}"), "none");
}

TEST(Curated, AModelFolderWithoutAResponseTemplateParsesWithOne) {
  const auto dir = std::filesystem::temp_directory_path() / "ocml_curated_folder_test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "tokenizer_config.json") << json{
        {"chat_template",
         "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n"
         "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
         "{# <tool_call> #}"},
        {"eos_token", "<|im_end|>"}}.dump();
  }
  auto f = ocml::format::find("model:" + dir.string());
  ASSERT_TRUE(f) << f.error().to_string();
  const auto c = f->response_source();
  EXPECT_EQ(c.kind, "curated");
  EXPECT_EQ(c.name, "hermes");
  EXPECT_NE(c.why.find("has no response_template"), std::string::npos) << c.why;
  const auto r = f->parse(
      "Sure.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"x\": 1}}\n</tool_call><|im_end|>",
      {.completion = true});
  ASSERT_TRUE(r.ok());
  const json o = f->conversation_json(r.conversation, true, 1);
  EXPECT_EQ(o["messages"][0]["content"], "Sure.");
  EXPECT_EQ(o["messages"][0]["tool_calls"][0]["function"]["name"], "f");
  std::filesystem::remove_all(dir);
}

}  // namespace

namespace {

// A ChatML template with reasoning and <tool_call> JSON calls, written here (the reference
// templates are checked by the Python tests when ../shared is present).
constexpr const char* kChatml =
    "{% for m in messages %}<|im_start|>{{ m.role }}\n"
    "{% if m.reasoning_content %}<think>\n{{ m.reasoning_content }}\n</think>\n\n{% endif %}"
    "{{ m.content }}"
    "{% for c in m.tool_calls or [] %}\n<tool_call>\n{\"name\": \"{{ c.function.name }}\", "
    "\"arguments\": {{ c.function.arguments | tojson }}}\n</tool_call>{% endfor %}"
    "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

TEST(Derive, AChatmlTemplateDerivesAndVerifies) {
  auto chat = ocml::model_template::from_text(kChatml);
  ASSERT_TRUE(chat) << chat.error().to_string();
  auto d = ocml::derive_response_template(*chat);
  ASSERT_TRUE(d) << d.error().to_string();
  const json& f = d->response_template["fields"];
  EXPECT_EQ(f["reasoning_content"]["open"], "<think>");
  EXPECT_EQ(f["reasoning_content"]["close"], "</think>");
  EXPECT_EQ(f["content"]["close"], json::array({"<|im_end|>"}));
  EXPECT_EQ(d->verified,
            (std::vector<std::string>{"content", "reasoning", "one call", "two calls"}));
  // The derived template parses a real-shaped output.
  auto t = ocml::response_template::from_json(d->response_template);
  ASSERT_TRUE(t);
  const json m = *parse_every_chunking(
      *t,
      "<think>\nhm\n</think>\n\nOk.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n"
      "</tool_call><|im_end|>",
      {.prefix = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"});
  EXPECT_EQ(ocml::response_to_openai(m)["tool_calls"][0]["function"]["name"], "f");
}

TEST(Derive, ATemplateThatLosesTypesIsRefusedWithTheProbe) {
  // Arguments written with Python's str(): True, ['a', 'b'] — no JSON comes back.
  const std::string lossy =
      "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}"
      "{% for c in m.tool_calls or [] %}<tool_call>{{ c.function.name }}"
      "{% for k, v in c.function.arguments.items() %}<p={{ k }}>{{ v }}</p>{% endfor %}"
      "</tool_call>{% endfor %}<|im_end|>\n{% endfor %}"
      "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";
  auto chat = ocml::model_template::from_text(lossy);
  ASSERT_TRUE(chat);
  auto d = ocml::derive_response_template(*chat);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().code, ocml::error_code::response_template);
  EXPECT_NE(d.error().message.find("one call"), std::string::npos) << d.error().message;
}

}  // namespace
