// SPDX-License-Identifier: Apache-2.0
// The codec registry type: one record per dialect, from which everything that lists or
// switches on dialects takes what it needs (rendering, decoding, names and aliases, stop
// strings, the features a dialect can hold). The table itself lives above core, in
// src/dialects/registry.cpp: adding a dialect is one folder plus one record there.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/stream_decoder.hpp"
#include "ocml/dialect.hpp"
#include "ocml/render.hpp"

namespace ocml::detail {

/// What a conversation may hold; a codec's `holds` says which of them its dialect can.
enum feature : std::uint32_t {
  f_system = 1U << 0,
  f_developer = 1U << 1,
  f_tool_replies = 1U << 2,
  f_tool_calls = 1U << 3,
  f_call_ids = 1U << 4,
  f_author_names = 1U << 5,
  f_reasoning = 1U << 6,
  f_intent = 1U << 7,
  f_content_type = 1U << 8,
  f_constrain = 1U << 9,
  f_extra_attributes = 1U << 10,
  f_thought_blocks = 1U << 11,
  f_thought_flags = 1U << 12,
  f_document_header = 1U << 13,
  f_tool_definitions = 1U << 14,
  f_documents = 1U << 15,
  /// Calls to built-in tools (harmony's browser.*, python, container.*) and their replies.
  f_builtin_tools = 1U << 16,
};

/// How a dialect writes assistant turns: calls and reasoning inside one message
/// (`grouped`: ChatML, PCML, …) or as messages of their own (`split`: the 2.x family).
enum class turn_shape : std::uint8_t { grouped, split };

struct codec {
  dialect_info info;  ///< id, name, summary, aliases, control tokens, stop strings
  std::string_view family;
  turn_shape shape;
  std::uint32_t holds;  ///< feature bits
  result<std::string> (*render)(const conversation&, const render_options&,
                                std::vector<diagnostic>*);
  std::unique_ptr<stream_decoder> (*make_decoder)(decoder_options, decoder::sink);
  /// Attribute keys the dialect's markup gives a meaning (PCML's name/id, 2.2's to/call_id…):
  /// an extra attribute by such a name is not written (it would be read back as structure).
  std::span<const std::string_view> reserved_keys = {};
  /// Features the dialect does not hold but expresses otherwise, so their loss is not a
  /// warning (harmony: call ids; its replies answer calls by name and order).
  std::uint32_t defined_away = 0;
  /// Reads what the dialect's own preamble means back into plain fields (harmony: the
  /// gpt-oss system and developer messages into instructions and tools); null: nothing to
  /// read.
  conversation (*read_preamble)(const conversation&) = nullptr;
  /// The request kwargs (`chat_template_kwargs`) the dialect reads, by the names models'
  /// templates use: `enable_thinking`, `reasoning_effort`, `current_date`,
  /// `auto_drop_analysis`, `bos_token`, `eos_token` (ocml::format maps each to its one
  /// option). A key no record lists is a warning naming it.
  std::span<const std::string_view> kwargs = {};
  /// A prompt drops analysis before a final answer (harmony's rule, openai/harmony's
  /// auto_drop_analysis): the default of json_render_defaults.
  bool drops_analysis = false;
  /// The OpenAI key for reasoning when this dialect's parse is written as OpenAI JSON
  /// (OpenChatML 2.0 §10 says `thinking`).
  std::string_view reasoning_key = "reasoning_content";
};

/// Whether text of `c` carries OpenChatML's escape syntax: the 2.x family's does; harmony's
/// only when asked (`openchatml_escapes`), as its own text has none.
[[nodiscard]] inline bool writes_escapes(const codec& c, bool openchatml_escapes) noexcept {
  return c.family == "openchatml" && (c.info.id != dialect::harmony || openchatml_escapes);
}

}  // namespace ocml::detail
