// SPDX-License-Identifier: Apache-2.0
// ocml/token_render.hpp - conversations as token IDs, with training labels.
//
//   auto tok = ocml::tokenizer::from_file("o200k_base.tiktoken", {.encoding = "o200k_harmony"});
//   auto seq = ocml::render_tokens(conv, {.dialect = ocml::dialect::harmony}, *tok,
//                                  {.training = true});
//   // seq->input_ids, seq->labels (-100 where not trained), seq->attention_mask
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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

/// Which assistant turns training trains, and in how many examples. A turn (a run of
/// assistant messages) is trained in an example only where the example's text holds it
/// exactly as the model sampled it after its prompt (the conversation rendered up to it
/// with the generation prompt): formats that rewrite earlier turns once a later one exists
/// (Qwen3 drops reasoning before the last user message, harmony drops analysis and writes
/// <|end|> where the model sampled <|return|>) would otherwise teach text the model never
/// sees.
enum class trained_turns : std::uint8_t {
  /// Every turn, in as few examples as that allows: the whole conversation trains every
  /// turn it holds as sampled; each other turn is trained in the conversation cut after
  /// it (with the turns that one holds). Never refuses a well-formed conversation.
  automatic,
  /// Every turn in an example of its own: the conversation cut after it, only that turn
  /// trained (each example's prompt is exactly the inference-time prompt).
  per_turn,
  /// One example, every turn trained; a turn the whole conversation does not hold as it
  /// was sampled is refused (E-RENDER-UNREPRESENTABLE naming the message and the cause).
  whole,
  /// The turns after the last user message (tool-call steps included), as `automatic`:
  /// one example when the conversation holds them all as sampled.
  last,
  /// One example rendered with every turn's reasoning kept (`render_options::
  /// keep_reasoning`, harmony's analysis kept), every turn trained as it is written there
  /// (earlier harmony answers end in <|end|>): TRL's choice, not what the model sees at
  /// inference for Qwen3. A chat template decides for itself (pass its own kwarg).
  keep_reasoning,
};

/// The policy named `name` ("automatic", "per-turn", "whole", "last", "keep-reasoning"), as
/// the CLI's --train-turns and Python's turns= spell it; nullopt for another name.
///
///   auto t = ocml::trained_turns_of("per-turn");  // trained_turns::per_turn
[[nodiscard]] std::optional<trained_turns> trained_turns_of(std::string_view name) noexcept;

/// How a sequence longer than `token_render_options::max_tokens` is cut.
enum class truncation : std::uint8_t {
  /// Whole old turns first: the leading system and developer messages and the tools stay,
  /// and the oldest user turns (a user message and all up to the next one) are dropped, as
  /// few as make every example fit, with a warning (E-LIMIT-EXCEEDED) saying how many.
  /// E-LIMIT-EXCEEDED when the last user turn alone does not fit: nothing is cut inside a
  /// turn.
  turns,
  /// The last max_tokens tokens kept: the beginning (system prompt, tools) is cut first.
  left,
  /// The first max_tokens tokens kept: the end (the last turn and its labels) is cut.
  right,
};

/// The truncation named `name` ("turns", "left", "right"), as the CLI's --truncate and
/// Python's truncate= spell it; nullopt for another name.
///
///   auto t = ocml::truncation_of("left");  // truncation::left
[[nodiscard]] std::optional<truncation> truncation_of(std::string_view name) noexcept;

struct token_render_options {
  token_policy policy = token_policy::harmony;
  /// Labels: the IDs of what the model samples after each trained turn's generation prompt
  /// through its stop token; -100 elsewhere (not shifted).
  bool training = false;
  trained_turns turns = trained_turns::automatic;
  /// Also train the newline a turn's markup writes after its stop token (ChatML's
  /// "<|im_end|>\n"), which the model never samples.
  bool train_trailing_newline = false;
  /// Keep at most this many tokens in a sequence (0: no limit), cut as `truncate` says.
  /// Labels are cut with the IDs.
  std::size_t max_tokens = 0;
  truncation truncate = truncation::turns;
  /// A control token the vocabulary lacks is an error (E-TOKEN-UNKNOWN) instead of being
  /// encoded as ordinary text with a warning.
  bool strict = false;
  /// Keep each sequence's rendered text and, with training, its trained byte spans
  /// (`token_sequence::text`, `trained`): what the labels cover, checkable against the text.
  bool keep_text = false;
  /// Encode through the thread's memo (`encode_options::memoize`): the prompt of each
  /// trained turn repeats the turns before it. Off: the same IDs, encoded anew each time.
  bool memoize = true;
};

struct token_sequence {
  std::vector<token_id> input_ids;
  std::vector<std::uint8_t> attention_mask;
  std::vector<std::int32_t> labels;     ///< empty unless training
  std::vector<diagnostic> diagnostics;  ///< warnings: control tokens written as text
  /// With `keep_text`: the rendered text, and the [from, to) byte spans of it trained.
  std::string text;
  std::vector<std::pair<std::size_t, std::size_t>> trained;
};

/// Renders `conv` (as render() would with `options`) to token IDs. With `training`, the
/// conversation's one example; E-RENDER-UNREPRESENTABLE when the policy needs more (use
/// render_examples).
///
///   auto ids = ocml::render_tokens(conv, {.dialect = ocml::dialect::qwen3,
///                                         .add_generation_prompt = true}, tok, {});
[[nodiscard]] result<token_sequence> render_tokens(const conversation& conv,
                                                   const render_options& options,
                                                   const tokenizer& tok,
                                                   const token_render_options& token_options);

/// The training examples of `conv` under `token_options.turns` (training is implied), in
/// the order of their last trained turn: one sequence each, labels set.
///
///   auto xs = ocml::render_examples(conv, {.dialect = ocml::dialect::qwen3}, tok,
///                                   {.turns = ocml::trained_turns::per_turn});
[[nodiscard]] result<std::vector<token_sequence>> render_examples(
    const conversation& conv, const render_options& options, const tokenizer& tok,
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
  /// The sequence; with training, the first example.
  token_sequence tokens;
  /// With training, the examples after the first when the policy split the conversation
  /// (`trained_turns::automatic`, `per_turn`, `last`).
  std::vector<token_sequence> more_examples;
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
