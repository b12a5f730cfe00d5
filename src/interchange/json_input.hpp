// SPDX-License-Identifier: Apache-2.0
// Reading a conversation as the caller wrote it, and pointing diagnostics back into the
// JSON text it came from.
#pragma once

#include <string_view>

#include "core/message_path.hpp"
#include "ocml/json.hpp"

namespace ocml::detail {

/// OpenAI chat JSON read one message per OpenAI message (reasoning and calls kept inside
/// their message: the grouped shape).
[[nodiscard]] result<conversation> read_openai_grouped(const json& j);

/// read_conversation_json, but OpenAI JSON comes back one message per OpenAI message, so
/// that `messages[K]` of the result is `messages[K]` of the text.
[[nodiscard]] result<conversation> read_conversation_as_written(std::string_view text,
                                                                json_format& format);

/// Gives `d` the offset and line:column in the JSON `text` of the path its message begins
/// with ("messages[2].tool_calls[1].id: ..."); untouched when the path is not there.
void place_at_path(diagnostic& d, std::string_view text);

}  // namespace ocml::detail
