// SPDX-License-Identifier: Apache-2.0
// render_template_tokens: a chat template's text as IDs, with training labels found by
// rendering the request's prefixes (the way trainers build assistant masks from prefixes,
// without needing {% generation %} tags in the template).
#include "api/trained_turns.hpp"
#include "ocml/json.hpp"
#include "ocml/template_tokens.hpp"

namespace ocml {

namespace {

// The request with its first `n` messages, rendered with or without the generation prompt.
result<std::string> render_first(const model_template& t, const json& request, std::size_t n,
                                 const template_json_options& ro, bool generation_prompt) {
  json sub = request;
  json& ms = sub["messages"];
  ms.erase(ms.begin() + static_cast<std::ptrdiff_t>(n), ms.end());
  sub.erase("add_generation_prompt");
  sub.erase("continue_final_message");
  template_json_options o = ro;
  o.add_generation_prompt = generation_prompt;
  o.continue_final_message = false;
  return t.render_json(dump_json(sub), o);
}

}  // namespace

json_token_result render_template_tokens(const model_template& t, std::string_view json_text,
                                         const tokenizer& tok,
                                         const template_token_options& options) {
  json_token_result r;
  const auto fail = [&r](diagnostic d) {
    r.diagnostics.push_back(std::move(d));
    return std::move(r);
  };
  auto text = t.render_json(json_text, options.render);
  if (!text) return fail(text.error());
  std::vector<detail::trained_region> regions;
  if (options.tokens.training) {
    auto parsed = parse_json_text(json_text);
    if (!parsed) return fail(parsed.error());
    json req = parsed->is_array() ? json{{"messages", std::move(*parsed)}} : std::move(*parsed);
    if (!req.is_object() || !req.contains("messages") || !req["messages"].is_array()) {
      return fail(make_error(error_code::invalid_json, "a request needs a messages array"));
    }
    const json& ms = req["messages"];
    detail::turn_renders renders{
        .messages = ms.size(),
        .is_assistant =
            [&ms](std::size_t i) {
              return ms[i].is_object() && ms[i].contains("role") && ms[i]["role"] == "assistant";
            },
        .render_first =
            [&](std::size_t n, bool generation_prompt) {
              return render_first(t, req, n, options.render, generation_prompt);
            },
        .stops = {options.stop.begin(), options.stop.end()},
        .rewrite_hint =
            "the template rewrites earlier turns (Qwen3's drops reasoning before "
            "the last user message); train the last turn only"};
    auto reg = detail::trained_regions(renders, *text, options.tokens);
    if (!reg) return fail(reg.error());
    regions = std::move(*reg);
  }
  const std::string_view whole = *text;
  detail::encode_regions(
      whole, regions,
      [&](std::size_t from, std::size_t to, std::vector<token_id>& out) {
        if (from >= to) return;
        const auto ids = tok.encode(whole.substr(from, to - from), special_tokens::all);
        out.insert(out.end(), ids.begin(), ids.end());
      },
      options.tokens, r.tokens);
  return r;
}

std::vector<std::string> template_stop_strings(const model_template& t) {
  const json& s = t.special_tokens();
  if (!s.is_object() || !s.contains("eos_token")) return {};
  const json& eos = s["eos_token"];
  if (eos.is_string()) return {eos.get<std::string>()};
  if (eos.is_object() && eos.contains("content") && eos["content"].is_string()) {
    return {eos["content"].get<std::string>()};
  }
  return {};
}

}  // namespace ocml
