// SPDX-License-Identifier: Apache-2.0
// Pre-tokenizers: the regexes byte-level BPE tokenizers split text with before merging,
// written as scanners over the Unicode tables instead of run by a regex engine. Each gives
// exactly what the backtracking, leftmost-first regex (fancy-regex in tiktoken, Oniguruma in
// Hugging Face tokenizers) matches, with Unicode 16 classes and `\s` as White_Space.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace ocml::detail {

enum class pretokenizer : unsigned char {
  o200k,   ///< o200k_base (gpt-oss, GPT-4o)
  cl100k,  ///< cl100k_base, and Llama 3's tokenizer.json
  qwen2,   ///< Qwen2/2.5/3: cl100k's with one digit per piece
  gpt2,    ///< GPT-2's ByteLevel regex
  tekken,  ///< Mistral's Tekken (Mistral-Nemo): o200k's without contractions, one digit a piece
};

/// The pre-tokenizer a regex text is, or nullopt for any other regex.
[[nodiscard]] std::optional<pretokenizer> recognize_pattern(std::string_view regex) noexcept;

/// The regex of a pre-tokenizer (as tokenizer.json and tiktoken write it).
[[nodiscard]] std::string_view pattern_of(pretokenizer p) noexcept;

/// The length of the piece that starts at `text[at]` (at < text.size(); always > 0).
[[nodiscard]] std::size_t next_piece(pretokenizer p, std::string_view text,
                                     std::size_t at) noexcept;

}  // namespace ocml::detail
