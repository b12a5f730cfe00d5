// SPDX-License-Identifier: Apache-2.0
// render_json: JSON text to a dialect's markup, diagnostics pointing into the JSON.
#include <algorithm>

#include "dialects/harmony/prompt_origins.hpp"
#include "interchange/json_input.hpp"
#include "interchange/simd_json.hpp"
#include "ocml/harmony.hpp"
#include "ocml/json.hpp"
#include "ocml/token_render.hpp"

namespace ocml {

namespace {

// The conversation's own `reasoning_effort` key, or `fallback`.
std::string_view effort_of(std::string_view text, std::string_view fallback) {
  simdjson::dom::element doc;
  std::string_view effort;
  if (detail::parse_document(text).get(doc) == simdjson::SUCCESS && doc.is_object() &&
      doc["reasoning_effort"].get(effort) == simdjson::SUCCESS) {
    return effort;
  }
  return fallback;
}

}  // namespace

bool json_render_result::ok() const noexcept {
  return std::none_of(diagnostics.begin(), diagnostics.end(),
                      [](const diagnostic& d) { return d.level == severity::error; });
}

namespace detail {

// A JSON conversation read for rendering: the harmony preamble built for OpenAI input, and
// what puts diagnostics back into the JSON's terms.
struct prepared_json {
  result<conversation> conv = make_error(error_code::invalid_json, "");
  bool openai = false;
  origin_map preamble;

  void locate(diagnostic& d, std::string_view json_text) const {
    relocate(d, preamble);
    if (openai) to_openai_path(d);
    place_at_path(d, json_text);
  }
};

prepared_json prepare_json(std::string_view json_text, const json_render_options& options) {
  prepared_json p;
  json_format format = options.format;
  if (format == json_format::openai) p.conv = read_openai_text(json_text);  // hot path
  if (!p.conv) p.conv = read_conversation_as_written(json_text, format);
  if (!p.conv) return p;
  p.openai = format == json_format::openai;
  if (options.render.dialect == dialect::harmony && p.openai) {
    // OpenAI chat JSON carries no harmony system message: build gpt-oss's preamble.
    harmony::prompt_options po;
    const std::string_view effort = effort_of(json_text, options.reasoning_effort);
    if (auto e = harmony::parse_reasoning_effort(effort)) po.system.effort = e;
    if (!options.current_date.empty()) po.system.conversation_start_date = options.current_date;
    p.preamble = harmony_prompt_origins(*p.conv);
    *p.conv = harmony::build_prompt(std::move(*p.conv), po);
  }
  return p;
}

}  // namespace detail

json_render_result render_json(std::string_view json_text, const json_render_options& options) {
  json_render_result r;
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

bool json_token_result::ok() const noexcept {
  return std::none_of(diagnostics.begin(), diagnostics.end(),
                      [](const diagnostic& d) { return d.level == severity::error; });
}

json_token_result render_json_tokens(std::string_view json_text, const json_render_options& options,
                                     const tokenizer& tok,
                                     const token_render_options& token_options) {
  json_token_result r;
  const detail::prepared_json p = detail::prepare_json(json_text, options);
  if (!p.conv) {
    r.diagnostics.push_back(p.conv.error());
    return r;
  }
  auto seq = render_tokens(*p.conv, options.render, tok, token_options);
  if (seq) {
    r.diagnostics = std::move(seq->diagnostics);
    r.tokens = std::move(*seq);
  } else {
    r.diagnostics.push_back(seq.error());
  }
  for (auto& d : r.diagnostics) p.locate(d, json_text);
  return r;
}

}  // namespace ocml
