// SPDX-License-Identifier: Apache-2.0
// ocml/events.hpp - what a streaming decoder's events mean to a client: visible text,
// reasoning, tool calls; as OpenChatML streaming events or OpenAI chat-completion chunks.
//
// A projection sits behind a decoder and turns its events into deltas, in input order,
// while the model is still streaming. Deltas are never retracted, their concatenation does
// not depend on how the input was chunked, and text from hidden channels (analysis,
// commentary) never appears as visible text.
//
//   ocml::openai_chunk_writer out({.model = "gpt-oss"}, [](std::string_view line) {
//     std::cout << line << '\n';
//   });
//   ocml::projection p({}, [&](const ocml::delta& d) { out(d); });
//   ocml::decoder d({.dialect = ocml::dialect::harmony, .completion = true},
//                   [&](const ocml::event& e) { p(e); });
//   d.push("<|channel|>final<|message|>Hi<|return|>");
//   d.finish();
//   p.finish();
//   out.finish(p.natural_finish());
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "ocml/call_id.hpp"
#include "ocml/decoder.hpp"
#include "ocml/error.hpp"
#include "ocml/model.hpp"

namespace ocml {

/// Why a response ended (OpenAI's `finish_reason`, plus the states a runtime needs).
enum class finish_reason : std::uint8_t {
  none,        ///< Not finished yet.
  stop,        ///< The model stopped on its stop token.
  tool_calls,  ///< The response ends in tool calls waiting for replies.
  length,      ///< A token or byte limit was reached.
  cancelled,   ///< The client cancelled the response.
  error,       ///< The engine or the markup failed (see the diagnostics).
};

/// "stop", "tool_calls", "length", "cancelled", "error" (empty for none).
[[nodiscard]] std::string_view finish_reason_name(finish_reason r) noexcept;

/// What one delta carries.
enum class delta_kind : std::uint8_t {
  message_begin,   ///< An assistant message starts (`channel`, `recipient`, `intent`).
  text,            ///< Visible answer text (`final` channel only).
  reasoning,       ///< Reasoning text (`analysis`, `<think>`, 0.1 thought blocks).
  commentary,      ///< Commentary text without a recipient (`intent` says if a preamble).
  call_begin,      ///< A tool call starts (`call_index`, `call_id`, `name`, `recipient`).
  call_arguments,  ///< Argument text of the open call (`call_index`).
  call_end,        ///< The call's arguments are complete.
  flush,           ///< A paragraph boundary in the visible text (after "\n\n").
  message_end,     ///< The message ended (`end`).
  diagnostic,      ///< A decoder error or warning (`diag`).
  /// Argument text of a call to a built-in tool (harmony's `browser.*`, `python`,
  /// `container.*`: `recipient` names it). The engine runs those, not the client: the OpenAI
  /// chunks leave them out (neither content, reasoning nor a function call), as the folded
  /// OpenAI message does; the native form keeps the call as its own message.
  builtin_call,
};

/// One delta. Views are valid only during the callback.
struct delta {
  delta_kind kind = delta_kind::text;
  std::size_t message_index = 0;  ///< Counts every message of the stream, from 0.
  std::size_t offset = 0;         ///< Byte offset of the text in the decoder's input.
  std::string_view text;
  std::string_view channel;    ///< The effective channel ("final" when none was written).
  std::string_view recipient;  ///< `to=` of the message (2.x calls) or the call's name.
  std::string_view intent;
  /// For reasoning from an OpenChatML 0.1 thought block other than <|start_reason|>:
  /// "reflection" or "introspection" (the OpenAI form keeps them under those keys).
  std::string_view block;
  std::size_t call_index = 0;  ///< Counts the response's tool calls, from 0.
  std::string_view call_id;    ///< The call's id (a call_ids id when it had none).
  std::string_view name;       ///< Function name ("get_weather" for functions.get_weather).
  end_token end = end_token::unspecified;
  const ocml::diagnostic* diag = nullptr;
};

/// Options for projection.
struct projection_options {
  /// Emit `flush` after each "\n\n" of visible text (OpenChatML `response.delta.flush`).
  bool paragraph_flush = true;
  /// Calls without an id get `call_ids` ids (ocml/call_id.hpp): random per projection, or
  /// reproducible from this seed.
  std::optional<std::uint64_t> call_id_seed;
};

/// Turns decoder events into deltas for the assistant's messages (other roles are the
/// prompt). O(1) work per byte of text: a delta points into the event's own text; only the
/// message's header fields and an unfinished UTF-8 sequence (at most 3 bytes, held until
/// its next slice, so no delta ever ends inside a character) are copied.
class projection {
 public:
  using sink = std::function<void(const delta&)>;
  projection(projection_options options, sink on_delta);

  /// Feeds one decoder event.
  void operator()(const event& e);
  /// Declares the end of the stream (closes a call or message left open).
  void finish();
  /// `tool_calls` when the response made a call, else `stop` (a runtime that knows better,
  /// `length` say, passes its own reason on to the writers).
  [[nodiscard]] finish_reason natural_finish() const noexcept;
  /// Tool calls seen so far.
  [[nodiscard]] std::size_t call_count() const noexcept { return calls_; }

 private:
  [[nodiscard]] delta make(delta_kind k, std::size_t offset) const;
  void text(delta_kind k, std::string_view t, std::size_t offset);
  void whole_chars(delta d);
  void deliver(const delta& d);
  void with_flushes(const delta& d);
  void flush_carry();
  void begin_call(std::string_view id, std::string_view name, std::size_t offset);
  void end_call(std::size_t offset);

  projection_options opt_;
  call_ids ids_;
  sink sink_;
  bool in_message_ = false;
  bool projected_ = false;  // the open message is projected (its role qualifies)
  bool call_open_ = false;  // the open message is a 2.x call (its body is the arguments)
  bool streaming_ = false;  // a call_begin event began the call its tool_call event ends
  std::string streamed_;    // the arguments its call_arguments events sent
  bool builtin_ = false;    // the open message calls a built-in tool (browser.*, python)
  bool newline_ = false;    // the visible text so far ends in '\n'
  std::size_t messages_ = 0;
  std::size_t calls_ = 0;
  std::string channel_, recipient_, intent_, call_id_, name_;
  char carry_[4] = {};  // an unfinished UTF-8 sequence
  std::size_t carry_len_ = 0, carry_need_ = 0, carry_offset_ = 0;
  delta_kind carry_kind_ = delta_kind::text;
  std::string_view block_;        // the thought block of the event being projected
  std::string_view carry_block_;  // and of the carried sequence
};

/// Options for the JSON writers.
struct writer_options {
  std::string id = "chatcmpl-ocml";  ///< OpenAI `id` of every chunk.
  std::string model = "ocml";        ///< OpenAI `model`.
  std::int64_t created = 0;          ///< OpenAI `created` (seconds since 1970).
};

/// Writes deltas as OpenAI `chat.completion.chunk` objects, one JSON text per call of the
/// sink: `delta.role` first, then `delta.content`, `delta.reasoning_content` and
/// `delta.tool_calls[{index, id, type, function{name, arguments}}]` (arguments streamed as
/// they arrive). Commentary without a recipient (a preamble) is content, and the text of
/// each further message is joined with "\n", so the chunks folded together equal the
/// non-streamed response (to_openai_json).
/// Diagnostics become `{"error":{...}}` lines. finish() writes the `finish_reason` chunk.
class openai_chunk_writer {
 public:
  using sink = std::function<void(std::string_view json_text)>;
  openai_chunk_writer(writer_options options, sink out);
  void operator()(const delta& d);
  void finish(finish_reason reason);

 private:
  void open();
  void close();
  void role();
  writer_options opt_;
  sink out_;
  std::string head_;  // `{"id":...,"choices":[{"index":0,"delta":` (escaped once)
  std::string buf_;
  bool role_sent_ = false;
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t last_text_ = kNone;       // message_index of the last content written
  std::size_t last_reasoning_ = kNone;  // and of the last reasoning
};

/// Writes deltas as OpenChatML streaming events (2.0 §9, 2.2 §9), one JSON text each, all
/// tagged with `message_id` ("msg_N"): `response.delta` (final text),
/// `response.reasoning_text.delta`, `response.commentary.delta`, `response.delta.flush`,
/// `response.tool_call.begin` / `.arguments.delta`, one `…done` per message
/// (`response.done`, `response.reasoning_text.done`, `response.commentary.done`,
/// `response.tool_call.done`) and `error`. cancel() and tool_cancel() write
/// `response.cancel` and `tool.cancel {call_id, reason}`; finish() writes
/// `response.finish {finish_reason}`. docs/runtime.md lists every field.
class ocml_event_writer {
 public:
  using sink = std::function<void(std::string_view json_text)>;
  explicit ocml_event_writer(sink out);
  void operator()(const delta& d);
  void cancel(std::string_view reason);
  void tool_cancel(std::string_view call_id, std::string_view reason);
  void finish(finish_reason reason);

 private:
  void begin(std::string_view name, std::size_t message_index);
  void end();
  sink out_;
  std::string buf_;
  std::size_t message_ = 0;
  unsigned seen_ = 0;  // bit (1 << delta_kind) for each kind of text the open message had
};

}  // namespace ocml
