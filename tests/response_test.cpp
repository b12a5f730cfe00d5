// SPDX-License-Identifier: Apache-2.0
// Response templates: every example of transformers' "Response Parsing" guide, written as
// our own cases, plus the load-time checks, strict and lenient failures, hold-back, and the
// properties every case must keep (same message and events at every chunk size 1..16, spans
// tiling prefix + generation).
#include <gtest/gtest.h>

#include "ocml/response.hpp"
#include "response/regex.hpp"
#include "response/support.hpp"

using ocml::json;
using ocml::test::load;
using ocml::test::parse_every_chunking;
using ocml::test::parse_ok;

namespace {

// The guide's SmolLM3 template (ChatML envelope, <think>, <tool_call> JSON).
const json kSmol = json::parse(R"({
  "defaults": {"role": "assistant"},
  "start_anchor": "<|im_start|>assistant\n",
  "fields": {
    "thinking": {"open": "<think>", "close": "</think>", "content": "text"},
    "tool_calls": {"open": "<tool_call>", "close": "</tool_call>", "repeats": true,
                   "content": "json",
                   "transform": {"type": "function", "function": "{content}"}},
    "content": {"close": "<|im_end|>", "content": "text"}
  }
})");

TEST(ResponseGuide, SmolLMThinkingAndToolCall) {
  const json m = parse_ok(kSmol,
                          "<think>\nI should greet the user\n</think>\n\n<tool_call>{\"name\": "
                          "\"greet_user\", \"arguments\": {\"greeting\": \"Hi!\"}}</tool_call>",
                          {.prefix = ""});
  EXPECT_EQ(m, json::parse(R"({"role": "assistant", "thinking": "I should greet the user",
    "tool_calls": [{"type": "function", "function": {"name": "greet_user",
                    "arguments": {"greeting": "Hi!"}}}]})"));
  // Key order is the order fields were first written, after the defaults.
  EXPECT_EQ(
      m.dump(),
      R"({"role":"assistant","thinking":"I should greet the user","tool_calls":[{"type":"function","function":{"name":"greet_user","arguments":{"greeting":"Hi!"}}}]})");
}

TEST(ResponseGuide, PrefixIsCutAtTheLastAnchor) {
  const std::string prefix =
      "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n"
      "<|im_start|>user\nAgain?<|im_end|>\n<|im_start|>assistant\n";
  const json m = parse_ok(kSmol, "Yes, again.<|im_end|>", {.prefix = prefix});
  EXPECT_EQ(m, json::parse(R"({"role": "assistant", "content": "Yes, again."})"));
  // The earlier turn is history: one event covering everything up to the last anchor.
  const auto r =
      ocml::test::run_response(load(kSmol), "Yes, again.<|im_end|>", {.prefix = prefix}, 0);
  ASSERT_FALSE(r.log.empty());
  EXPECT_EQ(r.log[0], "history  [0," + std::to_string(prefix.size()) + ") prefix");
}

TEST(ResponseGuide, PrefillOpensTheThinkingRegion) {
  // The chat template opened <think>: the prefix's events come first (from_prefix), and the
  // region goes on in the generation.
  const std::string prefix = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n";
  const auto t = load(kSmol);
  const json m =
      *parse_every_chunking(t, "Greet back.\n</think>\nHello!<|im_end|>", {.prefix = prefix});
  EXPECT_EQ(
      m, json::parse(R"({"role": "assistant", "thinking": "Greet back.", "content": "Hello!"})"));
  const auto r =
      ocml::test::run_response(t, "Greet back.\n</think>\nHello!<|im_end|>", {.prefix = prefix}, 0);
  const std::size_t p = prefix.size();
  const std::vector<std::string> expected = {
      "history  [0," + std::to_string(p - 8) + ") prefix",
      "structure thinking [" + std::to_string(p - 8) + "," + std::to_string(p - 1) + ") prefix",
      "region_open thinking [" + std::to_string(p - 1) + "," + std::to_string(p - 1) + ") prefix",
      "region_chunk thinking prefix [" + std::to_string(p - 1) + "," + std::to_string(p) +
          ") \"\\n\"",
      "region_chunk thinking [" + std::to_string(p) + "," + std::to_string(p + 12) +
          ") \"Greet back.\\n\"",
      "structure thinking [" + std::to_string(p + 12) + "," + std::to_string(p + 20) + ")",
      "region_close thinking [" + std::to_string(p + 20) + "," + std::to_string(p + 20) +
          ") = \"Greet back.\"",
  };
  ASSERT_GE(r.log.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(r.log[i], expected[i]) << i;
}

TEST(ResponseGuide, StreamingEventsMarkStructuredChunksDirty) {
  const auto t = load(kSmol);
  std::vector<std::string> seen;
  ocml::response_parser p(t, {}, [&](const ocml::response_event& e) {
    if (e.kind == ocml::response_event_kind::region_chunk) {
      seen.push_back(std::string(e.field) + (e.dirty ? " dirty " : " clean ") +
                     std::string(e.text));
    } else if (e.kind == ocml::response_event_kind::region_close) {
      seen.push_back(std::string(e.field) + " = " + e.value->dump());
    }
  });
  p.push("<think>I should ");
  p.push("greet the user</think>");
  p.push("<tool_call>{\"name\": \"greet_user\", ");
  p.push("\"arguments\": {\"greeting\": \"Hi!\"}}</tool_call>");
  ASSERT_TRUE(p.finish());
  const std::vector<std::string> expected = {
      "thinking clean I should ",
      "thinking clean greet the user",
      "thinking = \"I should greet the user\"",
      "tool_calls dirty {\"name\": \"greet_user\", ",
      "tool_calls dirty \"arguments\": {\"greeting\": \"Hi!\"}}",
      R"(tool_calls = {"type":"function","function":{"name":"greet_user","arguments":{"greeting":"Hi!"}}})",
  };
  EXPECT_EQ(seen, expected);
}

TEST(ResponseGuide, HoldsBackAPossibleDelimiter) {
  const auto t = load(kSmol);
  std::string text;
  ocml::response_parser p(t, {}, [&](const ocml::response_event& e) {
    if (e.kind == ocml::response_event_kind::region_chunk) text.append(e.text);
  });
  p.push("<think>abc</th");
  EXPECT_EQ(text, "abc");  // "</th" may be the close: held
  p.push("x");
  EXPECT_EQ(text, "abc</thx");  // it was not
  p.push("</think>");
  EXPECT_EQ(text, "abc</thx");
  ASSERT_TRUE(p.finish());
}

TEST(ResponseGuide, BasicTypes) {
  const json spec = {
      {"fields",
       {{"count", {{"open", "<n>"}, {"close", "</n>"}, {"content", "int"}}},
        {"ratio", {{"open", "<r>"}, {"close", "</r>"}, {"content", "float"}}},
        {"flag", {{"open", "<b>"}, {"close", "</b>"}, {"content", "bool"}}},
        {"raw", {{"open", "<t>"}, {"close", "</t>"}, {"content_args", {{"strip", false}}}}}}}};
  EXPECT_EQ(parse_ok(spec, "<n> 42 </n>"), json::parse(R"({"count": 42})"));
  EXPECT_EQ(parse_ok(spec, "<r>1_000.5</r><b> TRUE </b><t> x </t>"),
            json::parse(R"({"ratio": 1000.5, "flag": true, "raw": " x "})"));
  EXPECT_EQ(parse_ok(spec, "<b>no</b>"), json::parse(R"({"flag": false})"));
}

TEST(ResponseGuide, JsonUnquotedKeys) {
  const json spec = json::parse(R"({"fields": {"args": {"open": "<args>", "close": "</args>",
    "content": "json", "content_args": {"unquoted_keys": true}}}})");
  EXPECT_EQ(parse_ok(spec, R"(<args>{city: "London"}</args>)"),
            json::parse(R"({"args": {"city": "London"}})"));
  // Keys after ", " too, and a key-like word inside a string is left alone.
  EXPECT_EQ(parse_ok(spec, R"(<args>{a: 1, b: "x, c: 2"}</args>)"),
            json::parse(R"({"args": {"a": 1, "b": "x, c: 2"}})"));
}

TEST(ResponseGuide, JsonStringDelimsAndNonJson) {
  const json spec = json::parse(R"({"fields": {"args": {"open": "<a>", "close": "</a>",
    "content": "json", "content_args": {"string_delims": [["<|\"|>", "<|\"|>"]]}},
    "loose": {"open": "<l>", "close": "</l>", "content": "json",
              "content_args": {"allow_non_json": true}}}})");
  EXPECT_EQ(parse_ok(spec, "<a>{\"q\": <|\"|>say \"hi\"\n<|\"|>}</a>"),
            json::parse(R"({"args": {"q": "say \"hi\"\n"}})"));
  EXPECT_EQ(parse_ok(spec, "<l> not json </l>"), json::parse(R"({"loose": "not json"})"));
  EXPECT_EQ(parse_ok(spec, "<l>[1, 2]</l>"), json::parse(R"({"loose": [1, 2]})"));
}

const json kQwenCalls = json::parse(R"({"fields": {"tool_calls": {
  "open_pattern": "<tool_call>\\s*<function=(?P<name>\\w+)>",
  "close": "</tool_call>", "repeats": true, "content": "xml-inline",
  "content_args": {
    "tag_pattern": "<parameter=(?P<key>\\w+)>\\s*(?P<value>.*?)\\s*</parameter>",
    "value_parser": {"name": "json", "args": {"allow_non_json": true}}},
  "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}}}})");

TEST(ResponseGuide, XmlInlineQwenParameters) {
  EXPECT_EQ(parse_ok(kQwenCalls,
                     "<tool_call><function=get_weather><parameter=city>London</parameter>"
                     "<parameter=units>celsius</parameter></function></tool_call>"),
            json::parse(R"({"tool_calls": [{"type": "function", "function": {"name": "get_weather",
              "arguments": {"city": "London", "units": "celsius"}}}]})"));
  // Values that are JSON become JSON; Unicode names are word characters.
  EXPECT_EQ(parse_ok(kQwenCalls,
                     "<tool_call>\n<function=météo>\n<parameter=days>\n3\n</parameter>\n"
                     "<parameter=opts>{\"a\": [1]}</parameter>\n</function>\n</tool_call>"),
            json::parse(R"({"tool_calls": [{"type": "function", "function": {"name": "météo",
              "arguments": {"days": 3, "opts": {"a": [1]}}}}]})"));
}

TEST(ResponseGuide, XmlInlineMergeDuplicates) {
  const json spec = json::parse(R"({"fields": {"tags": {"open": "<tags>", "close": "</tags>",
    "content": "xml-inline", "content_args": {"merge_duplicates": true,
    "tag_pattern": "<(?P<key>\\w+)>(?P<value>.*?)</(?P=key)>"}}}})");
  EXPECT_EQ(parse_ok(spec, "<tags><a>1</a><b>2</b><a>3</a></tags>"),
            json::parse(R"({"tags": {"a": ["1", "3"], "b": "2"}})"));
}

TEST(ResponseGuide, KvLines) {
  const json spec = json::parse(R"({"fields": {
    "metadata": {"open": "<meta>", "close": "</meta>", "content": "kv-lines"},
    "typed": {"open": "<t>", "close": "</t>", "content": "kv-lines",
              "content_args": {"value_parser": {"name": "int"}, "kv_sep": "="}}}})");
  EXPECT_EQ(parse_ok(spec, "<meta>name: alice\nage: 30</meta>"),
            json::parse(R"({"metadata": {"name": "alice", "age": "30"}})"));
  EXPECT_EQ(parse_ok(spec, "<t>\nage = 30\n\nnot a pair\nurl = 7\n</t>"),
            json::parse(R"({"typed": {"age": 30, "url": 7}})"));
  EXPECT_EQ(parse_ok(spec, "<meta>url: http://x:1</meta>"),
            json::parse(R"({"metadata": {"url": "http://x:1"}})"));
}

TEST(ResponseGuide, ToolSchemaTypesTheArguments) {
  const json tools = json::parse(R"([{"type": "function", "function": {"name": "set_alarm",
    "parameters": {"type": "object", "properties": {"hour": {"type": "integer"},
      "enabled": {"type": "boolean"}, "label": {"type": "string"},
      "ratio": {"type": "number"}, "when": {"anyOf": [{"type": "null"}, {"type": "integer"}]}}}}}])");
  const json spec = json::parse(R"({"fields": {"tool_calls": {
    "open_pattern": "<tool_call>\\s*<function=(?P<name>\\w+)>", "close": "</tool_call>",
    "repeats": true, "content": "xml-inline",
    "content_args": {"tag_pattern": "<parameter=(?P<key>\\w+)>\\s*(?P<value>.*?)\\s*</parameter>"},
    "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}}}})");
  const std::string out =
      "<tool_call><function=set_alarm><parameter=hour>007</parameter><parameter=enabled>true"
      "</parameter><parameter=label>wake up</parameter><parameter=ratio>1e3</parameter>"
      "<parameter=when>None</parameter><parameter=extra>5</parameter></function></tool_call>";
  const json m = parse_ok(spec, out, {.tools = &tools});
  EXPECT_EQ(m["tool_calls"][0]["function"]["arguments"],
            json::parse(R"({"hour": 7, "enabled": true, "label": "wake up", "ratio": 1000,
                            "when": null, "extra": "5"})"));
  // Without tools the strings stay strings.
  const json plain = parse_ok(spec, out);
  EXPECT_EQ(plain["tool_calls"][0]["function"]["arguments"]["hour"], "007");
}

TEST(ResponseGuide, GptOssNameFromTheChannelHeader) {
  const json spec = json::parse(R"({"fields": {"tool_calls": {
    "open_pattern": "<\\|channel\\|>commentary to=functions\\.(?P<name>\\w+).*?<\\|message\\|>",
    "close": "<|call|>", "repeats": true, "content": "json",
    "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}}}})");
  EXPECT_EQ(parse_ok(spec,
                     "<|channel|>commentary to=functions.get_current_weather <|constrain|>json"
                     "<|message|>{\"location\": \"San Francisco, CA\"}<|call|>"),
            json::parse(R"({"tool_calls": [{"type": "function", "function": {
              "name": "get_current_weather", "arguments": {"location": "San Francisco, CA"}}}]})"));
}

TEST(ResponseGuide, TransformEachCohereActions) {
  const json spec = json::parse(R"({"fields": {"tool_calls": {
    "open": "<|START_ACTION|>", "close": "<|END_ACTION|>", "content": "json",
    "transform_each": true,
    "transform": {"type": "function", "function": {"name": "{tool_name}", "arguments": "{parameters}"}}}}})");
  EXPECT_EQ(parse_ok(spec, R"(<|START_ACTION|>[
    {"tool_name": "greet_user", "parameters": {"greeting": "Hi!"}},
    {"tool_name": "search", "parameters": {"query": "weather tomorrow"}}
  ]<|END_ACTION|>)"),
            json::parse(R"({"tool_calls": [
    {"type": "function", "function": {"name": "greet_user", "arguments": {"greeting": "Hi!"}}},
    {"type": "function", "function": {"name": "search", "arguments": {"query": "weather tomorrow"}}}]})"));
}

TEST(ResponseGuide, RepeatsCollectParallelCalls) {
  const json m = parse_ok(kSmol,
                          "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>"
                          "<tool_call>{\"name\": \"b\", \"arguments\": {\"x\": 1}}</tool_call>");
  ASSERT_EQ(m["tool_calls"].size(), 2U);
  EXPECT_EQ(m["tool_calls"][1]["function"]["name"], "b");
}

TEST(ResponseGuide, OpenAsAListAndCloseRunningToTheEnd) {
  const json spec = json::parse(R"({"fields": {
    "thinking": {"open": ["<think>", "<thinking>"], "close": ["</think>", "</thinking>"]},
    "content": {"open": "<answer>"}}})");
  // A non-repeating field matched twice keeps both (transformers keeps the last; a stream
  // cannot take back the first: docs/decisions.md 92).
  EXPECT_EQ(parse_ok(spec, "<thinking>a</thinking><think>b</think><answer>the rest <think>"),
            json::parse(R"({"thinking": "ab", "content": "the rest <think>"})"));
}

TEST(ResponseGuide, EosCloseAndLongestLiteralWins) {
  const json spec = json::parse(R"({"fields": {
    "a": {"open": ["<x", "<xy>"], "close": "eos"}}})");
  // "<xy>" is longer than "<x" at the same place, even when the bytes arrive one by one.
  EXPECT_EQ(parse_ok(spec, "pre<xy>tail"), json::parse(R"({"a": "tail"})"));
  EXPECT_EQ(parse_ok(spec, "pre<xz>tail"), json::parse(R"({"a": "z>tail"})"));
}

TEST(ResponseGuide, RequiredFieldMissing) {
  const json spec = json::parse(R"({"fields": {
    "answer": {"open": "<a>", "close": "</a>", "optional": false}}})");
  const auto t = load(spec);
  auto m = ocml::parse_response(t, "no answer here");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, ocml::error_code::response_missing);
  EXPECT_EQ(m.error().offset, 14U);
  auto lenient = ocml::parse_response(t, "no answer here", {.lenient = true});
  ASSERT_TRUE(lenient);
  EXPECT_EQ(*lenient, json::object());
}

TEST(ResponseGuide, BadJsonIsAnErrorWithItsPositionOrAWarning) {
  const auto t = load(kSmol);
  const std::string out = "Hi\n<tool_call>{\"name\": \"a\", \"arguments\": {</tool_call>";
  auto strict = parse_every_chunking(t, out);
  ASSERT_FALSE(strict);
  EXPECT_EQ(strict.error().code, ocml::error_code::response_content);
  EXPECT_EQ(strict.error().offset, 14U);
  EXPECT_EQ(strict.error().line, 2U);
  EXPECT_EQ(strict.error().column, 12U);
  ocml::response_parser p(t, {.lenient = true}, nullptr);
  p.push(out);
  auto m = p.finish();
  ASSERT_TRUE(m);
  // The text as the model wrote it, delimiters included, not wrapped by the transform in
  // JSON it never wrote ({"type": "function", "function": "<the body>"}): in the content,
  // where it stood (kSmol strips the content's pieces).
  EXPECT_FALSE(m->contains("tool_calls"));
  EXPECT_EQ(m->at("content"), "Hi<tool_call>{\"name\": \"a\", \"arguments\": {</tool_call>");
  const auto openai = ocml::response_to_openai(*m);
  EXPECT_EQ(openai["content"], m->at("content"));
  ASSERT_EQ(p.diagnostics().size(), 1U);
  EXPECT_EQ(p.diagnostics()[0].level, ocml::severity::warning);
}

TEST(ResponseGuide, OverwrittenImplicitFieldIsReported) {
  // transformers keeps only the last piece of a non-repeating field; ocml keeps both and
  // says so (a stream has sent the first: docs/decisions.md 92), and `join` puts its
  // separator between the pieces.
  const auto t = load(kSmol);
  ocml::response_parser p(t, {}, nullptr);
  p.push("Let me check.<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>Done.");
  const auto m = p.finish();
  ASSERT_TRUE(m);
  EXPECT_EQ((*m)["content"], "Let me check.Done.");
  ASSERT_EQ(p.diagnostics().size(), 1U);
  EXPECT_EQ(p.diagnostics()[0].level, ocml::severity::warning);
  json joined = kSmol;
  joined["fields"]["content"]["join"] = "\n";
  joined["fields"]["content"]["repeats"] = true;
  EXPECT_EQ(parse_ok(joined,
                     "Let me check.<tool_call>{\"name\": \"a\", \"arguments\": {}}"
                     "</tool_call>Done.")["content"],
            "Let me check.\nDone.");
}

TEST(ResponseGuide, NoImplicitFieldLeavesBytesUnclaimed) {
  const json spec = json::parse(R"({"fields": {"t": {"open": "[", "close": "]"}}})");
  const auto t = load(spec);
  const auto r = ocml::test::run_response(t, "ab[c]d", {}, 0);
  EXPECT_EQ(r.log.front(), "unclaimed  [0,2) \"ab\"");
  EXPECT_EQ(r.log.back(), "unclaimed  [5,6) \"d\"");
  EXPECT_EQ(*r.message, json::parse(R"({"t": "c"})"));
}

TEST(ResponseGuide, LoadErrors) {
  const char* bad[] = {
      R"j({"fields": {}})j",
      R"j({"fields": {"a": {"open": "x", "open_pattern": "x"}}})j",
      R"j({"fields": {"a": {"close": "x"}, "b": {}}})j",
      R"j({"fields": {"a": {"open": "x", "bogus": 1}}})j",
      R"j({"fields": {"a": {"open": "x", "transform": {"f": "abc {content} def"}}}})j",
      R"j({"fields": {"a": {"open_pattern": "(?P<n>x)"}}})j",
      R"j({"fields": {"a": {"open": "x", "close": ["eos", "y"]}}})j",
      R"j({"fields": {"a": {"open": "x", "content": "yaml"}}})j",
      R"j({"fields": {"a": {"open_pattern": "(unclosed"}}})j",
      R"j({"fields": {"a": {"open": ""}}})j",
      R"j({"fields": {"a": {"open": "x", "content": "xml-inline"}}})j",
      R"j({"fields": {"a": {"open": "x", "transform_each": true}}})j",
      R"j({"fields": {"a": {"open_pattern": "x*"}}})j",
      R"j({"version": 2, "fields": {"a": {}}})j",
      R"j({"extra": 1, "fields": {"a": {}}})j",
      R"j({"start_anchor": "a", "start_anchor_pattern": "b", "fields": {"a": {}}})j",
      // transformers' loader: `join` folds a repeating field, so it needs `repeats`.
      R"j({"fields": {"a": {"close": "x", "join": ""}}})j",
      R"j({"fields": {"a": {"close": "x", "repeats": true, "join": 1}}})j",
  };
  for (const char* text : bad) {
    auto t = ocml::response_template::from_text(text);
    ASSERT_FALSE(t) << text;
    EXPECT_EQ(t.error().code, ocml::error_code::response_template) << text;
  }
}

TEST(ResponseGuide, TokenizerConfigHoldsTheTemplate) {
  json config = {{"chat_template", "{{ x }}"}, {"response_template", kSmol}};
  auto t = ocml::response_template::from_json(config);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->fields(), (std::vector<std::string>{"thinking", "tool_calls", "content"}));
  auto none = ocml::response_template::from_json({{"chat_template", "x"}});
  EXPECT_FALSE(none);
}

TEST(ResponseRegex, PythonSpellingsBecomePcre2) {
  EXPECT_EQ(ocml::resp::translate_python_pattern(R"(a\Z)"), R"(a\z)");
  EXPECT_EQ(ocml::resp::translate_python_pattern(R"(\u00e9[\u00e0-\u00ff])"),
            R"(\x{00e9}[\x{00e0}-\x{00ff}])");
  EXPECT_EQ(ocml::resp::translate_python_pattern("x{,3}"), "x{0,3}");
  EXPECT_EQ(ocml::resp::translate_python_pattern(R"([\Z])"), R"([\Z])");
  std::string err;
  auto re = ocml::resp::regex::compile(R"(end\Z)", err);
  ASSERT_TRUE(re) << err;
  ocml::resp::regex_match m;
  EXPECT_EQ(re->search("end\n", 0, false, m), ocml::resp::search_status::none);  // \Z is the end
  EXPECT_EQ(re->search("the end", 0, false, m), ocml::resp::search_status::found);
  // Unicode-aware \w and DOTALL.
  auto w = ocml::resp::regex::compile(R"(<(?P<k>\w+)>.)", err);
  ASSERT_TRUE(w);
  ASSERT_EQ(w->search("<日本>\n", 0, false, m), ocml::resp::search_status::found);
  ASSERT_EQ(m.groups.size(), 1U);
  EXPECT_EQ(m.groups[0].second, "日本");
  // Partial matching reports where a match may begin.
  ASSERT_EQ(w->search("ab<日", 0, true, m), ocml::resp::search_status::found);
  EXPECT_TRUE(m.partial);
  EXPECT_EQ(m.start, 2U);
  // Invalid UTF-8 in the subject is not an error.
  EXPECT_EQ(w->search("\xff<a>b", 0, false, m), ocml::resp::search_status::found);
}

TEST(ResponseGuide, CatastrophicPatternIsBounded) {
  const json spec = json::parse(R"({"fields": {"a": {"open_pattern": "(x+x+)+y", "close": "z"}}})");
  const auto t = load(spec);
  auto m = ocml::parse_response(t, std::string(40, 'x'), {.lenient = true});
  ASSERT_TRUE(m);
}

TEST(ResponseGuide, AnUnfinishedDelimiterHoldsAtMost64KiB) {
  // The guide's gpt-oss call pattern on a header that never reaches <|message|>: a long
  // word makes `(?P<name>\w+).*?` backtrack without end in Python. Here the bytes are
  // released after 64 KiB (a warning), whole or streamed, and the message is the same.
  const json spec = json::parse(R"({"fields": {"tool_calls": {
    "open_pattern": "<\\|channel\\|>commentary to=functions\\.(?P<name>\\w+).*?<\\|message\\|>",
    "close": "<|call|>", "repeats": true, "content": "json",
    "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}},
    "content": {}}})");
  const auto t = load(spec);
  const std::string text = "<|channel|>commentary to=functions.x" + std::string(200000, 'a');
  for (const std::size_t chunk : {std::size_t{0}, std::size_t{16}, std::size_t{4096}}) {
    ocml::response_parser p(t, {}, nullptr);
    if (chunk == 0) {
      p.push(text);
    } else {
      for (std::size_t i = 0; i < text.size(); i += chunk)
        p.push(std::string_view(text).substr(i, chunk));
    }
    auto m = p.finish();
    ASSERT_TRUE(m) << m.error().to_string();
    const std::string content = m->value("content", "");
    EXPECT_TRUE(content == text) << "chunk " << chunk << ": " << content.size() << " bytes of "
                                 << text.size() << ", starts " << content.substr(0, 40);
    ASSERT_FALSE(p.diagnostics().empty());
    EXPECT_EQ(p.diagnostics()[0].code, ocml::error_code::limit_exceeded);
    EXPECT_EQ(p.diagnostics()[0].level, ocml::severity::warning);
  }
  // A real call after it is still found.
  auto m =
      ocml::parse_response(t, text + "<|channel|>commentary to=functions.f<|message|>{}<|call|>");
  ASSERT_TRUE(m);
  EXPECT_EQ((*m)["tool_calls"][0]["function"]["name"], "f");
}

}  // namespace

// Issue 23: a delimiter still unfinished after 64 KiB moved the search on one byte per
// recursion (SIGSEGV on 200 000 newlines after <think>, or `a+b` on 200 000 `a`), and
// once per byte it said so. Now a loop, a look for a finished match in between, and one
// warning.
TEST(ResponseHostile, LongUnfinishedDelimitersAreALoopWithOneWarning) {
  const json spec = {{"fields",
                      {{"thinking",
                        {{"open_pattern", "<think>\\n*"},
                         {"close_pattern", "\\n*(?:</think>\\n*|<\\|im_end\\|>)"},
                         {"content_args", {{"strip", false}}}}},
                       {"content", {{"close", "<|im_end|>"}}}}}};
  const auto t = load(spec);
  const std::string text = "<think>x" + std::string(200000, '\n');
  for (const std::size_t chunk : {std::size_t{0}, std::size_t{4096}, std::size_t{65536}}) {
    const auto r = ocml::test::run_response(t, text, {}, chunk);
    ASSERT_TRUE(r.message) << r.message.error().to_string();
    EXPECT_EQ((*r.message)["thinking"], "x" + std::string(200000, '\n')) << chunk;
  }
  // A finished delimiter after the long run is still found (the delimiter is at most
  // 64 KiB: the newlines before that stay in the thinking).
  const std::string closed = "<think>x" + std::string(100000, '\n') + "</think>\nanswer<|im_end|>";
  auto m = ocml::parse_response(t, closed);
  ASSERT_TRUE(m) << m.error().to_string();
  const std::string thinking = (*m)["thinking"].get<std::string>();
  EXPECT_EQ(thinking.substr(0, 2), "x\n");
  EXPECT_EQ(thinking.find("</think>"), std::string::npos);
  EXPECT_GT(thinking.size(), 100000u - 65536u);
  EXPECT_EQ((*m)["content"], "answer");

  const auto ab = load({{"fields", {{"content", {{"open_pattern", "a+b"}, {"close", "</x>"}}}}}});
  ocml::response_parser p(ab, {.lenient = true}, [](const ocml::response_event&) {});
  for (int i = 0; i < 50; ++i) p.push(std::string(4000, 'a'));
  (void)p.finish();
  std::size_t too_long = 0;
  for (const auto& d : p.diagnostics()) too_long += d.code == ocml::error_code::limit_exceeded;
  EXPECT_EQ(too_long, 1u);
}

// JSON nested 100 000 deep in a region is refused (it crashed the parser and every command
// on it), and a call whose name is not a string keeps that value's text.
TEST(ResponseHostile, DeepJsonInARegionIsRefusedAndOddNamesAreKept) {
  const json spec = {{"fields",
                      {{"tool_calls",
                        {{"open", "<tool_call>"},
                         {"close", "</tool_call>"},
                         {"repeats", true},
                         {"content", "json"}}}}}};
  const auto t = load(spec);
  const std::string deep =
      "<tool_call>" + std::string(100000, '[') + std::string(100000, ']') + "</tool_call>";
  auto m = ocml::parse_response(t, deep);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, ocml::error_code::limit_exceeded);
  EXPECT_EQ(m.error().offset, 11u);  // the region's body
  // Lenient keeps the text and says why, with the same code; 1 024 levels are still JSON.
  ocml::response_parser p(t, {.lenient = true}, nullptr);
  p.push("<tool_call>" + std::string(10000, '{') + "</tool_call>");
  auto kept = p.finish();
  ASSERT_TRUE(kept) << kept.error().to_string();
  EXPECT_EQ((*kept)["tool_calls"][0], "<tool_call>" + std::string(10000, '{') + "</tool_call>");
  ASSERT_EQ(p.diagnostics().size(), 1u);
  EXPECT_EQ(p.diagnostics()[0].code, ocml::error_code::limit_exceeded);
  // In OpenAI form a "call" that is no call is text: it joins the content, never vanishes.
  const json as_openai = ocml::response_to_openai(
      {{"content", "Sure."}, {"tool_calls", json::array({std::string(3, '{'), 42})}});
  EXPECT_EQ(as_openai["content"], "Sure.{{{42");
  EXPECT_FALSE(as_openai.contains("tool_calls"));
  const std::size_t limit = ocml::default_max_json_depth;
  auto at_limit = ocml::parse_response(
      t, "<tool_call>" + std::string(limit, '[') + std::string(limit, ']') + "</tool_call>");
  EXPECT_TRUE(at_limit) << at_limit.error().to_string();
  auto past = ocml::parse_response(t, "<tool_call>" + std::string(limit + 1, '[') +
                                          std::string(limit + 1, ']') + "</tool_call>");
  ASSERT_FALSE(past);
  EXPECT_EQ(past.error().code, ocml::error_code::limit_exceeded);
  auto odd = ocml::parse_response(t, R"(<tool_call>{"name": 123, "arguments": {}}</tool_call>)");
  ASSERT_TRUE(odd) << odd.error().to_string();
  const json o = ocml::response_to_openai(*odd);
  EXPECT_EQ(o["tool_calls"][0]["function"]["name"], "123");
}
