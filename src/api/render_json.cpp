// SPDX-License-Identifier: Apache-2.0
// render_json: JSON text to a dialect's markup, diagnostics pointing into the JSON.
#include <string.h>  // memmem
#include <algorithm>

#include <cstring>

#include "api/render_json.hpp"
#include "dialects/registry.hpp"
#include "interchange/json_input.hpp"
#include "interchange/simd_json.hpp"
#include "ocml/json.hpp"

namespace ocml {

namespace {

// What one pass over a JSON text's keys tells: whether it may be in the native form (a key
// only that form has: detect_json_format's list), and whether it carries options beside
// its messages (add_generation_prompt, …). One memchr pass over the ':' bytes, each
// checked for a key just before it; a false alarm (the spelling inside a string) only
// costs the general reader, which decides.
struct key_scan {
  bool native = false;
  bool options = false;
};

key_scan scan_keys(std::string_view text) {
  static constexpr std::string_view native_keys[] = {
      "end",          "call_id", "constrain",  "intent",        "extra",  "recipient", "channel",
      "content_type", "flags",   "reflection", "introspection", "header", "document"};
  static constexpr std::string_view option_keys[] = {"add_generation_prompt",
                                                     "chat_template_kwargs",
                                                     "continue_final_message", "reasoning_effort"};
  key_scan r;
  bool tool_calls = false;
  bool function = false;
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  for (const char* p = begin; (p = static_cast<const char*>(std::memchr(p, ':', end - p))); ++p) {
    const char* q = p;
    while (q > begin && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n' || q[-1] == '\r')) --q;
    if (q == begin || q[-1] != '"') continue;
    const char* k = q - 1;  // the key's closing quote
    const char* open = k;
    while (open > begin && open[-1] != '"' && k - open < 24) --open;
    if (open == begin || open[-1] != '"') continue;
    const std::string_view key(open, static_cast<std::size_t>(k - open));
    for (const auto n : native_keys) r.native = r.native || key == n;
    for (const auto n : option_keys) r.options = r.options || key == n;
    tool_calls = tool_calls || key == "tool_calls";
    function = function || key == "function";
    if (key == "type") {  // harmony's own content parts: "type": "system_content", …
      std::string_view value(p + 1, static_cast<std::size_t>(end - p - 1));
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      r.native = r.native || value.starts_with("\"system_content\"") ||
                 value.starts_with("\"developer_content\"");
    }
  }
  // A tool call written natively: {"id":…,"name":…} without "function".
  r.native = r.native || (tool_calls && !function);
  return r;
}

// The options a request carries beside its messages, as vLLM and SGLang read them
// (`add_generation_prompt`, `continue_final_message`, `chat_template_kwargs.enable_thinking`,
// `reasoning_effort`), over the caller's; the text is read again only when one occurs.
json_render_options with_request_options(std::string_view text, const json_render_options& in,
                                         const key_scan& keys) {
  json_render_options o = in;
  if (o.format == json_format::automatic && !keys.native) o.format = json_format::openai;
  if (!keys.options || !in.request_options) return o;
  simdjson::dom::element doc;
  if (detail::parse_document(text).get(doc) != simdjson::SUCCESS || !doc.is_object()) return o;
  bool b = false;
  if (doc["add_generation_prompt"].get(b) == simdjson::SUCCESS) o.render.add_generation_prompt = b;
  if (doc["continue_final_message"].get(b) == simdjson::SUCCESS) {
    o.render.continue_final_message = b;
  }
  if (doc["chat_template_kwargs"]["enable_thinking"].get(b) == simdjson::SUCCESS) {
    o.render.enable_thinking = b;
  }
  std::string_view effort;
  if (doc["reasoning_effort"].get(effort) == simdjson::SUCCESS) o.reasoning_effort = effort;
  return o;
}

}  // namespace

bool json_render_result::ok() const noexcept {
  return std::none_of(diagnostics.begin(), diagnostics.end(),
                      [](const diagnostic& d) { return d.level == severity::error; });
}

namespace detail {

prepared_json prepare_json(std::string_view json_text, const json_render_options& options) {
  prepared_json p;
  json_format format = options.format;
  if (format == json_format::openai) p.conv = read_openai_text(json_text);  // hot path
  if (!p.conv) p.conv = read_conversation_as_written(json_text, format);
  if (!p.conv) return p;
  p.openai = format == json_format::openai;
  const preamble_hooks* preamble = codec_of(options.render.dialect).preamble;
  if (preamble != nullptr && p.openai) {
    // OpenAI chat JSON carries no dialect preamble (harmony's system message): build it.
    p.preamble = preamble->origins(*p.conv);
    *p.conv = preamble->build(std::move(*p.conv), {.reasoning_effort = options.reasoning_effort,
                                                   .current_date = options.current_date});
  }
  return p;
}

json_render_options request_options_of(std::string_view json_text, const json_render_options& in) {
  return with_request_options(json_text, in, scan_keys(json_text));
}

}  // namespace detail

json_render_options json_render_defaults(dialect d) {
  json_render_options o;
  o.render.dialect = d;
  o.render.drop_analysis = detail::codec_of(d).drops_analysis;
  return o;
}

openai_options openai_defaults(dialect d) {
  openai_options o;
  o.reasoning_key = std::string(detail::codec_of(d).reasoning_key);
  return o;
}

json_render_result render_json(std::string_view json_text, const json_render_options& given) {
  json_render_result r;
  const json_render_options options = with_request_options(json_text, given, scan_keys(json_text));
  const auto* one_pass = detail::codec_of(options.render.dialect).one_pass;
  if (one_pass != nullptr && options.format == json_format::openai &&
      !options.render.continue_final_message &&
      one_pass->to_text(json_text, options.render.add_generation_prompt, r.text, r.diagnostics)) {
    // The one-pass path: OpenAI JSON straight to ChatML (its reader declines what it does
    // not take, and the general path below answers then).
    for (auto& d : r.diagnostics) {
      detail::to_openai_path(d);
      detail::place_at_path(d, json_text);
    }
    return r;
  }
  r.text.clear();
  r.diagnostics.clear();
  const detail::prepared_json p = detail::prepare_json(json_text, options);
  if (!p.conv) {
    r.diagnostics.push_back(p.conv.error());
    return r;
  }
  auto text = render(*p.conv, options.render, &r.diagnostics);
  if (!text) r.diagnostics.push_back(text.error());
  for (auto& d : r.diagnostics) p.locate(d, json_text);
  if (text) r.text = std::move(*text);
  return r;
}

void render_json_line(std::string_view json_text, const json_render_options& given,
                      text_buffer& line, std::vector<diagnostic>& diagnostics) {
  const auto* one_pass = detail::codec_of(given.render.dialect).one_pass;
  if (one_pass != nullptr &&
      (given.format == json_format::automatic || given.format == json_format::openai)) {
    // The one-pass path, straight to the escaped line. Its reader declines every key it does
    // not know (the native form's too), so no key scan is needed first: only the two
    // options ChatML heeds are looked for.
    const auto has = [json_text](std::string_view key) {  // memmem: a quote starts no search
      return ::memmem(json_text.data(), json_text.size(), key.data(), key.size()) != nullptr;
    };
    json_render_options o = given;
    if (given.request_options &&
        (has("\"add_generation_prompt\"") || has("\"continue_final_message\""))) {
      o = with_request_options(json_text, given, key_scan{.native = false, .options = true});
    }
    if (!o.render.continue_final_message) {
      const std::size_t at = line.size();
      const std::size_t before = diagnostics.size();
      line.raw("{\"text\":\"");
      if (one_pass->to_json_text(json_text, o.render.add_generation_prompt, line, diagnostics)) {
        for (std::size_t i = before; i < diagnostics.size(); ++i) {
          detail::to_openai_path(diagnostics[i]);
          detail::place_at_path(diagnostics[i], json_text);
        }
        line.raw("\"}");
        return;
      }
      line.truncate(at);
      diagnostics.resize(before);
    }
  }
  json_render_result r = render_json(json_text, given);
  for (auto& x : r.diagnostics) diagnostics.push_back(std::move(x));
  if (!r.ok()) return;
  line.raw("{\"text\":\"");
  line.escape(r.text);  // rendered from JSON strings: valid UTF-8
  line.raw("\"}");
}

}  // namespace ocml
