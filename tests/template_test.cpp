// SPDX-License-Identifier: Apache-2.0
// The chat-template engine on its own fixtures: tests/template/cases.jsonl holds small
// templates with what Python Jinja2 (set up as transformers sets it up) renders or raises
// (tests/tools/make_template_cases.py wrote it); the sandbox's limits; errors with positions;
// rendering one compiled template from several threads.
#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <thread>

#include "ocml/template.hpp"

namespace {

using ocml::json;

std::vector<json> cases() {
  std::vector<json> out;
  std::ifstream in(std::string(OCML_SOURCE_DIR) + "/tests/template/cases.jsonl");
  std::string line;
  while (std::getline(in, line)) out.push_back(json::parse(line));
  return out;
}

TEST(Template, RendersAndRaisesAsJinja2OnTheFixtures) {
  const auto all = cases();
  ASSERT_GE(all.size(), 60u);
  std::size_t raised = 0;
  for (const auto& c : all) {
    const std::string src = c["template"].get<std::string>();
    auto t = ocml::chat_template::compile(src);
    std::string got_code;
    std::string got_text;
    if (!t) {
      got_code = ocml::error_name(t.error().code);
    } else {
      // A case gives variables, or a whole request's JSON text (read as json.loads reads
      // it: NaN, Infinity, integers beyond 64 bits).
      auto r = c.contains("request")
                   ? ocml::render_template_json(*t, c["request"].get<std::string>(),
                                                {.render = {.now = "2026-01-15T10:30:00"}})
                   : t->render(c["variables"], {.now = "2026-01-15T10:30:00"});
      if (r) {
        got_text = *r;
      } else {
        got_code = ocml::error_name(r.error().code);
      }
    }
    if (c.contains("error")) {
      ++raised;
      EXPECT_EQ(got_code, c["error"].get<std::string>()) << src;
    } else {
      EXPECT_EQ(got_code, "") << src;
      EXPECT_EQ(got_text, c["text"].get<std::string>()) << src;
    }
  }
  EXPECT_GE(raised, 10u);
}

TEST(Template, GenerationBlocksReportTheirTopLevelSpans) {
  auto t = ocml::chat_template::compile(
      "{% macro m() %}{% generation %}in macro{% endgeneration %}{% endmacro %}"
      "a{% generation %}b{{ x }}{% endgeneration %}c{% set s %}{% generation %}held"
      "{% endgeneration %}{% endset %}{{ m() }}{% for i in [1, 2] %}"
      "{% generation %}{{ i }}{% endgeneration %}{% endfor %}");
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  auto out = t->render({{"x", "yz"}}, {.generation_spans = &spans});
  ASSERT_TRUE(out.ok()) << out.error().to_string();
  EXPECT_EQ(*out, "abyzcin macro12");
  // Captured output (set blocks, macros) is not where the text ends up: not recorded.
  const std::vector<std::pair<std::size_t, std::size_t>> want = {{1, 4}, {13, 14}, {14, 15}};
  EXPECT_EQ(spans, want);
  auto plain = t->render({{"x", "yz"}});  // without the pointer: nothing recorded, same text
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(*plain, *out);
}

TEST(Template, SyntaxErrorsSayWhere) {
  auto t = ocml::chat_template::compile("line one\n{% if x %}\n{{ 1 + }}\n{% endif %}");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code, ocml::error_code::template_syntax);
  EXPECT_EQ(t.error().message.rfind("3:", 0), 0u) << t.error().message;
  // The diagnostic's own position counts in the template's bytes, whatever its line ends
  // ("\r\n" and a lone "\r" end a line, as Jinja2 reads them).
  for (const std::string nl : {"\n", "\r\n", "\r"}) {
    const std::string src = "line one" + nl + "{% if x %}" + nl + "{{ 1 + }}" + nl + "{% endif %}";
    auto e = ocml::chat_template::compile(src);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().line, 3u);
    const std::size_t line3 = src.find("{{");
    EXPECT_EQ(e.error().offset, line3 + e.error().column - 1);
    EXPECT_GT(e.error().column, 1u);
    // The message's line:column (counted by the lexer in its "\n" text) says the same.
    EXPECT_EQ(e.error().message.rfind("3:" + std::to_string(e.error().column) + " ", 0), 0u)
        << e.error().message;
  }
  auto u = ocml::chat_template::compile("{% for x in y %}");
  ASSERT_FALSE(u);
  EXPECT_NE(u.error().message.find("endfor"), std::string::npos) << u.error().message;
}

// A run-time error names the statement that failed, as Jinja2's traceback gives its line,
// and words an attribute of None as Jinja2 does (issue 30: the message was garbled).
TEST(Template, RuntimeErrorsSayWhereAndWhat) {
  auto t = ocml::chat_template::compile(
      "{% for m in messages %}\n{{ m.role }}\n{%- if m.content is none %}\n"
      "  {{ m.content.lstrip('\\n') }}\n{% endif %}{% endfor %}");
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  auto r = t->render({{"messages", json::array({{{"role", "user"}, {"content", nullptr}}})}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ocml::error_code::template_undefined);
  EXPECT_EQ(r.error().message,
            "template 4:3 `{{ m.content.lstrip('\\n') }}`: 'None' has no attribute 'lstrip'");
  EXPECT_EQ(r.error().line, 0u);  // no position in the input
  auto d = ocml::chat_template::compile("{{ x.y.z }}");
  ASSERT_TRUE(d.ok());
  auto rd = d->render({{"x", json::object()}});
  ASSERT_FALSE(rd.ok());
  EXPECT_EQ(rd.error().message, "template 1:1 `{{ x.y.z }}`: 'dict object' has no attribute 'y'");
}

TEST(Template, SpreadArgumentsAreBounded) {
  auto t = ocml::chat_template::compile(
      "{% macro f() %}{{ varargs|length }}{% endmacro %}{{ f(*('x' * n)) }}");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t->render({{"n", 65536}}), "65536");
  auto r = t->render({{"n", 5000000}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ocml::error_code::limit_exceeded);
}

TEST(Template, RaiseExceptionKeepsTheTemplatesMessage) {
  auto t = ocml::chat_template::compile(
      "{% if messages|length > 1 %}{{ raise_exception('Only one message, got ' ~ messages|length) "
      "}}{% endif %}");
  ASSERT_TRUE(t);
  auto r = t->render({{"messages", json::array({1, 2})}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ocml::error_code::template_raised);
  EXPECT_EQ(r.error().message, "Only one message, got 2");
}

TEST(Template, TheSandboxBoundsLoopsRecursionAndOutput) {
  const ocml::template_limits small{.max_output = 1000, .max_steps = 500, .max_depth = 20};
  struct bad {
    const char* src;
    const char* what;
  };
  for (const auto& b :
       {bad{"{% for i in range(1000) %}{% endfor %}", "loop"},
        bad{"{% for a in range(100) %}{% for b in range(100) %}{% endfor %}{% endfor %}",
            "nested loop"},
        bad{"{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "recursion"},
        bad{"{% for i in range(100) %}{{ 'xxxxxxxxxxxxxxxxxxxx' }}{% endfor %}", "output"}}) {
    auto t = ocml::chat_template::compile(b.src);
    ASSERT_TRUE(t) << b.what;
    auto r = t->render(json::object(), {.limits = small});
    ASSERT_FALSE(r) << b.what;
    EXPECT_EQ(r.error().code, ocml::error_code::limit_exceeded) << b.what;
  }
  // Within the limits the same templates render.
  auto ok = ocml::chat_template::compile("{% for i in range(10) %}{{ i }}{% endfor %}");
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok->render(json::object(), {.limits = small}), "0123456789");
}

// Sizes come from the template or from request data: each value is bounded before it is
// built (issue 23: these reached 2-7 GB and aborted), and what Python does in O(1) is O(1).
TEST(Template, ValuesAreBoundedBeforeTheyAreBuilt) {
  const ocml::template_limits small{.max_value = 1 << 20};
  for (const char* src : {
           "{{ ('a' * 10**10)|length }}",
           "{{ ([1] * 10**10)|length }}",
           "{{ 'x'|center(10**10) }}",
           "{{ 'x\ny'|indent(10**10) }}",
           "{% set ns = namespace(s='ab') %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s "
           "%}{% endfor %}",
           "{% set ns = namespace(s='ab') %}{% for i in range(60) %}{% set ns.s = ns.s + ns.s "
           "%}{% endfor %}",
           "{% macro d(s, n) %}{% if n %}{{ d(s ~ s, n - 1) }}{% endif %}{% endmacro %}{{ d('ab', "
           "60) }}",
           "{{ '%099999999999d'|format(1) }}",
           "{{ 'ab'.replace('', 'x' * 1000000) }}",
           "{{ ('x' * 1000)|replace('x', 'y' * 10000) }}",
           "{{ ([1, 2] * 40000)|length }}",
           "{{ ('x' * 1000).join(['y'] * 2000) }}",
           // A sum written piece by piece is bounded as the string it stands for.
           "{% set s = 'x' * 600000 %}{{ s + s }}",
           "{% set s = 'x' * 600000 %}{{ 'a' + s + 'b' + s }}",
       }) {
    auto t = ocml::chat_template::compile(src);
    ASSERT_TRUE(t) << src;
    auto r = t->render(json::object(), {.limits = small});
    ASSERT_FALSE(r) << src;
    EXPECT_EQ(r.error().code, ocml::error_code::limit_exceeded) << src;
  }
  // O(1) where Python is: empty repeats, powers of 0, 1 and -1; self-sharing lists compare
  // by identity first.
  auto t = ocml::chat_template::compile(
      "{{ (''*10**18)|length }} {{ ([]*10**18)|length }} {{ 0**(10**18) }} {{ 1**(10**18) }} "
      "{{ (-1)**(10**18 + 1) }} {% set a = [1] %}{% for i in range(200) %}{% set a = [a, a] "
      "%}{% endfor %}{{ a == a }} {{ '%5d|%-4s|%.3f'|format(42, 'x', 2.5) }}");
  ASSERT_TRUE(t);
  auto r = t->render(json::object(), {.limits = small});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, "0 0 0 1 -1 True    42|x   |2.500");
  // range() is Jinja2's sandbox range: more than 100 000 items is its OverflowError.
  auto big = ocml::chat_template::compile("{{ range(100001)|length }}");
  ASSERT_TRUE(big);
  auto rb = big->render(json::object());
  ASSERT_FALSE(rb);
  EXPECT_EQ(rb.error().code, ocml::error_code::template_type);
}

TEST(Template, NestingIsBoundedNotAStackOverflow) {
  // Parsing, evaluating and freeing recurse on nesting: 100 000 levels of brackets, of a
  // chain of + or of filters are refused at compile time; 50 levels compile and run.
  const auto deep = [](const std::string& open, const std::string& mid, const std::string& close,
                       std::size_t n) {
    std::string s = "{{ ";
    for (std::size_t i = 0; i < n; ++i) s += open;
    s += mid;
    for (std::size_t i = 0; i < n; ++i) s += close;
    return s + " }}";
  };
  for (const auto& src :
       {deep("(", "1", ")", 100000), deep("[", "1", "]", 100000), deep("", "1", "+1", 100000),
        deep("", "'a'", "|trim", 100000), deep("not ", "1", "", 100000)}) {
    auto t = ocml::chat_template::compile(src);
    ASSERT_FALSE(t);
    EXPECT_EQ(t.error().code, ocml::error_code::template_syntax);
  }
  auto ok = ocml::chat_template::compile(deep("(", "1", "+1)", 50));
  ASSERT_TRUE(ok) << ok.error().to_string();
  EXPECT_EQ(*ok->render(json::object()), "51");
  std::string nested_ifs;
  for (int i = 0; i < 100000; ++i) nested_ifs += "{% if true %}";
  EXPECT_FALSE(ocml::chat_template::compile(nested_ifs));
}

TEST(Template, NoAccessBeyondTheData) {
  for (const char* src : {"{{ messages.append(1) }}", "{{ d.update({'a': 1}) }}",
                          "{{ d.pop('a') }}", "{{ messages.pop() }}"}) {
    auto t = ocml::chat_template::compile(src);
    ASSERT_TRUE(t) << src;
    auto r = t->render({{"messages", json::array()}, {"d", {{"a", 1}}}});
    ASSERT_FALSE(r) << src;
    EXPECT_EQ(r.error().code, ocml::error_code::template_security) << src;
  }
  // No loader: a template cannot reach files.
  EXPECT_FALSE(ocml::chat_template::compile("{% include '/etc/passwd' %}"));
  EXPECT_FALSE(ocml::chat_template::compile("{% import 'x' as y %}"));
}

// Runs `render(k)` `reps` times on each of `n` threads (k = 0..n-1); each thread's last result.
template <class F>
std::vector<std::string> on_threads(std::size_t n, int reps, F render) {
  std::vector<std::thread> threads;
  std::vector<std::string> got(n);
  for (std::size_t k = 0; k < n; ++k) {
    threads.emplace_back([&, k] {
      for (int rep = 0; rep < reps; ++rep) got[k] = render(k);
    });
  }
  for (auto& th : threads) th.join();
  return got;
}

TEST(Template, OneCompiledTemplateRendersFromManyThreads) {
  auto t = ocml::chat_template::compile(
      "{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}"
      "{{ m.content }}{% endfor %}={{ ns.n }}");
  ASSERT_TRUE(t);
  const auto got = on_threads(4, 200, [&](std::size_t k) {
    json msgs = json::array();
    for (std::size_t i = 0; i <= k; ++i) msgs.push_back({{"content", std::to_string(k)}});
    return *t->render({{"messages", msgs}});
  });
  EXPECT_EQ(got[0], "0=1");
  EXPECT_EQ(got[3], "3333=4");
}

// The built-in globals (range, dict, namespace, strftime_now) are made once per process and
// handed out uncounted: renders on many threads call them at once (they raced on the shared
// functions' counts and freed one, under AddressSanitizer, when each call borrowed anew).
TEST(Template, BuiltinGlobalsAreSharedSafelyBetweenThreads) {
  auto t = ocml::chat_template::compile(
      "{% for i in range(2) %}{{ dict(a=i)|tojson }}{{ namespace(x=i).x }}{% endfor %}"
      "{{ strftime_now('%Y') }}");
  ASSERT_TRUE(t);
  const auto got = on_threads(4, 500, [&](std::size_t /*k*/) {
    auto r = t->render(json::object(), {.now = "2026-01-15T10:30:00"});
    return r ? *r : r.error().message;
  });
  for (const auto& g : got) EXPECT_EQ(g, "{\"a\": 0}0{\"a\": 1}12026");
}

// The template's constants (strings, a 30-digit integer, the Undefined of an unknown name)
// are shared by every render and read uncounted: many threads copying, storing and
// dropping them, and reading a request's shared keys, leave every render exact (the
// sanitizer builds check the rest).
TEST(Template, ConstantsAreSharedSafelyBetweenThreads) {
  auto t = ocml::chat_template::compile(
      "{% set ns = namespace(s='', xs=[]) %}{% for m in messages %}"
      "{% set ns.s = ns.s + 'lit' + m.role %}{% set ns.xs = ns.xs + ['k', nope] %}"
      "{% endfor %}{{ ns.s }}|{{ ns.xs | length }}|{{ nope is defined }}|"
      "{{ 123456789012345678901234567890 + 1 }}|{{ 'a' ~ 'b' }}");
  ASSERT_TRUE(t);
  const std::string request =
      R"({"messages":[{"role":"user","content":"x"},{"role":"assistant","content":"y"}]})";
  std::vector<std::thread> threads;
  std::vector<std::string> got(4);
  for (std::size_t k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      for (int rep = 0; rep < 300; ++rep) got[k] = *ocml::render_template_json(*t, request, {});
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& g : got) {
    EXPECT_EQ(g, "lituserlitassistant|4|False|123456789012345678901234567891|ab");
  }
}

// The request's objects are read from the parsed document when the template first looks
// into one, and `tojson` writes one it never looked into straight from the document: both
// must say what Python's json.loads and Jinja2 say (expected text: Jinja2 3.1 with
// tests/tools/render_template.py). Identity (`==` of two objects, `is sameas`), a key
// given twice (its first place, its last value), indent, sort_keys, an object of more keys
// than the direct writer takes, tool-call arguments parsed, numbers beyond 64 bits.
TEST(Template, RequestObjectsReadWhenUsedSayWhatJinja2Says) {
  const std::string request =
      R"~({"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}, {"role": "user", "content": "a"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\": [1, 2.5]}"}}]}], "tools": [{"type": "function", "function": {"name": "f", "name": "g", "parameters": {"type": "object", "properties": {"q": {"type": "string", "description": "\u00e9t\u00e9 \"x\"\n"}}, "required": []}}}, {"k00": 0, "k01": 1, "k02": 2, "k03": 3, "k04": 4, "k05": {"x": [1, {"y": null}]}, "k06": 6, "k07": 7, "k08": 8, "k09": 9, "k10": 10, "k11": 11, "k12": 12, "k13": 13, "k14": 14, "k15": 15, "k16": 16, "k17": 17, "k18": 18, "k19": 19}, {"n": [18446744073709551615, 1.5, -3, 1e20, -0.0, true, false, null, [], {}], "e": "\ud83d\ude00"}]})~";
  auto t = ocml::chat_template::compile(
      R"~({{ messages[0] == messages[1] }}|{{ messages[0] == messages[2] }}|{{ messages[0] is sameas messages[0] }}|{{ messages[0] is sameas messages[2] }}
{{ tools[0] | tojson }}
{{ tools[0] | tojson(indent=2) }}
{{ tools[1] | tojson }}
{{ tools[1] | tojson(sort_keys=true) }}
{{ messages[3].tool_calls[0] | tojson }}|{{ messages[3].tool_calls[0].function.arguments.a }}
{{ messages[0].content }}{{ messages[0].content }}|{{ messages[0] | length }}|{{ 'role' in messages[0] }}|{% for k in messages[0] %}{{ k }},{% endfor %}|{{ messages[0].items() | list }}
{{ tools[2] | tojson }}|{{ tools[2] }}
)~");
  ASSERT_TRUE(t) << t.error().message;
  const auto out = ocml::render_template_json(*t, request, {});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(*out, R"~(False|True|True|False
{"type": "function", "function": {"name": "g", "parameters": {"type": "object", "properties": {"q": {"type": "string", "description": "été \"x\"\n"}}, "required": []}}}
{
  "type": "function",
  "function": {
    "name": "g",
    "parameters": {
      "type": "object",
      "properties": {
        "q": {
          "type": "string",
          "description": "été \"x\"\n"
        }
      },
      "required": []
    }
  }
}
{"k00": 0, "k01": 1, "k02": 2, "k03": 3, "k04": 4, "k05": {"x": [1, {"y": null}]}, "k06": 6, "k07": 7, "k08": 8, "k09": 9, "k10": 10, "k11": 11, "k12": 12, "k13": 13, "k14": 14, "k15": 15, "k16": 16, "k17": 17, "k18": 18, "k19": 19}
{"k00": 0, "k01": 1, "k02": 2, "k03": 3, "k04": 4, "k05": {"x": [1, {"y": null}]}, "k06": 6, "k07": 7, "k08": 8, "k09": 9, "k10": 10, "k11": 11, "k12": 12, "k13": 13, "k14": 14, "k15": 15, "k16": 16, "k17": 17, "k18": 18, "k19": 19}
{"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"a": [1, 2.5]}}}|[1, 2.5]
aa|2|True|role,content,|[('role', 'user'), ('content', 'a')]
{"n": [18446744073709551615, 1.5, -3, 1e+20, -0.0, true, false, null, [], {}], "e": "😀"}|{'n': [18446744073709551615, 1.5, -3, 1e+20, -0.0, True, False, None, [], {}], 'e': '😀'})~");
  // Rendered again on the same thread: the document of the first request is gone.
  const auto again = ocml::render_template_json(*t, request, {});
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *out);
  // After a request of over 1 MiB the thread lets its parser's buffers go, and reads the next
  // one with a new parser.
  auto len = ocml::chat_template::compile("{{ messages[0].content|length }}");
  ASSERT_TRUE(len);
  const std::string big =
      R"({"messages": [{"role": "user", "content": ")" + std::string(1500000, 'x') + R"("}]})";
  EXPECT_EQ(*ocml::render_template_json(*len, big, {}), "1500000");
  const auto after = ocml::render_template_json(*t, request, {});
  ASSERT_TRUE(after);
  EXPECT_EQ(*after, *out);
}

TEST(Template, VariablesOfAnOpenAIRequest) {
  const json req = json::parse(R"({"messages":[{"role":"assistant","tool_calls":[
      {"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}},
      {"id":"d","type":"function","function":{"name":"g","arguments":"not json"}}]}],
      "add_generation_prompt":true,"chat_template_kwargs":{"enable_thinking":false,"x":2}})");
  auto v = ocml::template_variables(req, {.kwargs = {{"bos_token", "<s>"}, {"x", 1}}});
  ASSERT_TRUE(v);
  EXPECT_EQ((*v)["messages"][0]["tool_calls"][0]["function"]["arguments"], json({{"a", 1}}));
  EXPECT_EQ((*v)["messages"][0]["tool_calls"][1]["function"]["arguments"], "not json");
  EXPECT_TRUE((*v)["tools"].is_null());
  EXPECT_TRUE((*v)["documents"].is_null());
  EXPECT_EQ((*v)["add_generation_prompt"], true);
  EXPECT_EQ((*v)["bos_token"], "<s>");
  EXPECT_EQ((*v)["x"], 2);  // the request's chat_template_kwargs win
  EXPECT_EQ((*v)["enable_thinking"], false);
  EXPECT_FALSE(ocml::template_variables(json::parse(R"({"messages": 3})")));
}

}  // namespace

// A tokenizer_config.json's templates as transformers reads them (issue 23): the list into
// a dict (a repeated name is its last template), `tool_use` when tools is not None (an
// empty list too), no default is transformers' ValueError, and a config that is not JSON
// is an error, not template text.
TEST(ModelTemplate, NamedTemplatesAsTransformersPicksThem) {
  const json config = {
      {"chat_template", json::array({{{"name", "default"}, {"template", "first"}},
                                     {{"name", "tool_use"}, {"template", "tools"}},
                                     {{"name", "default"}, {"template", "last"}}})}};
  auto m = ocml::model_template::from_text(config.dump());
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(*m->render_json(R"({"messages": []})", {}), "last");
  EXPECT_EQ(*m->render_json(R"({"messages": [], "tools": []})", {}), "tools");
  EXPECT_EQ(*m->render_json(R"({"messages": [], "tools": null})", {}), "last");
  const json no_default = {{"chat_template", json::array({{{"name", "rag"}, {"template", "r"}}})}};
  auto n = ocml::model_template::from_text(no_default.dump());
  ASSERT_TRUE(n);
  auto r = n->render_json(R"({"messages": []})", {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ocml::error_code::template_type);
  EXPECT_NE(r.error().message.find("no default specified"), std::string::npos);
  auto broken = ocml::model_template::from_text(R"({"chat_template": "{{ x }}",)");
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().code, ocml::error_code::invalid_json);
  auto text = ocml::model_template::from_text("{{ 'a template' }}");
  ASSERT_TRUE(text);
  EXPECT_EQ(*text->render_json(R"({"messages": []})", {}), "a template");
}

// Issue 23: a template could nest values without end (`{% set ns.x = [ns.x] %}` in a loop)
// and printing or freeing them recursed once per level: SIGSEGV at 100 000 levels printed,
// 3 000 000 freed. Lists, dicts, namespaces and generator chains are bounded where built.
TEST(Template, NestingIsBoundedWhereValuesAreBuilt) {
  const auto code_of = [](const std::string& body, std::size_t n) {
    const std::string src = "{% set ns = namespace(x=[], g=[1]) %}{% for i in range(" +
                            std::to_string(n) + ") %}" + body + "{% endfor %}{{ ns.x is defined }}";
    auto t = ocml::chat_template::compile(src);
    EXPECT_TRUE(t) << src;
    auto r = t->render(json::object());
    return r ? std::string("ok ") + *r : std::string(ocml::error_name(r.error().code));
  };
  for (const char* body :
       {"{% set ns.x = [ns.x] %}", "{% set ns.x = {'k': ns.x} %}", "{% set ns.x = (ns.x,) %}",
        "{% set ns.x = namespace(y=ns.x) %}", "{% set ns.g = ns.g|reject('none') %}"}) {
    EXPECT_EQ(code_of(body, 100000), "E-LIMIT-EXCEEDED") << body;
    EXPECT_EQ(code_of(body, 1500).substr(0, 3), "ok ") << body;
  }
}

namespace {

// Each template of `cases` compiles and renders `vars` to its text.
void expect_renders(const std::vector<std::pair<std::string, std::string>>& cases,
                    const json& vars) {
  for (const auto& [src, want] : cases) {
    auto t = ocml::chat_template::compile(src);
    ASSERT_TRUE(t) << src << ": " << t.error().message;
    const auto got = t->render(vars, {});
    ASSERT_TRUE(got) << src << ": " << got.error().message;
    EXPECT_EQ(*got, want) << src;
  }
}

}  // namespace

// Names are bound by per-template ids (decision 112): what each case renders is what Python
// Jinja2 renders, with transformers' tojson (json.dumps) where it is used.
TEST(Template, NamesBoundByIdRenderAsJinja2) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      // A variable shadows the built-in of its name; one the template never names is left out.
      {"{{ range }}|{{ messages|length }}", "shadowed|2"},
      {"{% macro m(a, b=2) %}{{ a }}{{ b }}{{ kwargs }}{{ varargs }}{% endmacro %}"
       "{{ m(1, 5, 6, c=4) }}|{{ m(7, b=3) }}",
       "15{'c': 4}(6,)|73{}()"},
      {"{% macro w() %}[{{ caller() }}]{% endmacro %}{% call w() %}in{% endcall %}", "[in]"},
      {"{% set ns = namespace(n=0) %}{% for x in [1,2,3] %}{% set ns.n = ns.n + x %}"
       "{% set loopvar = loop.index %}{% endfor %}{{ ns.n }}{{ loopvar is defined }}",
       "6False"},
      {"{% with a = 1, b = 2 %}{{ a + b }}{% endwith %}{{ a is defined }}", "3False"},
      {"{{ {'k': 'v\"q', 'n': [1, 2.5, none, true]}|tojson }}|{{ 'é\\n'|tojson }}|"
       "{{ {'b': 1, 'a': [1]}|tojson(indent=2, sort_keys=true) }}|{{ 'é'|tojson(ensure_ascii=true) "
       "}}",
       "{\"k\": \"v\\\"q\", \"n\": [1, 2.5, null, true]}|\"é\\n\"|{\n  \"a\": [\n    1\n  ],\n  "
       "\"b\": 1\n}|\"\\u00e9\""},
      {"{{ 'abc' == 'abc' }}{{ 'abcdefghijklmnopq' == 'abcdefghijklmnopr' }}{{ 1 == 1.0 }}"
       "{{ 'a' != 'b' }}",
       "TrueFalseTrueTrue"},
      {"{% for k, v in {'x': 1, 'y': 2}.items() %}{{ k }}={{ v }};{% endfor %}"
       "{{ {'get': 1}.get('get') }}",
       "x=1;y=2;1"},
  };
  const json vars = {{"range", "shadowed"}, {"messages", json::array({1, 2})}, {"unused", 1}};
  expect_renders(cases, vars);
  // A request object read, then dumped: built once, still written as json.dumps writes it.
  auto t = ocml::chat_template::compile(
      "{{ messages[0].role }}{{ messages[0]|tojson }}{{ messages[0].role }}"
      "{{ messages[0] is sameas messages[0] }}");
  ASSERT_TRUE(t);
  const auto out =
      ocml::render_template_json(*t, R"({"messages": [{"role": "user", "content": "a\"b"}]})", {});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(*out, "user{\"role\": \"user\", \"content\": \"a\\\"b\"}userTrue");
}

// An error is kept by the innermost statement and the render returns from there (decision
// 112): the first error is the one reported, with the failing statement's position, as
// Jinja2 raises it (messages from Jinja2; positions from the statement).
TEST(Template, FirstErrorIsReportedFromWhereItWasRaised) {
  const std::vector<std::array<std::string, 3>> cases = {
      // In a macro called from an expression that would fail next.
      {"{% macro m() %}{{ x.y.z }}{% endmacro %}{% for i in [1,2] %}{{ m() ~ (1 + \"a\") }}"
       "{% endfor %}",
       "E-TEMPLATE-UNDEFINED", "template 1:16 `{{ x.y.z }}`: 'x' is undefined"},
      // In a loop, with statements after it that would fail too.
      {"{% set ns = namespace(a=0) %}{% for i in range(3) %}{% set ns.a = ns.a + 1 %}"
       "{% if i == 1 %}{{ raise_exception(\"stop at \" ~ ns.a) }}{% endif %}{% endfor %}\n"
       "{{ 1 + \"b\" }}",
       "E-TEMPLATE-RAISED", "stop at 2"},
      // In a call block's body, run by the macro's caller().
      {"{% macro w() %}[{{ caller() }}]{% endmacro %}{% call w() %}{{ 1 // 0 }}{% endcall %}after",
       "E-TEMPLATE-TYPE", "template 1:60 `{{ 1 // 0 }}`: integer division or modulo by zero"},
      // After a set block.
      {"{% set x %}{{ [1][5] }}{% endset %}{{ x.missing() }}", "E-TEMPLATE-UNDEFINED",
       "template 1:36 `{{ x.missing() }}`: 'str object' has no attribute 'missing'"},
  };
  for (const auto& [src, code, message] : cases) {
    auto t = ocml::chat_template::compile(src);
    ASSERT_TRUE(t) << src;
    for (int round = 0; round < 2; ++round) {  // the interpreter keeps nothing between renders
      const auto got = t->render(json::object(), {});
      ASSERT_FALSE(got) << src;
      EXPECT_EQ(ocml::error_name(got.error().code), code) << src;
      EXPECT_EQ(got.error().message, message) << src;
    }
  }
}

// `{{ a + b + c }}` is written piece by piece while every piece is a plain str; any other
// piece makes it a sum again, in Python's order. Conditions are asked without their value.
// Expected text and messages from Python Jinja2 (ImmutableSandboxedEnvironment).
TEST(Template, SumsAndConditionsRenderAsJinja2) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{{ 'a' + 'b' + 'c' }}|{{ 1 + 2 + 3 }}|{{ [1] + [2] + [3] }}|{{ '' + '' }}",
       "abc|6|[1, 2, 3]|"},
      // Markup in a sum escapes the plain strings on either side of it.
      {"{{ '<' + '>' + ('&'|safe) }}|{{ ('&'|safe) + '<' + '>' }}", "&lt;&gt;&|&&lt;&gt;"},
      {"{{ 'a' + messages|length|string + 'b' }}|{{ 'a' + [1, 2]|join + 'b' + messages[0] }}",
       "a2b|a12bm0"},
      {"{% set ns = namespace(s='q') %}{{ ns.s + ns.s + 'z' }}{{ messages[0] + 'x' }}", "qqzm0x"},
      {"{% set d = {'a': 1} %}{{ d.nope is defined }}{{ d.items is defined }}{{ d.a }}"
       "{{ d.nope }}|",
       "FalseTrue1|"},
      {"{{ 'a' if (messages[0] == 'm0' and not messages[1] == 'q') else 'b' }}"
       "{% if messages|length > 1 or nope %}y{% endif %}{{ 'z' if false }}|"
       "{{ 0 or '' or 'c' }}{{ 1 and 0 }}{{ not nope }}"
       "{% for m in messages if m is string and m != 'm0' %}{{ m }}{% endfor %}",
       "ay|c0Truem1"},
  };
  const json vars = {{"messages", json::array({"m0", "m1"})}};
  expect_renders(cases, vars);
  const std::vector<std::pair<std::string, std::string>> errors = {
      {"{{ 'a' + 1 }}", "can only concatenate str (not \"int\") to str"},
      {"{{ 'x' + nope + 'y' }}", "'nope' is undefined"},
      // The sum fails before the next piece is evaluated, as in Python.
      {"{{ 'a' + 1 + nope() }}", "can only concatenate str (not \"int\") to str"},
      {"{{ 'n' + 1.5 }}", "can only concatenate str (not \"float\") to str"},
      {"{{ 1 + 'n' }}", "unsupported operand type(s) for +: 'int' and 'str'"},
      {"{{ 'a' + none }}", "can only concatenate str (not \"NoneType\") to str"},
      {"{% set d = {'a': 1} %}{{ d.reasoning_content_long_name + 'x' }}",
       "'dict object' has no attribute 'reasoning_content_long_name'"},
      {"{% if 1 < 'a' %}x{% endif %}", "'<' not supported between instances of 'int' and 'str'"},
      {"{% if nope.x %}x{% endif %}", "'nope' is undefined"},
  };
  for (const auto& [src, message] : errors) {
    auto t = ocml::chat_template::compile(src);
    ASSERT_TRUE(t) << src;
    const auto got = t->render(vars, {});
    ASSERT_FALSE(got) << src;
    EXPECT_NE(got.error().message.find(message), std::string::npos)
        << src << ": " << got.error().message;
  }
}

// A scope of more than 32 variables is indexed by id (a template of 10^5 top-level sets
// took 34 s, each set scanning the scope): sets, reads, a loop's scope emptied between
// iterations and a macro's keyword parameters render as Jinja2 renders them.
TEST(Template, LargeScopesRenderAsSmallOnes) {
  std::string sets;
  std::string loop_sets;
  std::string params;
  std::string keywords;
  for (int i = 0; i < 100; ++i)
    sets += "{% set v" + std::to_string(i) + " = " + std::to_string(i) + " %}";
  for (int i = 0; i < 40; ++i)
    loop_sets += "{% set a" + std::to_string(i) + " = i + " + std::to_string(i) + " %}";
  for (int i = 0; i < 40; ++i) {
    params += (i ? ", p" : "p") + std::to_string(i) + "=0";
    if (i % 13 == 0)
      keywords += (keywords.empty() ? "p" : ", p") + std::to_string(i) + "=" + std::to_string(i);
  }
  const std::string src =
      sets + "{{ v0 }},{{ v99 }},{% set v50 = 'x' %}{{ v50 }}|" +
      "{% for i in range(3) %}{{ a0 is defined }}" + loop_sets +
      "{{ a0 }}{{ a39 }};{% endfor %}{{ a0 is defined }}|" + "{% macro m(" + params +
      ") %}{{ p0 }}{{ p13 }}{{ p26 }}{{ p39 }}{{ p1 }}{% endmacro %}{{ m(" + keywords + ") }}";
  auto t = ocml::chat_template::compile(src);
  ASSERT_TRUE(t) << t.error().message;
  const auto got = t->render(json::object(), {});
  ASSERT_TRUE(got) << got.error().message;
  // (Jinja2: "0,99,x|False039;False140;False241;False|01326390")
  EXPECT_EQ(*got, "0,99,x|False039;False140;False241;False|01326390");
}
