// render_json: JSON text to a dialect's markup, diagnostics pointing into the JSON.
#include <algorithm>

#include "dialects/harmony/prompt_origins.hpp"
#include "interchange/json_input.hpp"
#include "interchange/simd_json.hpp"
#include "ocml/harmony.hpp"
#include "ocml/json.hpp"

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

json_render_result render_json(std::string_view json_text, const json_render_options& options) {
  json_render_result r;
  json_format format = options.format;
  result<conversation> conv = make_error(error_code::invalid_json, "");
  if (format == json_format::openai) conv = detail::read_openai_text(json_text);  // hot path
  if (!conv) conv = detail::read_conversation_as_written(json_text, format);
  if (!conv) {
    r.diagnostics.push_back(conv.error());
    return r;
  }
  const bool openai = format == json_format::openai;
  detail::origin_map preamble;
  if (options.render.dialect == dialect::harmony && openai) {
    // OpenAI chat JSON carries no harmony system message: build gpt-oss's preamble.
    harmony::prompt_options po;
    const std::string_view effort = effort_of(json_text, options.reasoning_effort);
    if (auto e = harmony::parse_reasoning_effort(effort)) po.system.effort = e;
    if (!options.current_date.empty()) po.system.conversation_start_date = options.current_date;
    preamble = detail::harmony_prompt_origins(*conv);
    *conv = harmony::build_prompt(*conv, po);
  }
  auto text = render(*conv, options.render, &r.diagnostics);
  if (!text) r.diagnostics.push_back(text.error());
  for (auto& d : r.diagnostics) {
    detail::relocate(d, preamble);
    if (openai) detail::to_openai_path(d);
    detail::place_at_path(d, json_text);
  }
  if (text) r.text = std::move(*text);
  return r;
}

}  // namespace ocml
