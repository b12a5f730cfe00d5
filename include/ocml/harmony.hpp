// SPDX-License-Identifier: Apache-2.0
// ocml/harmony.hpp - harmony's structured system/developer content and its Conversation JSON.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ocml/error.hpp"
#include "ocml/model.hpp"

namespace ocml::harmony {

enum class reasoning_effort : std::uint8_t { low, medium, high };

/// "low", "medium" or "high" as a reasoning effort; nullopt for anything else.
///
///   ocml::harmony::parse_reasoning_effort("high") == ocml::harmony::reasoning_effort::high
[[nodiscard]] std::optional<reasoning_effort> parse_reasoning_effort(std::string_view s) noexcept;

/// One tool of a namespace (harmony `ToolDescription`).
struct tool_description {
  std::string name;
  std::string description;
  json parameters;  ///< JSON Schema (key order kept) or null.
};

/// A tool namespace (harmony `ToolNamespaceConfig`), e.g. "functions", "browser".
struct tool_namespace {
  std::string name;
  std::optional<std::string> description;
  std::vector<tool_description> tools;
};

/// Harmony's `SystemContent`. Missing fields are omitted from the text.
struct system_content {
  std::optional<std::string> model_identity;
  std::optional<reasoning_effort> effort;
  std::vector<tool_namespace> tools;  ///< Rendered in name order (harmony keeps a BTreeMap).
  std::optional<std::string> conversation_start_date;
  std::optional<std::string> knowledge_cutoff;
  std::vector<std::string> valid_channels;
  bool channel_required = false;
};

/// Harmony's `DeveloperContent`.
struct developer_content {
  std::optional<std::string> instructions;
  std::vector<tool_namespace> tools;
};

/// harmony's `SystemContent::new()` defaults (identity, medium effort, cutoff 2024-06,
/// the three channels, channel required).
[[nodiscard]] system_content default_system_content();
/// The built-in `browser` and `python` namespaces, as harmony defines them.
[[nodiscard]] tool_namespace browser_namespace();
[[nodiscard]] tool_namespace python_namespace();

/// The text of a system message. `has_function_tools` adds the commentary-channel line
/// (harmony adds it when a developer message defines `functions` tools).
///
///   auto text = ocml::harmony::render_system_content(ocml::harmony::default_system_content(),
///   false);
[[nodiscard]] std::string render_system_content(const system_content& s, bool has_function_tools);
/// The text of a developer message: "# Instructions" and the "# Tools" section.
[[nodiscard]] std::string render_developer_content(const developer_content& d);
/// A JSON Schema as harmony's TypeScript-like type, e.g. `{\nlocation: string,\n}`.
[[nodiscard]] std::string schema_to_typescript(const json& schema, std::string_view indent = "");
/// Tools converted to the `functions` namespace.
[[nodiscard]] tool_namespace functions_namespace(const std::vector<tool>& tools);

/// What to put in the harmony system message when building a prompt from a plain
/// conversation (OpenAI JSON, say). Unset fields take harmony's defaults; the document
/// header's generation_settings (reasoning_effort, builtin_tools) apply when set.
struct prompt_options {
  system_content system = default_system_content();
};

/// Builds the gpt-oss prompt conversation harmony expects from a plain one: a harmony
/// system message first (identity, cutoff, date, reasoning effort, built-in tools,
/// channels), then a developer message with the instructions (the conversation's system
/// and developer texts) and the `functions` namespace made from `c.tools`; the other
/// messages follow unchanged.
///
///   auto conv = ocml::from_openai_json(j);
///   auto prompt = ocml::harmony::build_prompt(*conv, {});
///   auto text = ocml::render(prompt, {.dialect = ocml::dialect::harmony,
///                                     .add_generation_prompt = true});
[[nodiscard]] conversation build_prompt(const conversation& c, const prompt_options& options);
/// build_prompt that moves the messages out of `c` instead of copying them.
///
///   conv = ocml::harmony::build_prompt(std::move(conv), {});
[[nodiscard]] conversation build_prompt(conversation&& c, const prompt_options& options);

/// The inverse of build_prompt: a conversation that begins with harmony's system message
/// (and a developer message) is read back as what the preamble says: the instructions as
/// a system message, the `functions` namespace as `tools` (JSON Schema read from the
/// TypeScript-like types harmony writes: objects, descriptions, optional keys, string
/// enums, string, number, boolean, arrays, `| null`; a type it cannot read leaves the tool
/// without parameters); the system message itself (identity, dates, effort, channels) is
/// gpt-oss's own and is left out. Other conversations come back unchanged.
///
///   auto r = ocml::parse(text, {.dialect = ocml::dialect::harmony});
///   auto plain = ocml::harmony::read_prompt(r.conversation);
[[nodiscard]] conversation read_prompt(const conversation& c);

/// Reads harmony's own Conversation JSON (`{"messages":[...]}`, serde shape) into the core
/// model; system_content and developer_content items become their rendered text.
[[nodiscard]] result<conversation> from_conversation_json(const json& j);
/// Writes the core model as harmony's Conversation JSON (content as a list of text items).
[[nodiscard]] json to_conversation_json(const conversation& c);

}  // namespace ocml::harmony
