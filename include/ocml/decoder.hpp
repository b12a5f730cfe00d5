// SPDX-License-Identifier: Apache-2.0
// ocml/decoder.hpp - the streaming decoder and the one-shot parse built on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ocml/dialect.hpp"
#include "ocml/error.hpp"
#include "ocml/model.hpp"

namespace ocml {

/// Resource bounds: a decoder never grows without bound on hostile input.
struct limits {
  std::size_t max_header_bytes = std::size_t{64} * 1024;             ///< One message header.
  std::size_t max_document_header_bytes = std::size_t{1024} * 1024;  ///< The YAML document header.
  std::size_t max_buffered_body_bytes = std::size_t{256}
                                        << 20;  ///< A body kept for <|constrain|> checks.
  std::size_t max_json_depth = 1024;            ///< Nesting in constrained JSON bodies.
};

/// Qwen3 completions: whether the output begins inside a think block.
enum class think_start : std::uint8_t {
  detect,  ///< Unknown: text is held until `</think>` (it was reasoning) or a tag or the
           ///< end (it was the answer). `<think>` first opens the block as usual.
  open,    ///< The prompt opened it (Qwen3-Thinking templates end in "<think>\n").
  closed,  ///< The prompt closed it (`enable_thinking: false`): the answer streams at once.
};

/// How a decoder reads its input.
struct decoder_options {
  ocml::dialect dialect = dialect::ocml_2_2;
  /// Lenient mode recovers from malformed model output and reports each recovery
  /// as a warning; strict mode rejects it with an error code.
  bool lenient = false;
  /// The input is a completion: it follows a prompt that ended in `<|start|>{completion_role}`,
  /// so it begins inside a header (as harmony's parser does when given a role).
  bool completion = false;
  std::string completion_role = "assistant";
  /// Qwen3: where a completion begins (see think_start).
  ocml::think_start think = think_start::detect;
  ocml::limits limits{};
  /// OpenChatML 0.1: the base model's own BOS/EOS strings.
  std::string bos = "[BOS]";
  std::string eos = "[EOS]";
  /// Harmony: read OpenChatML 2.x's escapes (`<<|end|>` as the text `<|end|>`, and
  /// `<|literal|>…<|endliteral|>`), the mirror of `render_options::openchatml_escapes`.
  /// Off by default: harmony has no escape, so a '<' before a control token is text
  /// (`List<<|return|>` is the answer "List<"). The 2.x dialects always read escapes.
  bool openchatml_escapes = false;
  /// ChatML and Qwen3: send call_begin and call_arguments events while a call's JSON is
  /// written, so its arguments stream (on by default; ocml::parse turns it off, as nobody
  /// listens). The calls are the same either way.
  bool stream_arguments = true;
};

/// What a decoder reports, in input order.
enum class event_kind : std::uint8_t {
  document_header,  ///< The YAML header was parsed (`header` is set).
  message_begin,    ///< A header was parsed (`message` is set, content still empty).
  content,          ///< A slice of body text (`text`), escapes already decoded.
  message_end,      ///< The body ended (`end` says with which token).
  diagnostic,       ///< An error or a warning (`diag` is set).
  reasoning,        ///< A slice of reasoning written inside the message (`text`).
  tool_call,        ///< A complete tool call written inside the message (`call` is set).
  tools,            ///< Tool definitions found in the markup (`tools` is set).
  document_part,    ///< A complete part of an OpenChatML 0.1 document (`part` is set).
  reflection,       ///< A slice of an OpenChatML 0.1 <|start_reflect|> block (`text`).
  introspection,    ///< A slice of an OpenChatML 0.1 <|start_introspect|> block (`text`).
  structure,        ///< Markup consumed: control tokens, role lines, the format's separators.
  skipped,          ///< Bytes dropped (lenient mode, or after a strict error); `text` says why.
  /// A tool call begins before it is complete (`call` has its id, empty for a generated one,
  /// and name; no arguments). Takes no bytes: the call's `tool_call` event, which follows,
  /// covers them. Only decoders that stream arguments send it (ChatML and Qwen3 calls).
  call_begin,
  /// The next part of the begun call's arguments (`text`), as the `tool_call` event's
  /// `arguments` will read: the parts so far are always its start. Takes no bytes.
  call_arguments,
};

/// Bytes [begin, end) of the decoder's input.
struct byte_span {
  std::size_t begin = 0;
  std::size_t end = 0;
  friend bool operator==(const byte_span&, const byte_span&) = default;
};

/// One decoder event. Pointers and views are valid only during the callback.
struct event {
  event_kind kind = event_kind::content;
  std::size_t offset = 0;  ///< Byte offset in the input where the event's text begins.
  std::string_view text;
  const ocml::message* message = nullptr;
  const ocml::document_header* header = nullptr;
  const ocml::diagnostic* diag = nullptr;
  const ocml::tool_call* call = nullptr;
  const std::vector<ocml::tool>* tools = nullptr;
  const ocml::document_part* part = nullptr;
  end_token end = end_token::unspecified;
  /// The input this event consumed. The spans of all events but diagnostics, in order,
  /// tile the input exactly (every dialect): every byte is text (content, reasoning, …),
  /// a call, tools, a document header or part, structure, or skipped. A text event's span
  /// holds exactly its text (an OpenChatML escape's '<' is structure of its own). Message begin and
  /// end markers take no bytes (the tokens around them are structure). Spans never depend on how
  /// the input was chunked.
  byte_span span;
};

/// True when `d`'s decoder reports byte spans that tile its input: every dialect's does
/// (kept for programs written when only some did; docs/decisions.md 27).
///
///   if (ocml::spans_reported(ocml::dialect::chatml)) { /* every byte is in some event */ }
[[nodiscard]] bool spans_reported(dialect d) noexcept;

/// One event as a JSON object on one line, as `ocml stream` writes it: `event` (its kind),
/// `offset`, its fields (`text`, `message` without content, `id`/`name`/`arguments`,
/// `end`, `code`/`severity`/`line`/`column`/`message`, …) and, except for diagnostics,
/// `span` as `[begin, end]`.
///
///   ocml::decoder d({.dialect = ocml::dialect::chatml}, [](const ocml::event& e) {
///     std::cout << ocml::event_json_line(e) << '\n';  // {"event":"content","offset":…}
///   });
[[nodiscard]] std::string event_json_line(const event& e);

/// Streaming decoder for the OpenChatML 2.x family and harmony.
///
/// Feed bytes in any chunking; the events (with adjacent content slices joined)
/// never depend on the chunking. O(1) work per byte; memory bounded by `limits`.
///
///   ocml::decoder d({.dialect = ocml::dialect::harmony}, [](const ocml::event& e) {
///     if (e.kind == ocml::event_kind::content) std::cout << e.text;
///   });
///   d.push("<|start|>assistant<|channel|>final<|mess");
///   d.push("age|>Hi<|return|>");
///   d.finish();
class decoder {
 public:
  using sink = std::function<void(const event&)>;
  decoder(decoder_options options, sink on_event);
  ~decoder();
  decoder(decoder&&) noexcept;
  decoder& operator=(decoder&&) noexcept;
  decoder(const decoder&) = delete;
  decoder& operator=(const decoder&) = delete;

  /// Feeds the next bytes of input.
  void push(std::string_view bytes);
  /// Declares the end of input (reports E-STREAM-TRUNCATED inside a message).
  void finish();
  /// True once a strict-mode error stopped decoding.
  [[nodiscard]] bool failed() const noexcept;
  /// Bytes consumed so far.
  [[nodiscard]] std::size_t offset() const noexcept;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// An event sink in front of another that makes each text event's text whole characters: a
/// text event that ends inside a UTF-8 character (a chunk boundary fell there) keeps that
/// end (at most 3 bytes) until the next text event of the same kind, contiguous, completes
/// it; a diagnostic passes without releasing it; any other event, or flush(), releases it
/// as it is (the input really is not UTF-8 there). Spans stay exact. Use it before writing
/// events as JSON text, whose strings hold whole characters only (`ocml stream` does).
///
///   ocml::whole_characters w([](const ocml::event& e) {
///     std::cout << ocml::event_json_line(e) << '\n';
///   });
///   ocml::decoder d({.dialect = ocml::dialect::chatml}, [&w](const ocml::event& e) { w(e); });
///   d.push(text);
///   d.finish();
///   w.flush();
class whole_characters {
 public:
  explicit whole_characters(decoder::sink out);
  void operator()(const event& e);
  /// Releases a held end (call after the decoder's finish()).
  void flush();

 private:
  decoder::sink out_;
  bool held_ = false;
  event held_e_;
  std::string text_;
};

/// The outcome of a one-shot parse: everything decoded plus every diagnostic.
struct parse_result {
  ocml::conversation conversation;
  std::vector<ocml::diagnostic> diagnostics;
  /// True when no diagnostic has severity error.
  [[nodiscard]] bool ok() const noexcept;
};

/// Builds a conversation from decoder events (what parse() uses; usable with any chunking).
class collector {
 public:
  void operator()(const event& e);
  [[nodiscard]] parse_result take() { return std::move(result_); }
  [[nodiscard]] const parse_result& peek() const noexcept { return result_; }

 private:
  parse_result result_;
  bool open_ = false;
};

/// Parses a whole transcript: the streaming decoder fed everything at once.
///
///   auto r = ocml::parse("<|start|>user<|message|>Hi<|end|>", {});
///   assert(r.ok() && r.conversation.messages[0].content == "Hi");
[[nodiscard]] parse_result parse(std::string_view text, const decoder_options& options);

}  // namespace ocml
