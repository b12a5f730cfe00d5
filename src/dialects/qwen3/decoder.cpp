// SPDX-License-Identifier: Apache-2.0
// The Qwen3 decoder: ChatML's, with `<think>…</think>` read as the assistant's reasoning.
#include "dialects/chatml/chatml.hpp"
#include "dialects/qwen3/qwen3.hpp"

namespace ocml::detail::qwen3 {

std::unique_ptr<stream_decoder> make_decoder(decoder_options o, decoder::sink s) {
  return chatml::make_decoder(std::move(o), std::move(s),
                              {.think = true, .tools_head = kToolsHead});
}

}  // namespace ocml::detail::qwen3
