// SPDX-License-Identifier: Apache-2.0
// ocml/template_tokens.hpp - a model's own chat template rendered to token IDs, with training
// labels on the assistant's turns: `ocml render -d model:PATH --ids --tokenizer T --training`.
//
//   auto mt = ocml::model_template::from_file("models/Qwen2.5/tokenizer_config.json");
//   auto tk = ocml::tokenizer::from_file("models/Qwen2.5/tokenizer.json");
//   auto r = ocml::render_template_tokens(*mt, text, *tk, {.tokens = {.training = true}});
//   // r.tokens.input_ids, r.tokens.labels (-100 outside the assistant's generated turns)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ocml/template.hpp"
#include "ocml/token_render.hpp"

namespace ocml {

/// How a chat template's text becomes IDs and labels.
struct template_token_options {
  /// How the request is rendered (kwargs, add_generation_prompt, continue_final_message).
  template_json_options render;
  /// training, turns, train_trailing_newline and max_tokens apply as for a dialect;
  /// `policy` and `strict` are not read: a template has no control-token list, so its text
  /// is encoded whole with every added token split out, as apply_chat_template(tokenize=True)
  /// (the hf policy).
  token_render_options tokens;
  /// The strings a generated turn ends with (the model's eos_token, its end-of-turn tokens):
  /// a trained turn's labels run through the last of them in the turn; what the template
  /// writes after it (a newline) is not trained. Empty: the turn's text up to the next
  /// prompt, without trailing newlines.
  std::vector<std::string> stop;
};

/// The IDs (and with training the labels) of the text `t` renders from an OpenAI request.
/// Each trained turn runs from where the request rendered up to it with
/// add_generation_prompt ends through its stop, and is encoded on its own, so every
/// turn's prompt is a prefix of the sequence in IDs as well as in text. A template that
/// rewrites earlier turns (Qwen3 drops reasoning before the last user message) is refused
/// with E-RENDER-UNREPRESENTABLE naming the turn; `turns = trained_turns::last` trains the last
/// assistant turn only.
///
///   auto mt = ocml::model_template::from_file("tokenizer_config.json");
///   std::string request = R"({"messages":[{"role":"user","content":"Hi"},)"
///                         R"({"role":"assistant","content":"Hello!"}]})";
///   auto r = ocml::render_template_tokens(
///       *mt, request, tok, {.tokens = {.training = true}, .stop =
///       ocml::template_stop_strings(*mt)});
[[nodiscard]] json_token_result render_template_tokens(const model_template& t,
                                                       std::string_view json_text,
                                                       const tokenizer& tok,
                                                       const template_token_options& options);

/// Whether the model's templates mark what the model generates with `{% generation %}`
/// blocks. With training under `trained_turns::automatic` or `whole`,
/// render_template_tokens then labels what the blocks wrote, as transformers'
/// return_assistant_tokens_mask does, in one example (other policies find the turns by
/// rendering prefixes).
///
///   auto mt = ocml::model_template::from_text("{% generation %}{{ x }}{% endgeneration %}");
///   bool tagged = ocml::has_generation_blocks(*mt);  // true
[[nodiscard]] bool has_generation_blocks(const model_template& t);

/// The stop strings of a model's special tokens: its `eos_token` (a string or an AddedToken
/// object), as transformers reads it; empty when it names none.
///
///   auto mt = ocml::model_template::from_file("tokenizer_config.json");
///   auto stops = ocml::template_stop_strings(*mt);  // {"<|im_end|>"} for Qwen2.5
[[nodiscard]] std::vector<std::string> template_stop_strings(const model_template& t);

}  // namespace ocml
