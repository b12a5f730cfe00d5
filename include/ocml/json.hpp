// SPDX-License-Identifier: Apache-2.0
// ocml/json.hpp - interchange: OpenAI chat JSON and ocml's lossless native JSON.
#pragma once

#include <cstdint>
#include <optional>

#include <string>
#include <string_view>
#include <vector>

#include "ocml/error.hpp"
#include "ocml/model.hpp"
#include "ocml/render.hpp"
#include "ocml/text_buffer.hpp"

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
  /// Calls written without an id get `call_ids` ids: random per conversation, or
  /// reproducible from this seed (the N-th call of the conversation gets call_ids(seed)(N),
  /// as the N-th call of a projection with the same seed does).
  std::optional<std::uint64_t> call_id_seed;
};

/// The lossless native form: `{"header":..., "tools":[...], "messages":[{one object per
/// markup message}]}` with fields role, name, recipient, channel, call_id, intent,
/// content_type, constrain, content, end, extra (empty fields omitted).
///
///   ocml::json j = ocml::to_native_json(conv);
[[nodiscard]] json to_native_json(const conversation& c);
[[nodiscard]] result<conversation> from_native_json(const json& j);

/// The tools of an OpenAI `tools` array (`{"type": "function", "function": {...}}` entries,
/// or bare `{name, description, parameters}`), or why not (E-JSON-INPUT, naming the entry).
///
///   auto tools = ocml::tools_from_json(
///       *ocml::parse_json_text(R"([{"type": "function", "function": {"name": "f"}}])"));
///   // tools->at(0).name == "f"
[[nodiscard]] result<std::vector<tool>> tools_from_json(const json& tools);

/// `s` as valid UTF-8: every byte that is not part of a whole character becomes U+FFFD, as
/// a tokenizer's decode writes it; `repaired` (when given) says whether any did.
///
///   std::string fixed = ocml::repair_utf8("a\xff" "b");  // "a\xef\xbf\xbd" "b"
[[nodiscard]] std::string repair_utf8(std::string_view s, bool* repaired = nullptr);

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

/// What render_json needs besides the JSON text.
struct json_render_options {
  ocml::render_options render;                  ///< dialect, generation prompt, prefill…
  json_format format = json_format::automatic;  ///< automatic: OpenAI unless native-only keys
  /// Harmony, OpenAI input: the gpt-oss preamble's `Reasoning:` ("low", "medium", "high").
  /// The conversation's own `reasoning_effort` key wins; empty and absent: medium.
  std::string reasoning_effort;
  /// Harmony, OpenAI input: the preamble's `Current date:` (empty: no date line).
  std::string current_date;
  /// The request's own `add_generation_prompt`, `continue_final_message`,
  /// `chat_template_kwargs.enable_thinking` and `reasoning_effort` win over these options,
  /// as vLLM and SGLang read a request (false: the text's messages only).
  bool request_options = true;
};

/// The options a render of dialect `d` starts from, as its registry record says: the
/// dialect, and harmony's prompt rule (analysis before a final answer dropped).
///
///   auto o = ocml::json_render_defaults(ocml::dialect::harmony);  // o.render.drop_analysis
[[nodiscard]] json_render_options json_render_defaults(dialect d);

/// The OpenAI projection's options for what dialect `d` parsed: its reasoning key
/// (`thinking` for OpenChatML 2.0, `reasoning_content` otherwise).
///
///   auto o = ocml::openai_defaults(ocml::dialect::ocml_2_0);  // o.reasoning_key == "thinking"
[[nodiscard]] openai_options openai_defaults(dialect d);

/// A rendered text, or why not, with every diagnostic pointing into the JSON input: its
/// message begins with the input's JSON path (`messages[2].tool_calls[1].function.arguments:
/// …` for OpenAI input) and it stands at that value's line:column.
struct json_render_result {
  std::string text;
  std::vector<diagnostic> diagnostics;  ///< warnings, then the error if it failed
  [[nodiscard]] bool ok() const noexcept;
};

/// Renders a conversation given as JSON text: the OpenAI chat form unless `format` (or a
/// native-only key) says otherwise. For harmony, OpenAI input gets gpt-oss's system
/// preamble and its instructions and tools as the developer message (build_prompt). The
/// request's own options apply (`request_options`), and OpenAI JSON to ChatML takes the
/// one-pass reader the CLI uses (the same text as the general path, faster).
///
///   auto r = ocml::render_json(R"({"messages":[{"role":"user","content":"Hi"}]})",
///                              {.render = {.dialect = ocml::dialect::chatml}});
///   // r.text == "<|im_start|>system\nYou are Qwen, …<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
[[nodiscard]] json_render_result render_json(std::string_view json_text,
                                             const json_render_options& options);

/// render_json as one line of a JSON Lines batch: appends `{"text": "<the prompt>"}` to
/// `line` (nothing when it fails) and the diagnostics to `diagnostics`. OpenAI JSON to
/// ChatML is written escaped in one pass, as `ocml render --jsonl` writes it.
///
///   ocml::text_buffer line;
///   std::vector<ocml::diagnostic> diags;
///   ocml::render_json_line(R"({"messages":[{"role":"user","content":"Hi"}]})",
///                          {.render = {.dialect = ocml::dialect::chatml}}, line, diags);
///   // line.view() == R"({"text":"<|im_start|>system\nYou are Qwen, …"})"
void render_json_line(std::string_view json_text, const json_render_options& options,
                      text_buffer& line, std::vector<diagnostic>& diagnostics);

/// Appends `s` to `out` as a JSON string literal (quotes included, compact, non-ASCII raw,
/// bytes that are not UTF-8 as U+FFFD): a line of JSON written without building a tree.
///
///   std::string line = "{\"text\":";
///   ocml::append_json_quoted(line, "say \"hi\"");
///   line += '}';  // {"text":"say \"hi\""}
void append_json_quoted(std::string& out, std::string_view s);

/// Serializes JSON; invalid UTF-8 in strings is written as U+FFFD (never throws).
[[nodiscard]] std::string dump_json(const json& j, int indent = -1);

}  // namespace ocml
