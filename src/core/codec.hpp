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

#include "core/message_path.hpp"
#include "core/stream_decoder.hpp"
#include "ocml/dialect.hpp"
#include "ocml/render.hpp"
#include "ocml/text_buffer.hpp"

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

/// Whether a dialect's text carries OpenChatML's escape syntax (`<|literal|>`, `\\<|`).
enum class escape_rule : std::uint8_t {
  none,        ///< never (ChatML, PCML, …)
  always,      ///< the 2.x family
  on_request,  ///< harmony: only with render_options::openchatml_escapes
};

/// A dialect whose reasoning is a generation round of its own (GabGPT's think mode): the
/// prompt ends with `prompt_tail` instead of a generation prompt, the completion opens in
/// role `role`, and the model writing `answer` starts a second round, the answer's.
struct think_round {
  std::string_view prompt_tail;
  std::string_view role;
  std::string_view answer;
};

/// What a preamble is built from (request kwargs of the same names).
struct preamble_request {
  std::string_view reasoning_effort;
  std::string_view current_date;
};

/// A dialect that begins every prompt with a system preamble of its own, built from plain
/// fields (harmony: gpt-oss's system and developer messages).
struct preamble_hooks {
  /// True when `c` already begins with the preamble (read from the dialect's own markup).
  bool (*present)(const conversation& c);
  /// `c` with the preamble put in front of it (its system/developer text moved inside).
  conversation (*build)(conversation&& c, const preamble_request& request);
  /// For build(c, …): where each message of the result came from.
  origin_map (*origins)(const conversation& c);
};

/// What a one-pass reader gathered from a request (a dialect's own type, opaque here).
struct one_pass_request;

/// The raw JSON values of a request's own options, as a one-pass reader found them at the
/// top level (empty: absent).
struct request_option_values {
  std::string_view add_generation_prompt;
  std::string_view continue_final_message;
  std::string_view reasoning_effort;
  std::string_view chat_template_kwargs;

  /// Where the value of a top-level `key` goes, or null for a key that is no option.
  [[nodiscard]] std::string_view* slot(std::string_view key) noexcept {
    if (key == "add_generation_prompt") return &add_generation_prompt;
    if (key == "continue_final_message") return &continue_final_message;
    if (key == "reasoning_effort") return &reasoning_effort;
    if (key == "chat_template_kwargs") return &chat_template_kwargs;
    return nullptr;
  }
};

/// A dialect's one-pass renderer of OpenAI chat JSON (ChatML's, Qwen3's): it declines
/// (false) what it does not take, and the general path answers then; the caller drops what
/// a declining renderer appended to `out` and `warnings`. It reads the options the
/// dialect's renderer reads (add_generation_prompt; Qwen3: enable_thinking, keep_reasoning).
struct one_pass_hooks {
  /// A request in two steps, so that it is read once: `read` gathers it (null: declined)
  /// and says where the request's own options stand (raw JSON values, empty when absent);
  /// the caller applies them, then a writer appends the text. The gathered request is
  /// valid on the reading thread until its next `read`.
  const one_pass_request* (*read)(std::string_view json, request_option_values& options);
  /// Appends the text (render_json).
  void (*write_text)(const one_pass_request& request, const render_options& options,
                     std::string& out, std::vector<diagnostic>& warnings);
  /// Appends the text escaped as the inside of a JSON string (a batch line's "text").
  void (*write_json_text)(const one_pass_request& request, const render_options& options,
                          text_buffer& out, std::vector<diagnostic>& warnings);
};

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
  escape_rule escapes = escape_rule::none;
  /// Null unless reasoning is a round of its own (GabGPT).
  const think_round* think = nullptr;
  /// Null unless the dialect builds a preamble (harmony).
  const preamble_hooks* preamble = nullptr;
  /// Null unless the dialect has a one-pass OpenAI renderer (ChatML).
  const one_pass_hooks* one_pass = nullptr;
  /// A tool's reply message keeps ocml's reply envelope as its content (2.2 §tool replies);
  /// otherwise the content is the result (or an {"error": …} object) alone.
  bool tool_reply_envelope = false;
  /// What `ocml view` shows for the dialect's markup when the dialect has display rules of
  /// its own (GabGPT's user/thinking/assistant bubbles); null: the parsed conversation.
  std::string (*view)(std::string_view markup) = nullptr;
};

/// Whether text of `c` carries OpenChatML's escape syntax: the 2.x family's does; harmony's
/// only when asked (`openchatml_escapes`), as its own text has none.
[[nodiscard]] inline bool writes_escapes(const codec& c, bool openchatml_escapes) noexcept {
  return c.escapes == escape_rule::always ||
         (c.escapes == escape_rule::on_request && openchatml_escapes);
}

}  // namespace ocml::detail
