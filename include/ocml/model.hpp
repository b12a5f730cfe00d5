// SPDX-License-Identifier: Apache-2.0
// ocml/model.hpp - the one core model every dialect reads into and renders from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ocml {

/// JSON values inside the model (tool schemas, header settings) keep their key order.
using json = nlohmann::ordered_json;

/// Who wrote a message.
enum class role : std::uint8_t { system, developer, user, assistant, tool };

/// "system", "developer", "user", "assistant" or "tool".
[[nodiscard]] std::string_view role_name(role r) noexcept;
/// Inverse of role_name; nullopt for anything else (including `functions.x`).
[[nodiscard]] std::optional<role> parse_role(std::string_view s) noexcept;

/// How a message ended in the markup.
enum class end_token : std::uint8_t {
  unspecified,   ///< Not known (e.g. from OpenAI JSON); renderers choose the dialect's default.
  end,           ///< <|end|>
  return_,       ///< <|return|> (final answer, sampling stop)
  call,          ///< <|call|> (outgoing tool call)
  unterminated,  ///< The input ended inside the body.
};

/// "end", "return", "call", "unterminated" (empty for unspecified).
[[nodiscard]] std::string_view end_name(end_token e) noexcept;
[[nodiscard]] std::optional<end_token> parse_end(std::string_view s) noexcept;

/// A tool call embedded in a message (PCML `<call>`, ChatML `<tool_call>`, OpenChatML 0.1
/// `<|function_call|>`). The 2.x family writes each call as its own message instead
/// (role assistant, `recipient`, `call_id`); convert() moves between the two shapes.
struct tool_call {
  std::string id;
  std::string name;       ///< Function name without namespace, e.g. "get_weather".
  std::string arguments;  ///< JSON text of the arguments, exactly as written.
  friend bool operator==(const tool_call&, const tool_call&) = default;
};

/// One message of the markup: header attributes plus body.
///
/// Tool replies keep the tool's full name in `name` ("functions.get_weather"),
/// whether the markup wrote `tool name=functions.get_weather` or `functions.get_weather`.
/// `channel` is empty when the markup had no <|channel|>; effective_channel() then
/// reads it as "final" (1.x back-compat, 2.2 §5 rule 2).
struct message {
  ocml::role role = role::user;
  std::string name;          ///< Author name / alias (tool name for role tool).
  std::string recipient;     ///< `to=` destination, e.g. "functions.lookup".
  std::string channel;       ///< "analysis", "commentary", "final" or empty.
  std::string call_id;       ///< `call_id=`.
  std::string intent;        ///< `intent=` ("preamble", "status", "debug").
  std::string content_type;  ///< `content_type=` or harmony's bare type after the channel.
  std::string constrain;     ///< Type after <|constrain|>, e.g. "json".
  std::string content;       ///< Body text, escapes decoded, literal blocks opened.
  /// Reasoning written inside the same message (PCML/ChatML `<think>`, GabGPT's think
  /// segment). The 2.x family writes reasoning as separate `analysis` messages instead.
  std::string reasoning;
  /// Tool calls written inside the message (see tool_call).
  std::vector<tool_call> tool_calls;
  /// OpenChatML 0.1 thought blocks besides <|start_reason|> (which goes to `reasoning`).
  std::string reflection;
  std::string introspection;
  /// OpenChatML 0.1 flags in a system message: "reflect", "introspect", "reason".
  std::vector<std::string> flags;
  end_token end = end_token::unspecified;
  /// Header attributes ocml does not know, in order (kept, never dropped).
  std::vector<std::pair<std::string, std::string>> extra;

  /// The channel with the back-compat default applied: "final" when none was written.
  [[nodiscard]] std::string_view effective_channel() const noexcept {
    return channel.empty() ? std::string_view("final") : std::string_view(channel);
  }
  friend bool operator==(const message&, const message&) = default;
};

/// What the recipient (`to=`) of an assistant message makes of it.
enum class recipient_kind : std::uint8_t {
  none,      ///< No recipient, or a role ("to=assistant"): text, read by its channel.
  function,  ///< A function tool ("functions.get_weather", or any other name): a tool call.
  builtin,   ///< A gpt-oss built-in tool (`browser.*`, `python`, `container.*`), run by the
             ///< engine: kept in the native form; left out of the OpenAI form (decisions 61).
};

/// Classifies a recipient.
///
///   assert(ocml::classify_recipient("functions.f") == ocml::recipient_kind::function);
///   assert(ocml::classify_recipient("browser.search") == ocml::recipient_kind::builtin);
[[nodiscard]] recipient_kind classify_recipient(std::string_view recipient) noexcept;

/// The YAML document header of an OpenChatML 2.x transcript.
struct document_header {
  bool present = false;
  std::string version;  ///< e.g. "2.2"
  std::string model;
  json generation_settings;     ///< null when absent
  json capabilities;            ///< null when absent
  json profiles;                ///< null when absent
  json extra = json::object();  ///< every other key, in order (kept, never dropped)
  friend bool operator==(const document_header&, const document_header&) = default;
};

/// A function tool the conversation offers (OpenAI `tools[].function`).
struct tool {
  std::string name;
  std::string description;
  json parameters;  ///< JSON Schema, or null for a tool without parameters.
  /// The tool object as it was given (e.g. `{"type":"function","function":{...}}` with any
  /// extra keys), kept so templates that print it whole stay byte-exact. May be null.
  json source;
  friend bool operator==(const tool&, const tool&) = default;
};

/// One part of an OpenChatML 0.1 document: text, or a fill-in-the-middle task after the
/// text (`middle` empty = not yet completed). Parts are separated by <|file_separator|>.
struct document_part {
  std::string text;
  bool fim = false;
  std::string prefix;
  std::string middle;
  std::string suffix;
  friend bool operator==(const document_part&, const document_part&) = default;
};

/// A whole conversation: optional document header, messages, tools. A fill-in-the-middle
/// task or a multi-file sequence (OpenChatML 0.1) is a conversation with `document` parts
/// and no messages.
struct conversation {
  document_header header;
  std::vector<message> messages;
  std::vector<tool> tools;
  std::vector<document_part> document;
  friend bool operator==(const conversation&, const conversation&) = default;
};

}  // namespace ocml
