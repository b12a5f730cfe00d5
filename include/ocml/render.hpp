// SPDX-License-Identifier: Apache-2.0
// ocml/render.hpp - turning the core model into a dialect's markup.
#pragma once

#include <string>
#include <vector>

#include "ocml/dialect.hpp"
#include "ocml/error.hpp"
#include "ocml/model.hpp"

namespace ocml {

/// How to render a conversation.
struct render_options {
  ocml::dialect dialect = dialect::ocml_2_2;
  /// Append the generation prompt for the next turn, e.g. "<|start|>assistant".
  bool add_generation_prompt = false;
  std::string generation_role = "assistant";
  /// Training rendering (harmony): a conversation ending in an assistant `final`
  /// message ends in <|return|> instead of <|end|>.
  bool training = false;
  /// Drop `analysis` messages before the first `final` one when the last assistant
  /// message is `final` (harmony's auto_drop_analysis, HIP-1 §12.7).
  bool drop_analysis = false;
  /// Qwen3: `false` closes an empty think block after the generation prompt, as the
  /// template's `enable_thinking` (vLLM's and SGLang's `chat_template_kwargs`) does.
  bool enable_thinking = true;
  /// Qwen3: every assistant turn writes its think block (empty when it has no reasoning),
  /// not only those after the last user message, so that a conversation's text is a prefix
  /// of every longer one (a training choice, as TRL's prefix-preserving Qwen3 template; not
  /// what the model is prompted with).
  bool keep_reasoning = false;
  /// ocml-2.x: write a minimal `version:` YAML header when the conversation has none.
  bool default_document_header = false;
  /// OpenChatML 0.1: the base model's own BOS/EOS strings around a conversation.
  std::string bos = "[BOS]";
  std::string eos = "[EOS]";
  /// Prefill: the text ends right after the last message's content (stripped of outer
  /// white space), left open for the model to continue, as transformers'
  /// `continue_final_message` does. The last message must be the assistant's and
  /// `add_generation_prompt` unset (E-RENDER-UNREPRESENTABLE otherwise).
  bool continue_final_message = false;
  /// Harmony: write OpenChatML 2.x's escapes (`<<|end|>`, a trailing '<' in
  /// `<|literal|>…<|endliteral|>`) so that content spelling a harmony control token can be
  /// rendered as text. Off by default, as openai/harmony and gpt-oss's chat template write
  /// content as it is; content spelling `<|start|>`, `<|end|>`, `<|message|>`, `<|channel|>`,
  /// `<|constrain|>`, `<|return|>` or `<|call|>` is then E-RENDER-UNREPRESENTABLE (token-ID
  /// rendering writes it as ordinary tokens). Text written with it is read back only by a
  /// decoder with `decoder_options::openchatml_escapes`. The 2.x dialects always escape.
  bool openchatml_escapes = false;
};

/// Renders a conversation. Content can never forge structure: text that spells a control
/// token is escaped where the dialect has an escape (`<<|end|>` in OpenChatML 2.x) and
/// refused with E-RENDER-UNREPRESENTABLE naming its JSON path where it has none (harmony,
/// ChatML, …), so parse(render(c)) == c for every conversation that renders. Values the
/// dialect cannot hold (whitespace in a header attribute, say) give E-RENDER-UNREPRESENTABLE;
/// features it silently lacks (call_id in harmony, say) are dropped with a warning added to
/// `warnings` when given.
///
///   ocml::conversation c;
///   c.messages.push_back({.role = ocml::role::user, .content = "Hi"});
///   auto text = ocml::render(c, {.dialect = ocml::dialect::harmony});
///   // *text == "<|start|>user<|message|>Hi<|end|>"
[[nodiscard]] result<std::string> render(const conversation& conv, const render_options& options,
                                         std::vector<diagnostic>* warnings = nullptr);

/// Escapes control-token spellings in body text for the 2.x family ("<|end|>" -> "<<|end|>";
/// a trailing run of '<' goes into a <|literal|> block so it cannot join the stop token).
[[nodiscard]] std::string escape_body(std::string_view text);

}  // namespace ocml
