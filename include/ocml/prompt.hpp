// SPDX-License-Identifier: Apache-2.0
// ocml/prompt.hpp - building the prompt for the next assistant turn: the generation prompt,
// chain-of-thought handling and truncation to a budget.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ocml/dialect.hpp"
#include "ocml/error.hpp"
#include "ocml/model.hpp"

namespace ocml {

/// Counts the cost of a piece of prompt text: bytes by default, or tokens through a
/// tokenizer the caller supplies.
using cost_function = std::function<std::size_t(std::string_view)>;

/// How to build a prompt.
struct prompt_options {
  ocml::dialect dialect = dialect::ocml_2_2;
  /// GabGPT think mode: the prompt ends in <|think|> instead of <|assistant|>.
  bool think = false;
  /// Keep the reasoning of turns that already ended in a final answer (by default it is
  /// dropped: HIP-1 §12.7, 2.2 §7; reasoning leading to an unresolved tool call stays).
  bool keep_reasoning = false;
  /// Largest prompt allowed, in units of `cost` (0: no limit). Whole turns are dropped
  /// from the beginning until the prompt fits; system and developer messages stay.
  std::size_t budget = 0;
  cost_function cost;  ///< Empty: bytes.
  /// Harmony: the generation role (and ocml-2.x); others ignore it.
  std::string generation_role = "assistant";
  /// Harmony: a conversation without harmony's own system message (one in the OpenAI form,
  /// as `ocml chat` holds it) gets gpt-oss's preamble first, as `ocml render` gives it:
  /// the system message (identity, dates, `Reasoning:`, channels) and a developer message
  /// with the instructions and the `functions` namespace of `conv.tools`.
  std::string reasoning_effort;  ///< "low", "medium" or "high" (empty: harmony's default).
};

/// A prompt ready for an engine.
struct prompt {
  std::string text;                   ///< The rendered conversation plus the generation prompt.
  std::vector<std::string> stop;      ///< The dialect's stop sequences (see stop_sequences()).
  std::size_t cost = 0;               ///< `cost(text)` (bytes by default).
  std::size_t dropped_messages = 0;   ///< Messages cut by truncation.
  std::size_t dropped_reasoning = 0;  ///< Reasoning messages or fields removed.
  std::vector<diagnostic> warnings;   ///< Features the dialect could not hold.
};

/// Builds the prompt for the next assistant turn of `conv`.
///
///   ocml::conversation c;
///   c.messages.push_back({.role = ocml::role::user, .content = "Hi"});
///   auto p = ocml::build_prompt(c, {.dialect = ocml::dialect::chatml});
///   // p->text ends in "<|im_start|>assistant\n", p->stop == {"<|im_end|>"}
///
/// Errors: E-LIMIT-EXCEEDED when even the last turn (with the pinned system and developer
/// messages) does not fit the budget; E-RENDER-UNREPRESENTABLE from the renderer.
[[nodiscard]] result<prompt> build_prompt(const conversation& conv, const prompt_options& options);

/// The strings that end a completion in `d`: `<|return|>` and `<|call|>` (2.x, harmony:
/// hard stops, 2.2 §12.8), `<|im_end|>` (ChatML, 0.1), `<end>` (PCML), `<|end|>` (GabGPT).
[[nodiscard]] std::vector<std::string> stop_sequences(dialect d);

/// Removes the reasoning of every turn that ended in a final answer: `analysis` messages
/// (2.x) and the `reasoning`/`reflection`/`introspection` fields (other dialects). A turn
/// runs from a user message to the next; reasoning of a turn still waiting on tool replies
/// stays. Returns how many messages or fields were removed.
std::size_t drop_finished_reasoning(conversation& conv);

}  // namespace ocml
