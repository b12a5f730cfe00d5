// ocml/json.hpp - interchange: OpenAI chat JSON and ocml's lossless native JSON.
#pragma once

#include <string>
#include <string_view>

#include "ocml/error.hpp"
#include "ocml/model.hpp"

namespace ocml {

/// How deep JSON input may nest (arrays and objects) unless a caller says otherwise:
/// deeper input is refused with E-LIMIT-EXCEEDED before any recursive code sees it.
inline constexpr std::size_t default_max_json_depth = 1024;

/// Which JSON shape a conversation object has.
enum class json_format : std::uint8_t { automatic, openai, native, harmony };

/// Options for the OpenAI projection.
struct openai_options {
  /// Key for analysis text: "reasoning_content" (OpenAI-compatible servers) or
  /// "thinking" (OpenChatML 2.0 §10).
  std::string reasoning_key = "reasoning_content";
  /// Write reasoning at all (PCML's own mapping strips it: pcml.md §3).
  bool include_reasoning = true;
  /// Write `"type": "function"` in each tool call (OpenAI requires it; pcml.md omits it).
  bool tool_call_type = true;
};

/// The lossless native form: `{"header":..., "tools":[...], "messages":[{one object per
/// markup message}]}` with fields role, name, recipient, channel, call_id, intent,
/// content_type, constrain, content, end, extra (empty fields omitted).
///
///   ocml::json j = ocml::to_native_json(conv);
[[nodiscard]] json to_native_json(const conversation& c);
[[nodiscard]] result<conversation> from_native_json(const json& j);

/// The OpenAI chat projection: assistant turns grouped (analysis -> reasoning_content,
/// commentary calls -> tool_calls with id from call_id, final -> content), tool replies
/// -> role "tool" with tool_call_id.
///
///   ocml::json j = ocml::to_openai_json(conv, {});
[[nodiscard]] json to_openai_json(const conversation& c, const openai_options& options);
/// Accepts `{"messages": [...], "tools": [...]}` or a bare array of messages.
[[nodiscard]] result<conversation> from_openai_json(const json& j);

/// Guesses the shape of a conversation object (OpenAI keys, native keys, harmony content lists).
[[nodiscard]] json_format detect_json_format(const json& j);

/// Reads a conversation in the given (or detected) shape.
[[nodiscard]] result<conversation> from_json(const json& j, json_format format);

/// Parses JSON text; E-JSON-INPUT with line:column on a syntax error (a number too large for
/// a double too), E-LIMIT-EXCEEDED at the bracket that nests deeper than `max_depth`.
///
///   auto j = ocml::parse_json_text(R"({"messages": []})");
[[nodiscard]] result<json> parse_json_text(std::string_view text,
                                           std::size_t max_depth = default_max_json_depth);

/// Reads a conversation from JSON text: parse_json_text, then from_json in `format`
/// (automatic: detected, and `format` is set to what was found). An error in the
/// conversation's structure names its JSON path and stands at that value's line:column
/// in `text` (e.g. `E-JSON-INPUT 3:9 messages[1].role 'bot' is not a role`).
///
///   ocml::json_format f = ocml::json_format::automatic;
///   auto c = ocml::read_conversation_json(R"({"messages": []})", f);
[[nodiscard]] result<conversation> read_conversation_json(std::string_view text,
                                                          json_format& format);

/// Serializes JSON; invalid UTF-8 in strings is written as U+FFFD (never throws).
[[nodiscard]] std::string dump_json(const json& j, int indent = -1);

}  // namespace ocml
