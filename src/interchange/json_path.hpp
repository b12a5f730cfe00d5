// SPDX-License-Identifier: Apache-2.0
// Where a JSON path (`messages[3].tool_calls[0].id`) stands in JSON text: errors found on
// parsed values name a path; this puts them back at a line:column of the input.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "ocml/error.hpp"

namespace ocml::detail {

/// The byte offset of the value at `path` in the JSON `text`, or nullopt when the path is
/// not there (or the text is not well-formed where the walk goes). One pass, no
/// allocation. A path that begins "messages" also finds its way in a bare array of
/// messages.
///
///   json_path_offset(R"({"a": [1, {"b": 2}]})", "a[1].b") == 16
[[nodiscard]] std::optional<std::size_t> json_path_offset(std::string_view text,
                                                          std::string_view path);

/// The JSON path a message begins with ("messages[1].role 'bot' is not a role" ->
/// "messages[1].role"), or empty.
[[nodiscard]] std::string_view leading_json_path(std::string_view message);

/// An error of `code` at byte `off` of `text`, with its line:column (interchange/native.cpp).
[[nodiscard]] diagnostic error_at(error_code code, std::string_view text, std::size_t off,
                                  const std::string& message);

}  // namespace ocml::detail
