// SPDX-License-Identifier: Apache-2.0
// ocml/gabgpt.hpp - GabGPT chat-log preparation, display segmentation and truncation.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ocml/error.hpp"

namespace ocml::gabgpt {

/// Options for prepare().
struct prepare_options {
  /// Think mode: the prompt ends in <|think|> instead of <|assistant|>.
  bool think = false;
};

/// Prepares a chat log for generation (gabgpt-chatml.txt, "CHAT LOG PREPARATION RULES"):
/// leading <|think|>/<|assistant|>/<|end|> removed, <|user|> ensured first, trailing
/// <|user|>/<|think|>/<|assistant|> removed (a closing <|end|> stays, as the spec's
/// examples keep it), then `<|user|>TEXT` and the suffix appended. A user text that spells
/// one of the four tokens is refused (E-RENDER-UNREPRESENTABLE): GabGPT has no escape.
///
///   ocml::gabgpt::prepare("", "Hello", {})  // "<|user|>Hello<|assistant|>"
[[nodiscard]] result<std::string> prepare(std::string_view log, std::string_view user_text,
                                          const prepare_options& options);

/// Which bubble a display segment goes in.
enum class segment_kind : std::uint8_t { user, thinking, assistant };

/// One display bubble.
struct segment {
  segment_kind kind;
  std::string text;  ///< special tokens stripped
};

/// Splits a log into user / thinking / assistant bubbles (display rules 1-6).
[[nodiscard]] std::vector<segment> segments(std::string_view log);

/// Counts the cost of a piece of log (bytes, or tokens through a tokenizer).
using cost_function = std::function<std::size_t(std::string_view)>;

/// Truncates a log from the beginning to fit `budget`, cutting only before a <|user|>
/// so the result stays a well-formed log (it may be empty when no turn fits).
///
///   auto kept = ocml::gabgpt::truncate(log, 4096, {});  // at most 4096 bytes
[[nodiscard]] std::string truncate(std::string_view log, std::size_t budget,
                                   const cost_function& cost = {});

}  // namespace ocml::gabgpt
