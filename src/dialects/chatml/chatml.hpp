// SPDX-License-Identifier: Apache-2.0
// ChatML as Qwen2.5-Instruct writes it, with Hermes tool calls (<tools>, <tool_call>,
// <tool_response>): the fixed texts of its template and the codec entry points.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/codec.hpp"
#include "core/message_path.hpp"
#include "core/stream_decoder.hpp"
#include "interchange/simd_json.hpp"
#include "ocml/render.hpp"

namespace ocml::detail::chatml {

inline constexpr std::string_view kDefaultSystem =
    "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.";
inline constexpr std::string_view kToolsHead =
    "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>";
inline constexpr std::string_view kToolsTail =
    "\n</tools>\n\nFor each function call, return a json object with function name and "
    "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": "
    "<function-name>, \"arguments\": <args-json-object>}\n</tool_call>";

enum token_id : std::size_t {
  im_start,
  im_end,
  call_open,
  call_close,
  resp_open,
  resp_close,
  think_open,  // Qwen3 only
  think_close,
};
/// Qwen3's tags: ChatML's six, then the think tags (the registry lists both from here).
inline constexpr std::array<std::string_view, 8> kThinkTokenNames = {
    "<|im_start|>",    "<|im_end|>",       "<tool_call>", "</tool_call>",
    "<tool_response>", "</tool_response>", "<think>",     "</think>"};
inline constexpr std::span<const std::string_view> kTokenNames =
    std::span(kThinkTokenNames).first(6);
inline const std::vector<std::string> kTokens(kTokenNames.begin(), kTokenNames.end());
/// The turn tokens, which end or begin a turn wherever they stand (inside a call's JSON,
/// inside the system turn's tools block): no field may spell them.
inline constexpr std::span<const std::string_view> kTurnTokens = kTokenNames.first(2);
inline const std::vector<std::string> kThinkTokens(kThinkTokenNames.begin(),
                                                   kThinkTokenNames.end());

/// Appends the tool object as templates print it (`tool | tojson`, Python's spelling): as
/// given, else rebuilt from its fields.
void write_tool(const tool& t, std::string& out);
/// Each tool after a newline, as the templates list them; refuses a tool that spells a
/// turn token (E-RENDER-UNREPRESENTABLE naming it).
[[nodiscard]] std::optional<diagnostic> write_tools(const std::vector<tool>& tools,
                                                    std::string& out);
/// Why message `i` cannot be written (its content spells markup ChatML cannot escape),
/// or empty.
[[nodiscard]] std::string forged(const message& m, std::size_t i);
/// Appends `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>` (arguments in Python's
/// json.dumps spelling); the error when the name would break the JSON.
[[nodiscard]] std::optional<diagnostic> write_call(const tool_call& tc, std::size_t i,
                                                   std::size_t j, std::string& out,
                                                   std::vector<diagnostic>* warnings);
/// Appends tool reply `i` as a `<tool_response>` block, opening and closing the user turn
/// that holds a run of replies.
void write_reply(const std::vector<message>& ms, std::size_t i, std::string& out);

/// The warnings both renderers give for what ChatML drops.
/// "messages[MESSAGE].FIELD: WHO cannot hold WHAT (dropped)".
[[nodiscard]] diagnostic dropped(std::size_t message, std::string_view field, std::string_view what,
                                 std::string_view who = "ChatML (Qwen2.5)");
[[nodiscard]] diagnostic dropped_developer(std::size_t message,
                                           std::string_view who = "ChatML (Qwen2.5)");

result<std::string> render(const conversation& c, const render_options& o,
                           std::vector<diagnostic>* warnings);

/// What a parsed ChatML conversation means: the template's default system prompt (written
/// when the conversation has none) is its boilerplate, not a system message.
[[nodiscard]] conversation read_default_system(const conversation& c);

/// The batch hot path: OpenAI JSON text straight to ChatML, appended to `out`. Returns
/// false (and leaves `out` as it was) for anything it does not handle.
bool render_openai_text(std::string_view text, bool add_generation_prompt, std::string& out,
                        std::vector<diagnostic>& warnings);

/// render_openai_text, appended escaped as the inside of a JSON string (a batch line's
/// "text"), in one pass with its own reader (line_render.cpp). It may decline more than
/// render_openai_text does (anything its reader does not take); on false, `out` is as it
/// was.
bool render_openai_json_text(std::string_view text, bool add_generation_prompt, escaped_buffer& out,
                             std::vector<diagnostic>& warnings);
/// render_openai_text through render_openai_json_text's reader (line_render.cpp), writing
/// the text instead of its escaping: the same bytes as render_openai_text where both take
/// the request (tests and the json fuzzer hold them to it), faster (no document is built).
bool render_openai_line_text(std::string_view text, bool add_generation_prompt, std::string& out,
                             std::vector<diagnostic>& warnings);
/// The codec's one-pass hooks (core/codec.hpp): a request read once
/// (one_pass_hooks::read), then written as text or as a batch line's escaped text.
const one_pass_request* read_batch_request(std::string_view json, request_option_values& options);
void write_batch_text(const one_pass_request& request, const render_options& o, std::string& out,
                      std::vector<diagnostic>& warnings);
void write_batch_line(const one_pass_request& request, const render_options& o, text_buffer& out,
                      std::vector<diagnostic>& warnings);
inline constexpr one_pass_hooks kOnePass{read_batch_request, write_batch_text, write_batch_line};
/// What sets a ChatML-family model's markup apart from Qwen2.5's.
struct variant {
  /// `<think>…</think>` at the start of an assistant turn is its reasoning (Qwen3).
  bool think = false;
  /// The tools block of the system turn, from its head to the end of the turn. Qwen2.5's
  /// head begins with the blank line after the system text; otherwise (Qwen3) the system
  /// text, if any, is followed by "\n\n" and a system turn that is only the tools block
  /// holds no system message.
  std::string_view tools_head = kToolsHead;
};

/// The ChatML decoder (Qwen2.5's markup unless `v` says otherwise).
std::unique_ptr<stream_decoder> make_decoder(decoder_options o, decoder::sink s,
                                             const variant& v = {});

}  // namespace ocml::detail::chatml
