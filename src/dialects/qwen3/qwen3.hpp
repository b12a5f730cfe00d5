// SPDX-License-Identifier: Apache-2.0
// Qwen3 (and QwQ, Qwen3-Thinking, Qwen3.5-style output): ChatML turns, Hermes tool calls and
// `<think>…</think>` reasoning, byte-identical to Qwen3's chat template under Jinja2.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "core/stream_decoder.hpp"
#include "ocml/render.hpp"

namespace ocml::detail::qwen3 {

/// Qwen3's tools block opens without the blank line Qwen2.5's has (the template writes the
/// system text and "\n\n" first).
inline constexpr std::string_view kToolsHead =
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>";

result<std::string> render(const conversation& c, const render_options& o,
                           std::vector<diagnostic>* warnings);
std::unique_ptr<stream_decoder> make_decoder(decoder_options o, decoder::sink s);

}  // namespace ocml::detail::qwen3
