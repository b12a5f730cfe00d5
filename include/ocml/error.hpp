// SPDX-License-Identifier: Apache-2.0
// ocml/error.hpp - the single error enum, its message table, diagnostics and result<T>.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace ocml {

/// Every error ocml can report. Codes marked (§14) come from the OpenChatML 2.2
/// error taxonomy; the others are ocml's own and use the same `E-` naming.
enum class error_code : std::uint8_t {
  success = 0,                ///< No error.
  parse_header,               ///< E-PARSE-HEADER (§14): malformed message header.
  parse_channel_missing,      ///< E-PARSE-CHANNEL-MISSING (§14): channel absent where required.
  body_constraint_violation,  ///< E-BODY-CONSTRAINT-VIOLATION (§14): body fails its <|constrain|>.
  call_schema,                ///< E-CALL-SCHEMA (§14): tool arguments missing or invalid.
  tool_timeout,               ///< E-TOOL-TIMEOUT (§14): tool exceeded deadline_ms.
  tool_cancelled,             ///< E-TOOL-CANCELLED (§14): tool cancelled by the runtime.
  stream_truncated,           ///< E-STREAM-TRUNCATED (§14): input ended inside a message.
  perm_visibility,            ///< E-PERM-VISIBILITY (§14): attempt to display a hidden channel.
  unexpected_token,           ///< E-PARSE-UNEXPECTED-TOKEN: a control token where none may stand.
  stray_text,                 ///< E-PARSE-STRAY-TEXT: text outside any message.
  document_header,            ///< E-PARSE-DOCUMENT-HEADER: the YAML document header is malformed.
  invalid_utf8,               ///< E-ENCODING-UTF8: a body or header is not valid UTF-8.
  limit_exceeded,             ///< E-LIMIT-EXCEEDED: a configured resource limit was exceeded.
  unrepresentable,            ///< E-RENDER-UNREPRESENTABLE: the dialect cannot express a value.
  invalid_json,               ///< E-JSON-INPUT: interchange JSON is malformed or mistyped.
  io_error,                   ///< E-IO: a file could not be read or written.
  engine,                     ///< E-ENGINE: the inference engine failed (transport, HTTP, SSE).
  engine_tokens_stripped,     ///< E-ENGINE-TOKENS-STRIPPED: the engine removed special tokens.
  tool_unknown,               ///< E-TOOL-UNKNOWN: a call names no registered tool.
  tool_failed,                ///< E-TOOL-FAILED: a tool crashed, failed or printed invalid JSON.
  tool_routing,               ///< E-TOOL-ROUTING: a call on a channel its tool may not use (§8.3).
  internal,                   ///< E-INTERNAL: an unexpected failure (out of memory, a bug).
  tokenizer_format,           ///< E-TOKENIZER-FORMAT: a tokenizer file is malformed.
  tokenizer_unsupported,      ///< E-TOKENIZER-UNSUPPORTED: a tokenizer feature ocml lacks.
  token_unknown,              ///< E-TOKEN-UNKNOWN: a token ID the vocabulary does not have.
  template_syntax,            ///< E-TEMPLATE-SYNTAX: a chat template does not compile.
  template_raised,            ///< E-TEMPLATE-RAISED: the template called raise_exception.
  template_undefined,  ///< E-TEMPLATE-UNDEFINED: an undefined value used where Jinja2 raises.
  template_type,       ///< E-TEMPLATE-TYPE: an operation Python refuses (TypeError…).
  template_security,   ///< E-TEMPLATE-SECURITY: what the immutable sandbox forbids.
  response_template,   ///< E-RESPONSE-TEMPLATE: a response template is invalid.
  response_content,    ///< E-RESPONSE-CONTENT: a region's text fails its content type.
  response_missing,    ///< E-RESPONSE-MISSING: a required (`optional: false`) field is absent.
};

/// Number of values in error_code (for tables and tests).
inline constexpr std::size_t error_code_count = 34;

/// The stable `E-...` spelling of a code, e.g. "E-PARSE-HEADER".
///
///   ocml::error_name(ocml::error_code::parse_header)  // "E-PARSE-HEADER"
[[nodiscard]] std::string_view error_name(error_code code) noexcept;

/// A one-line English description of a code.
[[nodiscard]] std::string_view error_message(error_code code) noexcept;

/// Whether a diagnostic stops a strict parse or only informs.
enum class severity : std::uint8_t { error, warning };

/// One finding about an input: what, where (byte offset, 1-based line:column) and why.
struct diagnostic {
  error_code code = error_code::success;
  severity level = severity::error;
  std::size_t offset = 0;  ///< Byte offset into the whole input.
  std::size_t line = 1;    ///< 1-based line of `offset`; 0: no position (an engine, a file).
  std::size_t column = 1;  ///< 1-based byte column of `offset`.
  std::string message;     ///< Specific detail, e.g. "unknown role 'bot'".

  /// "E-PARSE-HEADER 3:14 unknown role 'bot'" (warnings get a "warning: " prefix on the message).
  [[nodiscard]] std::string to_string() const;
  /// Appends to_string() to `out` (no temporary string; for logs of many diagnostics).
  ///
  ///   std::string log;
  ///   for (const auto& d : result.diagnostics) { d.append_to(log); log += '\n'; }
  void append_to(std::string& out) const;
  friend bool operator==(const diagnostic&, const diagnostic&) = default;
};

/// A value or the diagnostic that explains why there is none (simdjson-style).
///
///   ocml::result<std::string> r = ocml::render(conv, opts);
///   if (!r) std::cerr << r.error().to_string();
template <typename T>
class [[nodiscard]] result {
 public:
  result(T value) : v_(std::move(value)) {}       // NOLINT(google-explicit-constructor)
  result(diagnostic err) : v_(std::move(err)) {}  // NOLINT(google-explicit-constructor)
  [[nodiscard]] bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }
  [[nodiscard]] T& value() & { return std::get<0>(v_); }
  [[nodiscard]] const T& value() const& { return std::get<0>(v_); }
  [[nodiscard]] T&& value() && { return std::get<0>(std::move(v_)); }
  [[nodiscard]] const diagnostic& error() const { return std::get<1>(v_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, diagnostic> v_;
};

/// Makes an error diagnostic with no position (for rendering and JSON errors).
[[nodiscard]] diagnostic make_error(error_code code, std::string message);

}  // namespace ocml
