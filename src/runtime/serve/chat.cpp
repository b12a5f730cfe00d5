// SPDX-License-Identifier: Apache-2.0
// One chat completion, from the rendered prompt to the assistant's message.
#include "runtime/serve/chat.hpp"

#include <algorithm>
#include <utility>

#include "ocml/http_engine.hpp"
#include "ocml/model_format.hpp"

namespace ocml::serve {

bool render_prompt(const serve_options& o, const chat_request& r, std::string& prompt,
                   std::vector<diagnostic>& warnings, api_error& err) {
  format_render_options ro{.add_generation_prompt = !r.prefill};
  // A model's template reads reasoning_effort as a variable (gpt-oss's does); a dialect
  // reads the request's own field.
  if (o.format.is_model() && !r.reasoning_effort.empty()) {
    ro.kwargs["reasoning_effort"] = r.reasoning_effort;
  }
  json_render_result out = o.format.render_json(r.render_text, ro);
  for (auto& d : out.diagnostics) {
    if (d.level == severity::error) {
      err = {.message =
                 "the conversation cannot be rendered in " + o.format.name() + ": " + d.to_string(),
             .param = "messages",
             .code = std::string(error_name(d.code))};
      return false;
    }
    warnings.push_back(std::move(d));
  }
  prompt = std::move(out.text);
  return true;
}

namespace {

http_engine engine_for(const serve_options& o, const chat_request& r) {
  http_engine_options eo = o.engine;
  for (const auto& [k, v] : r.sampling.items()) eo.extra[k] = v;
  return http_engine(std::move(eo));
}

std::size_t count(const tokenizer& t, std::string_view text) {
  return t.encode(text, special_tokens::all).size();
}

// The assistant's message: the first assistant message of the OpenAI form (a completion's
// messages are joined into one there), or an empty answer.
json first_assistant(json openai) {
  for (auto& m : openai["messages"]) {
    if (m.value("role", "") == "assistant") return std::move(m);
  }
  return {{"role", "assistant"}, {"content", ""}};
}

}  // namespace

chat_outcome run_chat(const serve_options& o, const chat_request& r, const std::string& prompt,
                      cancellation& cancel, const std::function<void(const delta&)>& on_delta) {
  http_engine engine = engine_for(o, r);
  generate_options go{.max_tokens = r.max_tokens,
                      .max_bytes = o.limits.max_completion_bytes,
                      .lenient = true,
                      .cancel = &cancel,
                      .call_id_seed = o.call_id_seed,
                      .stop = r.stop};
  chat_outcome c;
  conversation done;
  if (o.format.is_model()) {
    format_generation g = generate(engine, o.format, prompt, r.tools, go, on_delta);
    c.finish = g.finish;
    c.diagnostics = std::move(g.diagnostics);
    c.completion_bytes = g.text.size();
    done.messages = std::move(g.messages);
    if (o.tokens != nullptr) {
      c.prompt_tokens = count(*o.tokens, prompt);
      c.completion_tokens = count(*o.tokens, g.text);
    }
  } else {
    go.dialect = *o.format.dialect();
    go.tokens = o.tokens;
    const std::vector<std::string> stop = o.format.stop();
    const ocml::prompt p{.text = prompt, .stop = stop};
    generation g = generate(engine, p, go, on_delta);
    c.finish = g.finish;
    c.diagnostics = std::move(g.diagnostics);
    c.completion_bytes = g.text.size();
    done.messages = std::move(g.messages);
    if (o.tokens != nullptr) {
      c.prompt_tokens = g.prompt_tokens;
      c.completion_tokens = g.token_ids.size();
    }
  }
  c.message = first_assistant(o.format.conversation_json(done, true, o.call_id_seed));
  return c;
}

json usage_json(const chat_outcome& c) {
  if (!c.prompt_tokens || !c.completion_tokens) return nullptr;
  return {{"prompt_tokens", *c.prompt_tokens},
          {"completion_tokens", *c.completion_tokens},
          {"total_tokens", *c.prompt_tokens + *c.completion_tokens}};
}

std::string openai_finish(finish_reason f) {
  switch (f) {
    case finish_reason::tool_calls:
      return "tool_calls";
    case finish_reason::length:
      return "length";
    default:
      return "stop";
  }
}

std::optional<diagnostic> engine_failure(const chat_outcome& c) {
  if (c.finish != finish_reason::error) return std::nullopt;
  const auto it = std::find_if(c.diagnostics.begin(), c.diagnostics.end(),
                               [](const auto& d) { return d.level == severity::error; });
  if (it == c.diagnostics.end()) return std::nullopt;
  return *it;
}

}  // namespace ocml::serve
