// SPDX-License-Identifier: Apache-2.0
// The response-template executor: any spec loads or fails with E-RESPONSE-TEMPLATE; any
// generation parses (strict: or fails with E-RESPONSE-CONTENT/-MISSING or E-LIMIT-EXCEEDED),
// never a crash or a hang; the spans of the events tile prefix + generation, and feeding the
// generation in pieces gives the same message as feeding it whole.
// Input: spec JSON "\n---\n" prefix "\n---\n" generation; with fewer parts, the whole input is
// the generation and a built-in spec (think, tool calls with a pattern, implicit content) runs.
#include "fuzz_common.hpp"
#include "ocml/response.hpp"

namespace {

const char* kBuiltin =
    R"({"defaults": {"role": "assistant"}, "start_anchor": "<|im_start|>assistant\n",
  "fields": {"thinking": {"open": ["<think>", "<thinking>"], "close": ["</think>", "</thinking>"]},
    "tool_calls": {"open_pattern": "<tool_call>\\s*<function=(?P<name>\\w+)>", "close": "</tool_call>",
      "repeats": true, "content": "xml-inline",
      "content_args": {"tag_pattern": "<parameter=(?P<key>\\w+)>\\s*(?P<value>.*?)\\s*</parameter>",
        "value_parser": {"name": "json", "args": {"allow_non_json": true}}},
      "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}},
    "json_calls": {"open": "<call>", "close": "</call>", "content": "json", "repeats": true},
    "meta": {"open": "<meta>", "close": "</meta>", "content": "kv-lines"},
    "content": {"close": "<|im_end|>", "repeats": true, "join": ""}}})";

struct run_out {
  std::string message;
  std::size_t end = 0;
  bool tiles = true;
};

run_out run(const ocml::response_template& t, std::string_view prefix, std::string_view gen,
            std::size_t chunk, bool lenient) {
  run_out r;
  ocml::response_parser p(t, {.prefix = prefix, .lenient = lenient},
                          [&](const ocml::response_event& e) {
                            if (e.span.end > e.span.begin) {
                              r.tiles = r.tiles && e.span.begin == r.end;
                              r.end = e.span.end;
                            }
                          });
  for (std::size_t i = 0; i < gen.size(); i += chunk) p.push(gen.substr(i, chunk));
  auto m = p.finish();
  if (m) {
    r.message = m->dump(-1, ' ', false, ocml::json::error_handler_t::replace);
  } else {
    const auto c = m.error().code;
    ocml::fuzz::check(c == ocml::error_code::response_content ||
                      c == ocml::error_code::response_missing ||
                      c == ocml::error_code::invalid_utf8 || c == ocml::error_code::limit_exceeded);
    r.message = "error " + std::string(ocml::error_name(c));
  }
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string_view spec = kBuiltin;
  std::string_view prefix;
  std::string_view gen = in;
  const std::size_t a = in.find("\n---\n");
  const std::size_t b = a == std::string_view::npos ? a : in.find("\n---\n", a + 5);
  if (b != std::string_view::npos) {
    spec = in.substr(0, a);
    prefix = in.substr(a + 5, b - a - 5);
    gen = in.substr(b + 5);
  }
  auto t = ocml::response_template::from_text(spec);
  if (!t) {
    ocml::fuzz::check(t.error().code == ocml::error_code::response_template);
    t = ocml::response_template::from_text(kBuiltin);
  }
  const std::size_t chunk = 1 + (size % 7);
  for (const bool lenient : {false, true}) {
    const run_out whole = run(*t, prefix, gen, gen.size() + 1, lenient);
    const run_out pieces = run(*t, prefix, gen, chunk, lenient);
    ocml::fuzz::check(whole.tiles && pieces.tiles);
    ocml::fuzz::check(whole.end == prefix.size() + gen.size());
    ocml::fuzz::check(pieces.end == whole.end);
    ocml::fuzz::check(whole.message == pieces.message);
    if (lenient) ocml::fuzz::check(whole.message.rfind("error ", 0) != 0);
  }
  return 0;
}
