// SPDX-License-Identifier: Apache-2.0
// render_template_tokens: a chat template's text as IDs, with training labels found by
// rendering the request's prefixes (the way trainers build assistant masks from prefixes,
// without needing {% generation %} tags in the template).
#include "api/trained_turns.hpp"
#include "api/truncate_turns.hpp"
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

// The sequences of `req` (an object with a messages array): the prompt's one, or with
// training its examples.
result<std::vector<token_sequence>> sequences_of(const model_template& t, const json& req,
                                                 const tokenizer& tok,
                                                 const template_token_options& options) {
  const auto encode = [&tok](std::string_view text) {
    return [&tok, text](std::size_t from, std::size_t to, std::vector<token_id>& out) {
      if (from >= to) return;
      const auto ids = tok.encode(text.substr(from, to - from), special_tokens::all);
      out.insert(out.end(), ids.begin(), ids.end());
    };
  };
  std::vector<token_sequence> out;
  if (!options.tokens.training) {
    auto text = t.render_json(dump_json(req), options.render);
    if (!text) return text.error();
    detail::encode_regions(*text, {}, encode(*text), options.tokens, out.emplace_back());
    return out;
  }
  const json& ms = req["messages"];
  const auto role_is = [&ms](std::size_t i, std::string_view role) {
    return ms[i].is_object() && ms[i].contains("role") && ms[i]["role"] == role;
  };
  detail::turn_renders renders{
      .messages = ms.size(),
      .is_assistant = [&](std::size_t i) { return role_is(i, "assistant"); },
      .is_user = [&](std::size_t i) { return role_is(i, "user"); },
      .render_prompt = [&](std::size_t n) { return render_first(t, req, n, options.render, true); },
      .render_example =
          [&](std::size_t n) { return render_first(t, req, n, options.render, false); },
      .render_history =
          [&](std::size_t n) { return render_first(t, req, n, options.render, false); },
      .stops = {options.stop.begin(), options.stop.end()},
      .rewrite_hint =
          "the template rewrites earlier turns (Qwen3's drops reasoning before the "
          "last user message)"};
  auto whole = renders.render_example(ms.size());
  if (!whole) return whole.error();
  auto plan = detail::plan_examples(renders, std::move(*whole), options.tokens);
  if (!plan) return plan.error();
  for (const detail::planned_example& x : *plan) {
    detail::encode_regions(x.text, x.regions, encode(x.text), options.tokens, out.emplace_back());
  }
  return out;
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
  const token_render_options& to = options.tokens;
  if (!to.training && (to.max_tokens == 0 || to.truncate != truncation::turns)) {
    // The request's text as it came (no JSON round trip).
    auto text = t.render_json(json_text, options.render);
    if (!text) return fail(text.error());
    detail::encode_regions(
        *text, {},
        [&](std::size_t from, std::size_t till, std::vector<token_id>& out) {
          if (from >= till) return;
          const auto ids =
              tok.encode(std::string_view(*text).substr(from, till - from), special_tokens::all);
          out.insert(out.end(), ids.begin(), ids.end());
        },
        to, r.tokens);
    return r;
  }
  auto parsed = parse_json_text(json_text);
  if (!parsed) return fail(parsed.error());
  json req = parsed->is_array() ? json{{"messages", std::move(*parsed)}} : std::move(*parsed);
  if (!req.is_object() || !req.contains("messages") || !req["messages"].is_array()) {
    return fail(make_error(error_code::invalid_json, "a request needs a messages array"));
  }
  const json& ms = req["messages"];
  const auto role_is = [&ms](std::size_t i, std::string_view role) {
    return ms[i].is_object() && ms[i].contains("role") && ms[i]["role"] == role;
  };
  const auto groups = detail::turn_groups(
      ms.size(), [&](std::size_t i) { return role_is(i, "system") || role_is(i, "developer"); },
      [&](std::size_t i) { return role_is(i, "user"); });
  const auto sequences = [&](std::size_t from, std::size_t till) {
    if (from == till) return sequences_of(t, req, tok, options);
    json cut = req;
    json& cm = cut["messages"];
    cm.erase(cm.begin() + static_cast<std::ptrdiff_t>(from),
             cm.begin() + static_cast<std::ptrdiff_t>(till));
    return sequences_of(t, cut, tok, options);
  };
  auto xs = to.max_tokens != 0 && to.truncate == truncation::turns
                ? detail::fit_by_turns(groups, to.max_tokens, sequences)
                : sequences(0, 0);
  if (!xs) return fail(xs.error());
  for (std::size_t i = 0; i < xs->size(); ++i) {
    token_sequence& seq = (*xs)[i];
    r.diagnostics.insert(r.diagnostics.end(), seq.diagnostics.begin(), seq.diagnostics.end());
    seq.diagnostics.clear();
    if (i == 0) {
      r.tokens = std::move(seq);
    } else {
      r.more_examples.push_back(std::move(seq));
    }
  }
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
