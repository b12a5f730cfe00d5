// SPDX-License-Identifier: Apache-2.0
// GabGPT ChatML: <|user|>, <|think|>, <|assistant|>, <|end|>.
#pragma once

#include <array>
#include <string_view>

#include <memory>
#include <string>
#include <vector>

#include "core/codec.hpp"
#include "core/stream_decoder.hpp"
#include "ocml/render.hpp"

namespace ocml::detail::gabgpt {

enum token_id : std::size_t { user, think, assistant, end };
inline constexpr std::array<std::string_view, 4> kTokenNames = {"<|user|>", "<|think|>",
                                                                "<|assistant|>", "<|end|>"};
inline const std::vector<std::string> kTokens(kTokenNames.begin(), kTokenNames.end());

/// The first token spelling found in `text`, or empty.
[[nodiscard]] std::string_view find_token(std::string_view text);

result<std::string> render(const conversation& c, const render_options& o,
                           std::vector<diagnostic>* warnings);
std::unique_ptr<stream_decoder> make_decoder(decoder_options o, decoder::sink s);

/// Think mode's second round (codec::think): the prompt ends in <|think|>, the model thinks,
/// and its <|assistant|> opens the answer.
inline constexpr think_round kThinkRound{"<|think|>", "think", "<|assistant|>"};

/// GabGPT's display rules (codec::view): user, thinking and assistant bubbles.
[[nodiscard]] std::string view(std::string_view log);

}  // namespace ocml::detail::gabgpt
