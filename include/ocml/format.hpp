// SPDX-License-Identifier: Apache-2.0
// ocml/format.hpp - one handle for every format: a built-in dialect, or a model's own
// templates loaded from `model:PATH`. The jobs (render, render to IDs, parse) are methods,
// and a request takes the same options either way; `kwargs` carries what models' templates
// read (`enable_thinking`, `reasoning_effort`, …), as vLLM's `chat_template_kwargs` does.
//
//   auto f = ocml::format::find("model:models/Qwen3-8B");  // or "chatml", "harmony", …
//   auto prompt = f->render_json(R"({"messages":[{"role":"user","content":"Hi"}]})",
//                                {.add_generation_prompt = true});
//   auto reply = f->parse("<think>\nhm\n</think>\n\nHello!<|im_end|>", {});
//   // reply.conversation.messages[0]: the assistant's answer, its reasoning, its calls
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ocml/decoder.hpp"
#include "ocml/dialect.hpp"
#include "ocml/json.hpp"
#include "ocml/token_render.hpp"

namespace ocml {

class model_template;
class response_template;

/// How a format renders a request (JSON text).
struct format_render_options {
  bool add_generation_prompt = false;   ///< unless the request says
  bool continue_final_message = false;  ///< prefill; unless the request says
  /// The template variables of a request (a JSON object), under the request's own
  /// `chat_template_kwargs`. A dialect reads `enable_thinking` (qwen3), `reasoning_effort`
  /// and `current_date` (harmony) and warns about any other key, naming it; a model's
  /// template reads what it reads.
  json kwargs = json::object();
  /// The input's JSON shape (a model's template reads OpenAI chat JSON only).
  json_format input = json_format::automatic;
  /// strftime_now's time for a template, YYYY-MM-DDTHH:MM:SS (empty: the local time).
  std::string now;
};

/// How a format parses what a model generated (or, for a dialect, a whole transcript).
struct format_parse_options {
  bool lenient = false;
  /// The text is a completion after the generation prompt (a model's output always is).
  bool completion = false;
  /// A model format: the prompt the generation continues (its response template may look
  /// back into it: `<think>` opened by the prompt).
  std::string prefix;
  /// A model format: the request's tools (an OpenAI `tools` array), to type call arguments.
  json tools = nullptr;
  /// Ids for the tool calls written without one: reproducible from this seed (random
  /// otherwise).
  std::optional<std::uint64_t> call_id_seed;
};

/// Where a format's response template came from (format::response_source).
struct response_choice {
  /// "folder" (the model folder's own), "given" (from_templates'), "curated" (one ocml
  /// ships, matched by the chat template's fingerprint), "derived" (from the chat template,
  /// verified by round trip), "dialect", or "none".
  std::string kind;
  std::string name;  ///< the curated template's or the dialect's name
  std::string why;   ///< one sentence: what was found, what was not
};

/// Options of format::from_templates.
struct format_template_options {
  std::string name = "template";  ///< what name() says
  /// Without a response template, take the curated one whose fingerprint the chat
  /// template matches (as `model:PATH` does).
  bool curated = true;
  /// Stop strings beside the ones the chat template's config names (its eos token).
  std::vector<std::string> stop;
};

/// A built-in dialect or a model format, found by name.
class format {
 public:
  /// A built-in dialect (implicit: every job that takes a format takes a dialect).
  format(ocml::dialect d);  // NOLINT(google-explicit-constructor)
  /// A dialect's name or alias ("chatml", "gpt-oss", …), or "model:PATH": a model folder
  /// (or its tokenizer_config.json) with a `chat_template` and, to parse, a
  /// `response_template`. Errors: E-JSON-INPUT (an unknown dialect name; a config that is
  /// not JSON or has no chat_template), E-IO, E-TEMPLATE-SYNTAX, E-RESPONSE-TEMPLATE.
  ///
  ///   auto f = ocml::format::find("qwen3");
  [[nodiscard]] static result<format> find(std::string_view name);
  /// A model format from templates the caller holds (a folder's, or ones of its own): `chat`
  /// renders; `response` (may be null: then parse is an error) parses; stop strings are the
  /// chat template's eos token (a config's) and `options.stop`. Both are copied (they share
  /// their compiled programs).
  ///
  ///   auto chat = ocml::model_template::from_file("tokenizer_config.json").value();
  ///   auto resp = ocml::response_template::from_file("response.json").value();
  ///   auto f = ocml::format::from_templates(chat, &resp, {.name = "mine"});
  [[nodiscard]] static format from_templates(const model_template& chat,
                                             const ocml::response_template* response,
                                             const format_template_options& options = {});

  [[nodiscard]] bool is_model() const noexcept { return model_ != nullptr; }
  /// The dialect (a model format: none).
  [[nodiscard]] std::optional<ocml::dialect> dialect() const noexcept;
  /// "chatml", or "model:PATH" as given.
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// The strings that end an assistant turn: a dialect's stop tokens; a model's eos_token
  /// and the end-of-turn tokens its generation_config.json names.
  [[nodiscard]] std::vector<std::string> stop() const;
  /// The features the format can hold, named as conversion warnings name them ("system
  /// messages", "tool calls", "reasoning", …). A model's are probed from its chat
  /// template: a feature is held when a conversation that uses it renders its marker.
  [[nodiscard]] std::vector<std::string> holds() const;
  /// A model format's templates (null for a dialect, and the response template null when
  /// the model has none).
  [[nodiscard]] const model_template* chat_template() const noexcept;
  [[nodiscard]] const ocml::response_template* response_template() const noexcept;
  /// Which response template parses, and why (`ocml formats --explain`).
  ///
  ///   auto c = ocml::format::find("model:models/qwen3").value().response_source();
  ///   // c.kind == "curated", c.name == "qwen3"
  [[nodiscard]] response_choice response_source() const;

  /// A JSON request rendered to the format's text (diagnostics point into the JSON).
  ///
  ///   auto r = ocml::format(ocml::dialect::qwen3).render_json(
  ///       R"({"messages":[{"role":"user","content":"Hi"}]})",
  ///       {.add_generation_prompt = true, .kwargs = {{"enable_thinking", false}}});
  [[nodiscard]] json_render_result render_json(std::string_view json_text,
                                               const format_render_options& options = {}) const;

  /// The same as token IDs, with training labels when `tokens.training` (a model: on each
  /// assistant turn through its stop; docs/templates.md).
  ///
  ///   auto ids = ocml::format(ocml::dialect::chatml).render_json_tokens(text, tok, {},
  ///                                                                     {.training = true});
  [[nodiscard]] json_token_result render_json_tokens(std::string_view json_text,
                                                     const tokenizer& tok,
                                                     const format_render_options& options,
                                                     const token_render_options& tokens) const;

  /// Parses `text`: a dialect's transcript (or completion), or a model's generation (one
  /// assistant message, through its response template; E-JSON-INPUT when it has none).
  ///
  ///   auto r = ocml::format(ocml::dialect::chatml).parse("<|im_start|>user\nHi<|im_end|>\n", {});
  [[nodiscard]] parse_result parse(std::string_view text,
                                   const format_parse_options& options = {}) const;

  /// A parsed conversation as `ocml parse` writes it: with `openai`, `{"messages": [...]}`
  /// in OpenAI form saying what the conversation means (a dialect's preamble read back as
  /// instructions and tools, its reasoning key, call ids from `call_id_seed` where the
  /// markup had none); otherwise ocml's native form, every message as written.
  ///
  ///   auto f = ocml::format(ocml::dialect::harmony);
  ///   ocml::json j = f.conversation_json(f.parse(text, {}).conversation, true, 1);
  [[nodiscard]] json conversation_json(const conversation& c, bool openai,
                                       std::optional<std::uint64_t> call_id_seed = {}) const;

 private:
  struct model_data;
  format() = default;
  std::string name_;
  ocml::dialect dialect_ = dialect::ocml_2_2;
  std::shared_ptr<const model_data> model_;
};

}  // namespace ocml
