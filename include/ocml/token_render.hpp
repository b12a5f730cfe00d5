// SPDX-License-Identifier: Apache-2.0
// ocml/token_render.hpp - conversations as token IDs, with training labels.
//
//   auto tok = ocml::tokenizer::from_file("o200k_base.tiktoken", {.encoding = "o200k_harmony"});
//   auto seq = ocml::render_tokens(conv, {.dialect = ocml::dialect::harmony}, *tok,
//                                  {.training = true});
//   // seq->input_ids, seq->labels (-100 where not trained), seq->attention_mask
#pragma once

#include <cstdint>
#include <vector>

#include "ocml/json.hpp"
#include "ocml/render.hpp"
#include "ocml/tokens.hpp"

namespace ocml {

/// How rendered text becomes IDs.
enum class token_policy : std::uint8_t {
  /// Each control token of the dialect one ID, every other run of text encoded as ordinary
  /// text (openai/harmony's rendering): content can never become a control token, and the
  /// 2.x family's escapes are not written (a token sequence needs none).
  harmony,
  /// The rendered text encoded whole with every added token split out, as transformers'
  /// apply_chat_template(tokenize=True) does.
  hf,
};

/// Which assistant turns a training sequence trains.
enum class trained_turns : std::uint8_t { all, last };

struct token_render_options {
  token_policy policy = token_policy::harmony;
  /// Labels: the IDs of what the model samples after each trained turn's generation prompt
  /// through its stop token; -100 elsewhere (not shifted).
  bool training = false;
  trained_turns turns = trained_turns::all;
  /// Also train the newline a turn's markup writes after its stop token (ChatML's
  /// "<|im_end|>\n"), which the model never samples.
  bool train_trailing_newline = false;
  /// Keep at most this many tokens, dropping from the beginning (0: no limit). Labels are
  /// cut with the IDs.
  std::size_t max_tokens = 0;
  /// A control token the vocabulary lacks is an error (E-TOKEN-UNKNOWN) instead of being
  /// encoded as ordinary text with a warning.
  bool strict = false;
};

struct token_sequence {
  std::vector<token_id> input_ids;
  std::vector<std::uint8_t> attention_mask;
  std::vector<std::int32_t> labels;     ///< empty unless training
  std::vector<diagnostic> diagnostics;  ///< warnings: control tokens written as text
};

/// Renders `conv` (as render() would with `options`) to token IDs.
///
///   auto ids = ocml::render_tokens(conv, {.dialect = ocml::dialect::qwen3,
///                                         .add_generation_prompt = true}, tok, {});
[[nodiscard]] result<token_sequence> render_tokens(const conversation& conv,
                                                   const render_options& options,
                                                   const tokenizer& tok,
                                                   const token_render_options& token_options);

/// Markup already rendered in dialect `d` (render()'s text, build_prompt()'s prompt) as
/// token IDs under `token_options.policy` (its `strict` applies; training and max_tokens do
/// not). This is how a prompt reaches an engine that takes IDs.
///
///   auto p = ocml::build_prompt(conv, {.dialect = ocml::dialect::harmony});
///   auto ids = ocml::encode_markup(p->text, ocml::dialect::harmony, tok, {});
[[nodiscard]] result<token_sequence> encode_markup(std::string_view markup, dialect d,
                                                   const tokenizer& tok,
                                                   const token_render_options& token_options);

/// render_tokens of a JSON conversation, read and prepared as render_json does (OpenAI by
/// default; harmony's preamble for OpenAI input), its diagnostics pointing into the JSON.
struct json_token_result {
  token_sequence tokens;
  std::vector<diagnostic> diagnostics;
  [[nodiscard]] bool ok() const noexcept;
};

///   auto r = ocml::render_json_tokens(R"({"messages":[{"role":"user","content":"Hi"}]})",
///                                     {.render = {.dialect = ocml::dialect::qwen3}}, tok, {});
[[nodiscard]] json_token_result render_json_tokens(std::string_view json_text,
                                                   const json_render_options& options,
                                                   const tokenizer& tok,
                                                   const token_render_options& token_options);

}  // namespace ocml
