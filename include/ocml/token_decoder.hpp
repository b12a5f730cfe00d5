// SPDX-License-Identifier: Apache-2.0
// ocml/token_decoder.hpp - decoding model output given as token IDs.
//
//   auto tok = *ocml::tokenizer::from_file("o200k_base.tiktoken", {.encoding = "o200k_harmony"});
//   ocml::token_decoder d(tok, {.dialect = ocml::dialect::harmony, .completion = true},
//                         [](const ocml::event& e) { /* ... */ });
//   d.push_tokens(ids);  // any number of calls, any split: the events are the same
//   d.finish();
#pragma once

#include <memory>
#include <span>

#include "ocml/decoder.hpp"
#include "ocml/tokens.hpp"

namespace ocml {

/// A dialect's streaming decoder fed token IDs. Structure comes only from special IDs that
/// are the dialect's control tokens: ordinary tokens that spell `<|start|>` are content (in
/// the 2.x family and harmony; formats without an escape read such text as they read it
/// in bytes, with a warning). A special ID that is not one of the dialect's tokens
/// (`<|reserved_200013|>`), or an ID outside the vocabulary, is reported with its position
/// in the token stream (E-PARSE-UNEXPECTED-TOKEN, E-TOKEN-UNKNOWN; errors in strict mode,
/// warnings in lenient mode) and not decoded. Events' spans are byte spans of the text the
/// IDs stand for (escapes the token stream needs are not counted).
class token_decoder {
 public:
  token_decoder(const tokenizer& tok, const decoder_options& options, decoder::sink on_event);
  ~token_decoder();
  token_decoder(token_decoder&&) noexcept;
  token_decoder& operator=(token_decoder&&) noexcept;
  token_decoder(const token_decoder&) = delete;
  token_decoder& operator=(const token_decoder&) = delete;

  /// Feeds the next IDs.
  void push_tokens(std::span<const token_id> ids);
  /// Declares the end of input.
  void finish();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// parse() for token IDs: the token decoder fed everything at once.
///
///   auto r = ocml::parse_tokens(ids, tok, {.dialect = ocml::dialect::harmony});
[[nodiscard]] parse_result parse_tokens(std::span<const token_id> ids, const tokenizer& tok,
                                        const decoder_options& options);

}  // namespace ocml
