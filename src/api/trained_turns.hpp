// SPDX-License-Identifier: Apache-2.0
// Training examples from renders of a conversation's prefixes, for a dialect and for a
// model's chat template alike. A trained turn (a run of assistant messages) begins where the
// conversation rendered up to it with the generation prompt ends (its prompt, as at
// inference) and ends with its stop, and it is trained in an example only where that
// example's text holds it exactly as the model sampled it: the conversation rendered
// through the turn, as a training text ends. The policy decides how turns that some text
// rewrites (Qwen3's dropped reasoning, harmony's dropped analysis and <|end|> for the
// sampled <|return|>) are trained: in examples of their own, or refused.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ocml/token_render.hpp"

namespace ocml::detail {

/// A trained region of an example's text: [from, to).
struct trained_region {
  std::size_t from;
  std::size_t to;
};

/// What the examples are found from.
struct turn_renders {
  std::size_t messages = 0;
  std::function<bool(std::size_t)> is_assistant;
  std::function<bool(std::size_t)> is_user;
  /// The first `n` messages with the generation prompt: the prompt of a turn at `n`.
  std::function<result<std::string>(std::size_t n)> render_prompt;
  /// The first `n` messages as a training text ends there: the last one as the model
  /// sampled it (harmony's <|return|>).
  std::function<result<std::string>(std::size_t n)> render_example;
  /// When set, what the model sampled for the turn of messages [s, n) after its prompt, as
  /// a text beginning with the prompt's history (instead of render_example(n)): for
  /// formats whose rendering of earlier messages depends on the last one (harmony's drop
  /// rule). `prompt` is render_prompt(s), already rendered.
  std::function<result<std::string>(std::size_t s, std::size_t n, std::string_view prompt)>
      render_sampled;
  /// The first `n` messages without the generation prompt, as history: when the
  /// conversation rendered through a turn does not begin with the turn's prompt (a
  /// template that rewrites earlier messages once a final answer follows them, as
  /// gpt-oss's drops the analysis of earlier tool calls), the turn is read from its end:
  /// the generation prompt's last occurrence there after which the text before it ends
  /// most like this history does.
  std::function<result<std::string>(std::size_t n)> render_history;
  /// What ends a sampled turn (the last one in the turn counts).
  std::vector<std::string_view> stops;
  /// Said when a turn is not in the whole conversation as it was sampled: why the format
  /// does that.
  std::string_view rewrite_hint;
};

/// One training example: the first `through` messages rendered as `text`, and its trained
/// regions.
struct planned_example {
  std::size_t through = 0;
  std::string text;
  std::vector<trained_region> regions;
};

/// The most bytes the prompts of one conversation's trained turns may render together
/// (E-LIMIT-EXCEEDED beyond: the work grows with the square of the turns).
inline constexpr std::size_t kMaxPrefixRenderBytes = std::size_t{64} << 20;

/// The examples of a conversation whose whole training text is `whole`, under
/// `options.turns`, ordered by their last trained turn; or E-RENDER-UNREPRESENTABLE naming
/// the message whose turn the policy cannot train exactly, the cause and the policy that
/// would.
[[nodiscard]] result<std::vector<planned_example>> plan_examples(
    const turn_renders& renders, std::string whole, const token_render_options& options);

/// Encodes `text` piece by piece (before each region, the region, the rest) with `encode`
/// (which appends the IDs of [from, to) to its vector), labels the regions' IDs when
/// training, cuts to `max_tokens` as `truncate` says (left, right; turns is the caller's), and sets
/// the attention mask.
/// Cuts `seq` (IDs and labels) to `options.max_tokens` as truncation left or right say
/// (truncation::turns is the caller's); the attention mask is the caller's.
void cut_to_max_tokens(const token_render_options& options, token_sequence& seq);

void encode_regions(
    std::string_view text, const std::vector<trained_region>& regions,
    const std::function<void(std::size_t, std::size_t, std::vector<token_id>&)>& encode,
    const token_render_options& options, token_sequence& seq);

}  // namespace ocml::detail
