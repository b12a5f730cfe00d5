// SPDX-License-Identifier: Apache-2.0
// render_json: JSON text to a dialect's markup, diagnostics pointing into the JSON.
#include <algorithm>

#include <cstring>

#include "api/render_json.hpp"
#include "core/line_tracker.hpp"
#include "dialects/registry.hpp"
#include "interchange/json_input.hpp"
#include "interchange/json_reader.hpp"
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
// (`add_generation_prompt`, `continue_final_message`, `chat_template_kwargs` through
// apply_kwargs, `reasoning_effort`), over the caller's; the text is read again only when one
// occurs.
// Applies a request's own options given as raw JSON values (a one-pass reader found them):
// a bool literal for the two flags (anything else leaves the option as it was, as a
// simdjson read of a wrong type does), a string for reasoning_effort, an object of kwargs.
void apply_request_values(const detail::request_option_values& v, json_render_options& o,
                          std::vector<diagnostic>* warnings) {
  const auto trimmed = [](std::string_view raw) {
    while (!raw.empty() &&
           (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\n' || raw.back() == '\r')) {
      raw.remove_suffix(1);
    }
    return raw;
  };
  const auto flag = [&](std::string_view raw, bool& option) {
    raw = trimmed(raw);
    if (raw == "true" || raw == "false") option = raw == "true";
  };
  flag(v.add_generation_prompt, o.render.add_generation_prompt);
  flag(v.continue_final_message, o.render.continue_final_message);
  if (const auto effort = trimmed(v.reasoning_effort); effort.starts_with('"')) {
    if (auto j = parse_json_text(effort); j && j->is_string()) o.reasoning_effort = *j;
  }
  // Rare (a request that sets template variables): read through the one kwargs mapping.
  if (const auto kwargs = trimmed(v.chat_template_kwargs); kwargs.starts_with('{')) {
    if (auto j = parse_json_text(kwargs)) detail::apply_kwargs(o, *j, warnings);
  }
}

// The request's options read with the one-pass reader, every other member skipped (not
// built: a simdjson document of the whole request was 10% of a batch whose lines carry
// options); false when the reader declines the text.
bool read_request_options(std::string_view text, json_render_options& o,
                          std::vector<diagnostic>* warnings) {
  thread_local detail::json_arena arena;
  arena.reset(text.size());
  detail::json_reader r(text, arena);
  if (r.peek() != '{') return false;
  detail::request_option_values values;
  const bool ok = r.object([&](std::string_view key, const detail::json_string&) {
    std::string_view* option = values.slot(key);
    const char* const at = r.position();
    if (!r.skip()) return false;
    if (option != nullptr)
      *option = std::string_view(at, static_cast<std::size_t>(r.position() - at));
    return true;
  });
  if (!ok || !r.at_end()) return false;
  apply_request_values(values, o, warnings);
  return true;
}

json_render_options with_request_options(std::string_view text, const json_render_options& in,
                                         const key_scan& keys, std::vector<diagnostic>* warnings) {
  json_render_options o = in;
  if (o.format == json_format::automatic && !keys.native) o.format = json_format::openai;
  if (!keys.options || !in.request_options) return o;
  if (read_request_options(text, o, warnings)) return o;
  o = in;  // the one-pass reader declined (a repeated key, deep nesting…): simdjson reads it
  if (o.format == json_format::automatic && !keys.native) o.format = json_format::openai;
  simdjson::dom::element doc;
  if (detail::parse_document(text).get(doc) != simdjson::SUCCESS || !doc.is_object()) return o;
  bool b = false;
  if (doc["add_generation_prompt"].get(b) == simdjson::SUCCESS) o.render.add_generation_prompt = b;
  if (doc["continue_final_message"].get(b) == simdjson::SUCCESS) {
    o.render.continue_final_message = b;
  }
  std::string_view effort;
  if (doc["reasoning_effort"].get(effort) == simdjson::SUCCESS) o.reasoning_effort = effort;
  simdjson::dom::object kwargs;
  if (doc["chat_template_kwargs"].get(kwargs) == simdjson::SUCCESS) {
    // Rare (a request that sets template variables): read through the one kwargs mapping.
    if (auto j = parse_json_text(simdjson::minify(kwargs))) {
      detail::apply_kwargs(o, *j, warnings);
    }
  }
  return o;
}

// A warning of a one-pass renderer, whose path is OpenAI's already: at the offset its
// reader recorded, else (npos: not recorded) found by its path.
// `one_line`: the text holds no newline (a JSONL line), so a column is the offset + 1.
void place_one_pass(diagnostic& d, std::string_view text, bool one_line) {
  if (d.offset == std::string_view::npos) {
    d.offset = 0;
    detail::place_at_path(d, text);
    return;
  }
  if (one_line) {
    d.line = 1;
    d.column = std::min(d.offset, text.size()) + 1;
    return;
  }
  const detail::position p = detail::advance({}, text.substr(0, std::min(d.offset, text.size())));
  d.line = p.line;
  d.column = p.column;
}

// Places the one-pass warnings from `from` on (the newline check made once for them all).
void place_one_pass(std::vector<diagnostic>& ds, std::size_t from, std::string_view text) {
  if (from == ds.size()) return;
  const bool one_line = std::memchr(text.data(), '\n', text.size()) == nullptr;
  for (std::size_t i = from; i < ds.size(); ++i) place_one_pass(ds[i], text, one_line);
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

json_render_options request_options_of(std::string_view json_text, const json_render_options& in,
                                       std::vector<diagnostic>* warnings) {
  return with_request_options(json_text, in, scan_keys(json_text), warnings);
}

void apply_kwargs(json_render_options& o, const json& kwargs, std::vector<diagnostic>* warnings) {
  if (!kwargs.is_object()) return;
  const dialect d = o.render.dialect;
  const auto reads = codec_of(d).kwargs;
  for (const auto& [key, value] : kwargs.items()) {
    if (std::find(reads.begin(), reads.end(), key) == reads.end()) {
      if (warnings == nullptr) continue;
      std::string known;
      for (const auto r : reads) known += (known.empty() ? "" : ", ") + std::string(r);
      diagnostic w =
          make_error(error_code::invalid_json,
                     "kwargs: '" + key + "' is not read by " + std::string(dialect_name(d)) +
                         " (it reads " + (known.empty() ? std::string("none") : known) + ")");
      w.level = severity::warning;
      w.line = 0;
      warnings->push_back(std::move(w));
      continue;
    }
    if (key == "enable_thinking" && value.is_boolean())
      o.render.enable_thinking = value.get<bool>();
    if (key == "auto_drop_analysis" && value.is_boolean()) {
      o.render.drop_analysis = value.get<bool>();
    }
    if (key == "reasoning_effort" && value.is_string()) {
      o.reasoning_effort = value.get<std::string>();
    }
    if (key == "current_date" && value.is_string()) o.current_date = value.get<std::string>();
    if (key == "bos_token" && value.is_string()) o.render.bos = value.get<std::string>();
    if (key == "eos_token" && value.is_string()) o.render.eos = value.get<std::string>();
  }
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
  const auto* one_pass = detail::codec_of(given.render.dialect).one_pass;
  if (one_pass != nullptr &&
      (given.format == json_format::automatic || given.format == json_format::openai)) {
    // The one-pass path, as a batch line takes it (render_json_line): the request read
    // once with its options' places, the options applied, then written. Its reader
    // declines every key it does not know (the native form's too); the general path below
    // answers what it declines.
    detail::request_option_values values;
    if (const auto* request = one_pass->read(json_text, values)) {
      json_render_options o = given;
      if (given.request_options) apply_request_values(values, o, &r.diagnostics);
      if (!o.render.continue_final_message) {
        const std::size_t request_warnings = r.diagnostics.size();  // the request's kwargs
        one_pass->write_text(*request, o.render, r.text, r.diagnostics);
        place_one_pass(r.diagnostics, request_warnings, json_text);
        return r;
      }
      r.diagnostics.clear();  // the general path says them
    }
  }
  const json_render_options options =
      with_request_options(json_text, given, scan_keys(json_text), &r.diagnostics);
  const std::size_t request_warnings = r.diagnostics.size();  // the request's kwargs
  const detail::prepared_json p = detail::prepare_json(json_text, options);
  if (!p.conv) {
    r.diagnostics.push_back(p.conv.error());
    return r;
  }
  auto text = render(*p.conv, options.render, &r.diagnostics);
  if (!text) r.diagnostics.push_back(text.error());
  for (std::size_t i = request_warnings; i < r.diagnostics.size(); ++i) {
    p.locate(r.diagnostics[i], json_text);
  }
  if (text) r.text = std::move(*text);
  return r;
}

void render_json_line(std::string_view json_text, const json_render_options& given,
                      text_buffer& line, std::vector<diagnostic>& diagnostics) {
  const auto* one_pass = detail::codec_of(given.render.dialect).one_pass;
  const bool openai = given.format == json_format::automatic || given.format == json_format::openai;
  if (one_pass != nullptr && openai) {
    // The line read once: gathered with its options' places, the options applied, then
    // written. What the reader declines, the general path below reads again.
    detail::request_option_values values;
    if (const auto* request = one_pass->read(json_text, values)) {
      const std::size_t start = diagnostics.size();
      json_render_options o = given;
      if (given.request_options) apply_request_values(values, o, &diagnostics);
      if (!o.render.continue_final_message) {
        const std::size_t before = diagnostics.size();
        line.raw("{\"text\":\"");
        one_pass->write_json_text(*request, o.render, line, diagnostics);
        place_one_pass(diagnostics, before, json_text);
        line.raw("\"}");
        return;
      }
      diagnostics.resize(start);  // render_json says them
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
