// SPDX-License-Identifier: Apache-2.0
#include <array>
#include <charconv>
#include <string>

#include "ocml/error.hpp"

namespace ocml {

namespace {
struct error_entry {
  std::string_view name;
  std::string_view message;
};
constexpr std::array<error_entry, error_code_count> kErrors = {{
    {"OK", "no error"},
    {"E-PARSE-HEADER", "malformed message header"},
    {"E-PARSE-CHANNEL-MISSING", "channel absent where required by the profile"},
    {"E-BODY-CONSTRAINT-VIOLATION", "message body failed to parse against its <|constrain|> type"},
    {"E-CALL-SCHEMA", "tool arguments missing or invalid"},
    {"E-TOOL-TIMEOUT", "tool exceeded its deadline_ms"},
    {"E-TOOL-CANCELLED", "tool cancelled by the runtime"},
    {"E-STREAM-TRUNCATED", "stream ended without a stop token"},
    {"E-PERM-VISIBILITY", "attempt to display a hidden channel"},
    {"E-PARSE-UNEXPECTED-TOKEN", "control token where none may stand"},
    {"E-PARSE-STRAY-TEXT", "text outside any message"},
    {"E-PARSE-DOCUMENT-HEADER", "malformed YAML document header"},
    {"E-ENCODING-UTF8", "invalid UTF-8"},
    {"E-LIMIT-EXCEEDED", "a configured resource limit was exceeded"},
    {"E-RENDER-UNREPRESENTABLE", "the dialect cannot represent this value"},
    {"E-JSON-INPUT", "malformed or mistyped interchange JSON"},
    {"E-IO", "input/output error"},
    {"E-ENGINE", "the inference engine failed"},
    {"E-ENGINE-TOKENS-STRIPPED", "the engine removed special tokens from its output"},
    {"E-TOOL-UNKNOWN", "no tool of that name is registered"},
    {"E-TOOL-FAILED", "the tool failed or replied with invalid JSON"},
    {"E-TOOL-ROUTING", "tool call on a channel the tool may not be called from"},
    {"E-INTERNAL", "unexpected failure inside ocml (out of memory, or a bug)"},
    {"E-TOKENIZER-FORMAT", "tokenizer file is malformed"},
    {"E-TOKENIZER-UNSUPPORTED", "tokenizer uses a feature ocml does not implement"},
    {"E-TOKEN-UNKNOWN", "token ID is not in the vocabulary"},
    {"E-TEMPLATE-SYNTAX", "chat template syntax error"},
    {"E-TEMPLATE-RAISED", "the chat template raised an exception"},
    {"E-TEMPLATE-UNDEFINED", "the chat template used an undefined value"},
    {"E-TEMPLATE-TYPE", "the chat template made an invalid operation"},
    {"E-TEMPLATE-SECURITY", "the chat template did what the sandbox forbids"},
    {"E-RESPONSE-TEMPLATE", "the response template is invalid"},
    {"E-RESPONSE-CONTENT", "a region's text does not parse as its content type"},
    {"E-RESPONSE-MISSING", "a required field of the response template is missing"},
}};
}  // namespace

std::string_view error_name(error_code code) noexcept {
  const auto i = static_cast<std::size_t>(code);
  return i < kErrors.size() ? kErrors[i].name : std::string_view("E-UNKNOWN");
}

std::string_view error_message(error_code code) noexcept {
  const auto i = static_cast<std::size_t>(code);
  return i < kErrors.size() ? kErrors[i].message : std::string_view("unknown error");
}

void diagnostic::append_to(std::string& out) const {
  out += error_name(code);
  char digits[64];
  char* p = digits;
  *p++ = ' ';
  if (line != 0) {  // line 0: no position in any input (an engine, a file)
    p = std::to_chars(p, digits + 30, line).ptr;
    *p++ = ':';
    p = std::to_chars(p, digits + 62, column).ptr;
    *p++ = ' ';
  }
  out.append(digits, p);
  if (level == severity::warning) out += "warning: ";
  if (message.empty()) {
    out += error_message(code);
  } else {
    out += message;
  }
}

std::string diagnostic::to_string() const {
  std::string s;
  append_to(s);
  return s;
}

diagnostic make_error(error_code code, std::string message) {
  diagnostic d;
  d.code = code;
  d.level = severity::error;
  d.line = 0;  // no position: rendering and JSON errors name a path in their message
  d.message = std::move(message);
  return d;
}

}  // namespace ocml
