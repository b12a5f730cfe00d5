// SPDX-License-Identifier: Apache-2.0
// Parses the text of one message header (between <|start|> and <|message|>).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ocml/dialect.hpp"
#include "ocml/error.hpp"
#include "ocml/model.hpp"

namespace ocml::detail {

/// One problem found in a header; `offset` is relative to the header text.
struct header_issue {
  error_code code;
  severity level;
  std::size_t offset;
  std::string message;
};

struct header_parse_options {
  ocml::dialect dialect = dialect::ocml_2_2;
  bool lenient = false;
  /// Set when the role is already known (completion mode): the text starts after it.
  std::optional<std::string> preset_role;
  /// Harmony, lenient, in a completion (only the assistant writes there): a header without
  /// a role word, or with this role word written twice or more ("assistantassistant"), is
  /// this role's, with a warning (the peers read it so).
  std::optional<std::string> completion_role;
};

struct parsed_header {
  message msg;                       ///< Header fields (content empty, end unspecified).
  std::vector<header_issue> issues;  ///< Errors (strict) and recovered warnings (lenient).
  bool failed = false;               ///< An error-severity issue was found.
};

/// Parses header text such as "assistant to=functions.f
/// call_id=1<|channel|>commentary<|constrain|>json".
[[nodiscard]] parsed_header parse_header(std::string_view text, const header_parse_options& opt);

/// Lenient recovery for a header that a stop token closed before any <|message|>
/// (e.g. a refusal "assistant I can't help with that"): the role, plus everything after the
/// role (and channel, if any) as the body.
[[nodiscard]] parsed_header parse_headless_message(std::string_view text,
                                                   const header_parse_options& opt,
                                                   std::string* body);

/// Resolves a role word: "assistant", "user:alice" (harmony author name), "functions.x"
/// (legacy tool author). Returns false when the word is not a role (caller decides).
[[nodiscard]] bool resolve_role_word(std::string_view word, message& msg);

/// `w` is `unit` written twice or more ("assistantassistant").
[[nodiscard]] bool repeats(std::string_view w, std::string_view unit);

/// The channels OpenChatML 2.x knows (analysis, commentary, final); harmony takes any.
[[nodiscard]] bool known_channel(std::string_view c);

}  // namespace ocml::detail
