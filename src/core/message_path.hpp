// SPDX-License-Identifier: Apache-2.0
// Where in a conversation a render diagnostic points. A renderer's diagnostic begins with
// the JSON path of what it is about ("messages[3].tool_calls[0].id: ChatML cannot hold
// ..."), in the conversation it was given. When that conversation was reshaped from
// another (one message per call and reasoning block, or grouped back), an origin map
// puts the path back in the terms of the conversation the caller wrote.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ocml/error.hpp"

namespace ocml::detail {

/// "messages[I]" or "messages[I].FIELD".
///
///   message_path(3, "name") == "messages[3].name"
[[nodiscard]] std::string message_path(std::size_t i, std::string_view field = {});

/// "messages[I].tool_calls[J]" or "messages[I].tool_calls[J].FIELD".
[[nodiscard]] std::string call_path(std::size_t i, std::size_t j, std::string_view field = {});

/// Where one message of a reshaped conversation came from.
struct message_origin {
  enum class piece : std::uint8_t {
    whole,      ///< messages[message] itself
    reasoning,  ///< the reasoning of messages[message] (a split `analysis` message)
    call,       ///< tool_calls[call] of messages[message] (a split call message)
    made,       ///< made by ocml (a preamble): `path` says what it was made from
  };
  piece kind = piece::whole;
  std::size_t message = 0;
  std::size_t call = 0;
  /// A message grouped from split ones: the source message of each of its tool calls and
  /// of its reasoning (-1: none).
  std::vector<std::size_t> calls;
  std::ptrdiff_t reasoning = -1;
  /// For `made`: the path it was made from ("tools"), or empty for none.
  std::string path;
};
using origin_map = std::vector<message_origin>;

/// Rewrites the leading "messages[K]..." path of `d.message` (K indexes the reshaped
/// conversation) into the source's terms. Diagnostics without such a path are untouched.
void relocate(diagnostic& d, const origin_map& origins);
/// relocate() on `ds[from..]`.
void relocate(std::vector<diagnostic>& ds, std::size_t from, const origin_map& origins);

/// Renames the native field names of a leading path to the OpenAI chat form's (the
/// conversation read from OpenAI JSON one message per OpenAI message): `reasoning` ->
/// `reasoning_content`, `call_id` -> `tool_call_id`, `tool_calls[J].arguments` ->
/// `tool_calls[J].function.arguments`; a field OpenAI JSON cannot hold names its message.
void to_openai_path(diagnostic& d);

/// The leading JSON path of a diagnostic's text ("messages[1].role: ..." -> "messages[1].role").
[[nodiscard]] std::string_view leading_path(std::string_view text);

}  // namespace ocml::detail
