// SPDX-License-Identifier: Apache-2.0
// ocml/model_format.hpp - any model's own format, from its tokenizer_config.json: the chat
// template builds prompts, the response template parses what the model generates, and the
// end-of-turn tokens stop it. `-d model:PATH` on the command line.
//
//   auto f = ocml::model_format::load("models/Qwen3-8B");  // a directory or the config file
//   auto prompt = f->prompt(conv);                          // add_generation_prompt: true
//   ocml::format_generation g = ocml::generate(engine, *f, *prompt, conv, {},
//       [](const ocml::delta& d) { if (d.kind == ocml::delta_kind::text) std::cout << d.text; });
//   // g.messages: the assistant's message, g.message: as parse_response returns it
#pragma once

#include <string>
#include <vector>

#include "ocml/error.hpp"
#include "ocml/events.hpp"
#include "ocml/format.hpp"
#include "ocml/generate.hpp"
#include "ocml/model.hpp"
#include "ocml/response.hpp"
#include "ocml/template.hpp"

namespace ocml {

/// A model's chat template, response template and stop strings.
class model_format {
 public:
  /// Loads `path`: a tokenizer_config.json, or a directory holding one. Both templates must
  /// be there (E-JSON-INPUT names the one missing). The stop strings are the config's
  /// `eos_token`, and, when the directory has a generation_config.json, the text of each of
  /// its `eos_token_id`s the config's added tokens name.
  [[nodiscard]] static result<model_format> load(const std::string& path);

  [[nodiscard]] const model_template& chat() const noexcept { return chat_; }
  [[nodiscard]] const response_template& response() const noexcept { return response_; }
  [[nodiscard]] const std::vector<std::string>& stop() const noexcept { return stop_; }

  /// The prompt for `c`: its OpenAI form (messages and tools) rendered by the chat template
  /// with add_generation_prompt, as transformers' apply_chat_template renders it.
  [[nodiscard]] result<std::string> prompt(const conversation& c,
                                           const template_json_options& options = {
                                               .add_generation_prompt = true}) const;

 private:
  model_template chat_;
  response_template response_;
  std::vector<std::string> stop_;
};

/// The outcome of a generation with a model format.
struct format_generation {
  json message;                         ///< The message as parse_response returns it.
  std::vector<ocml::message> messages;  ///< The same in ocml's model (from its OpenAI form).
  std::string text;                     ///< What the model wrote (its stop string not included).
  finish_reason finish = finish_reason::none;
  std::vector<diagnostic> diagnostics;
};

/// Runs `prompt` on `engine` with the format's stop strings, parsing the completion with its
/// response template as it streams (the prompt as the prefix, `c`'s tools typing the call
/// arguments). Deltas reach `on_delta` as text arrives. finish: stop, tool_calls, length,
/// cancelled, or error (E-ENGINE, or the response template's error in strict mode).
[[nodiscard]] format_generation generate(engine& engine, const model_format& format,
                                         const std::string& prompt, const conversation& c,
                                         const generate_options& options,
                                         const std::function<void(const delta&)>& on_delta = {});

/// The same with any model format a `format` holds (its folder's response template, or the
/// curated or derived one `model:PATH` found): `prompt` as format::render_json wrote it,
/// `tools` the request's OpenAI `tools` array (or null) to type call arguments. A dialect's
/// format, or a model without a response template, is E-JSON-INPUT (finish `error`).
///
///   auto f = ocml::format::find("model:models/Qwen3-8B").value();
///   auto p = f.render_json(request_json.dump(), {.add_generation_prompt = true});
///   auto g = ocml::generate(engine, f, p.text, request_json["tools"], {.max_tokens = 512});
[[nodiscard]] format_generation generate(engine& engine, const format& format,
                                         const std::string& prompt, const json& tools,
                                         const generate_options& options,
                                         const std::function<void(const delta&)>& on_delta = {});
}  // namespace ocml
