// SPDX-License-Identifier: Apache-2.0
// OpenChatML 0.1: [BOS]/[EOS], <|im_start|>role name=X, thought flags and blocks,
// function list/call/output, fill-in-the-middle and multi-file documents.
#pragma once

#include <array>
#include <string_view>

#include <memory>
#include <string>
#include <vector>

#include "core/stream_decoder.hpp"
#include "ocml/render.hpp"

namespace ocml::detail::ocml01 {

enum token_id : std::size_t {
  im_start,
  im_end,
  fim_prefix,
  fim_middle,
  fim_suffix,
  file_sep,
  flag_reflect,
  flag_introspect,
  flag_reason,
  start_reflect,
  end_reflect,
  start_introspect,
  end_introspect,
  start_reason,
  end_reason,
  function_list,
  function_output,
  function_call,
  bos,
  eos,  // configurable strings, appended at run time
};
inline constexpr std::array<std::string_view, 18> kFixedTokenNames = {
    "<|im_start|>",        "<|im_end|>",         "<|fim_prefix|>",  "<|fim_middle|>",
    "<|fim_suffix|>",      "<|file_separator|>", "<|reflect|>",     "<|introspect|>",
    "<|reason|>",          "<|start_reflect|>",  "<|end_reflect|>", "<|start_introspect|>",
    "<|end_introspect|>",  "<|start_reason|>",   "<|end_reason|>",  "<|function_list|>",
    "<|function_output|>", "<|function_call|>"};
inline const std::vector<std::string> kFixedTokens(kFixedTokenNames.begin(),
                                                   kFixedTokenNames.end());

/// The canonical function list ocml appends to a system message: one JSON tool per line.
[[nodiscard]] std::string function_list_block(const std::vector<tool>& tools);
/// The tools of every function list in a system message's text (each JSON object between
/// <|function_list|> tokens, pretty or one per line), as the decoder reads them.
[[nodiscard]] std::vector<tool> tools_in_function_lists(std::string_view text);

result<std::string> render(const conversation& c, const render_options& o,
                           std::vector<diagnostic>* warnings);
std::unique_ptr<stream_decoder> make_decoder(decoder_options o, decoder::sink s);

}  // namespace ocml::detail::ocml01
