// SPDX-License-Identifier: Apache-2.0
// render_template_tokens: a chat template's text as IDs, with training labels found by
// rendering the request's prefixes (the way trainers build assistant masks from prefixes,
// without needing {% generation %} tags in the template).
#include <algorithm>

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

// The one example of a template with {% generation %} blocks, labelled as transformers'
// return_assistant_tokens_mask marks it: the text encoded whole; for each block's span,
// the token holding its first character through the token holding the first byte of its
// last character (transformers' char_to_token), or through the end when that token is the
// first (its `if end_token` quirk).
result<std::vector<token_sequence>> tagged_example(const model_template& t, const json& req,
                                                   const tokenizer& tok,
                                                   const template_token_options& options) {
  json whole = req;
  whole.erase("add_generation_prompt");
  whole.erase("continue_final_message");
  template_json_options o = options.render;
  o.add_generation_prompt = false;
  o.continue_final_message = false;
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  o.render.generation_spans = &spans;
  auto text = t.render_json(dump_json(whole), o);
  if (!text) return text.error();
  std::vector<token_sequence> out(1);
  token_sequence& seq = out.front();
  seq.input_ids = tok.encode(*text, special_tokens::all);
  // Where each token begins in the text (byte-level: its bytes are the text's).
  std::vector<std::size_t> starts;
  starts.reserve(seq.input_ids.size() + 1);
  std::size_t at = 0;
  for (const token_id id : seq.input_ids) {
    starts.push_back(at);
    at += tok.token_bytes(id).size();
  }
  if (at != text->size()) {
    return make_error(error_code::tokenizer_unsupported,
                      "the tokenizer's tokens do not spell the text byte for byte, so "
                      "{% generation %} spans cannot be mapped to tokens");
  }
  const auto token_at = [&](std::size_t byte) {
    return static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), byte) -
                                    starts.begin()) -
           1;
  };
  std::vector<bool> mask(seq.input_ids.size(), false);
  for (const auto& [from, to] : spans) {
    if (to <= from || from >= text->size()) continue;  // an empty block marks nothing
    std::size_t last = to - 1;
    while (last > from && (static_cast<unsigned char>((*text)[last]) & 0xC0U) == 0x80U) --last;
    const std::size_t first_token = token_at(from);
    const std::size_t last_token = token_at(last);
    const std::size_t end = last_token == 0 ? mask.size() : last_token + 1;
    for (std::size_t i = first_token; i < end; ++i) mask[i] = true;
  }
  seq.labels.resize(seq.input_ids.size(), -100);
  for (std::size_t i = 0; i < mask.size(); ++i) {
    if (mask[i]) seq.labels[i] = static_cast<std::int32_t>(seq.input_ids[i]);
  }
  if (options.tokens.keep_text) {
    seq.text = std::move(*text);
    seq.trained = std::move(spans);
  }
  detail::cut_to_max_tokens(options.tokens, seq);
  seq.attention_mask.assign(seq.input_ids.size(), 1);
  return out;
}

// The sequences of `req` (an object with a messages array): the prompt's one, or with
// training its examples.
result<std::vector<token_sequence>> sequences_of(const model_template& t, const json& req,
                                                 const tokenizer& tok,
                                                 const template_token_options& options) {
  const encode_options eo{.specials = special_tokens::all, .memoize = options.tokens.memoize};
  const auto encode = [&tok, eo](std::string_view text) {
    return [&tok, eo, text](std::size_t from, std::size_t to, std::vector<token_id>& out) {
      if (from < to) tok.append(text.substr(from, to - from), out, eo);
    };
  };
  std::vector<token_sequence> out;
  if (!options.tokens.training) {
    auto text = t.render_json(dump_json(req), options.render);
    if (!text) return text.error();
    detail::encode_regions(*text, {}, encode(*text), options.tokens, out.emplace_back());
    return out;
  }
  const trained_turns turns = options.tokens.turns;
  if (has_generation_blocks(t) &&
      (turns == trained_turns::automatic || turns == trained_turns::whole)) {
    return tagged_example(t, req, tok, options);
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
          if (from < till) {
            tok.append(std::string_view(*text).substr(from, till - from), out,
                       {.specials = special_tokens::all, .memoize = to.memoize});
          }
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

bool has_generation_blocks(const model_template& t) {
  return t.source().find("endgeneration") != std::string::npos;
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
