// SPDX-License-Identifier: Apache-2.0
// Qwen3 (and QwQ, Qwen3-Thinking, Qwen3.5-style output): ChatML turns, Hermes tool calls and
// `<think>…</think>` reasoning, byte-identical to Qwen3's chat template under Jinja2.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "core/codec.hpp"
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

/// OpenAI JSON text straight to Qwen3's template (line_render.cpp), through ChatML's batch
/// reader: the same bytes as `render` of the conversation read from it, or false (output
/// and warnings to be dropped by the caller) for what it does not take.
bool render_openai_text(std::string_view json, const render_options& o, std::string& out,
                        std::vector<diagnostic>& warnings);
/// The same, appended escaped as the inside of a JSON string (a batch line's "text").
bool render_openai_json_text(std::string_view json, const render_options& o, text_buffer& out,
                             std::vector<diagnostic>& warnings);
/// The codec's one-pass hooks (core/codec.hpp): a request read once, then written as text
/// or as a batch line's escaped text.
const one_pass_request* read_batch_request(std::string_view json, request_option_values& options);
void write_batch_text(const one_pass_request& request, const render_options& o, std::string& out,
                      std::vector<diagnostic>& warnings);
void write_batch_line(const one_pass_request& request, const render_options& o, text_buffer& out,
                      std::vector<diagnostic>& warnings);
inline constexpr one_pass_hooks kOnePass{read_batch_request, write_batch_text, write_batch_line};
std::unique_ptr<stream_decoder> make_decoder(decoder_options o, decoder::sink s);

}  // namespace ocml::detail::qwen3
