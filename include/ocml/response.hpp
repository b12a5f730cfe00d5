// SPDX-License-Identifier: Apache-2.0
// ocml/response.hpp - a model's own response template: the declarative spec that turns what
// the model generated back into a message (`thinking`, `content`, `tool_calls`…), executed
// as Hugging Face transformers' `parse_response` / `ResponseParser` execute it, streaming.
//
//   auto t = ocml::response_template::from_text(R"({
//     "defaults": {"role": "assistant"}, "start_anchor": "<|im_start|>assistant\n",
//     "fields": {"thinking": {"open": "<think>", "close": "</think>"},
//                "content": {"close": "<|im_end|>"}}})");
//   auto msg = ocml::parse_response(*t, "<think>hm</think>Hi!<|im_end|>");
//   // *msg == {"role": "assistant", "thinking": "hm", "content": "Hi!"}
//
// Streaming: a response_parser takes the generation piece by piece and reports events
// (region_open, region_chunk, region_close, and the markup between regions) with the byte
// span each consumed; the spans tile prefix + generation, and how the generation is chunked
// never changes an event's text, span or value (only how chunks are cut).
//
//   ocml::response_parser p(*t, {.prefix = prompt}, [](const ocml::response_event& e) {
//     if (e.kind == ocml::response_event_kind::region_chunk) std::cout << e.text;
//   });
//   for (auto piece : engine_stream) p.push(piece);
//   ocml::result<ocml::json> message = p.finish();
//
// A loaded template is immutable: run any number of parsers on it from any number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ocml/decoder.hpp"
#include "ocml/error.hpp"
#include "ocml/events.hpp"
#include "ocml/json.hpp"
#include "ocml/model.hpp"

namespace ocml {

namespace resp {
struct spec;
class executor;
}  // namespace resp

/// A compiled response template (the `response_template` of a tokenizer_config.json).
class response_template {
 public:
  /// Loads a spec: `{"defaults", "start_anchor" | "start_anchor_pattern", "fields"}`, or a
  /// tokenizer_config.json that holds one under "response_template". Errors:
  /// E-RESPONSE-TEMPLATE (an unknown key, a bad pattern, two implicit fields…).
  ///
  ///   auto t = ocml::response_template::from_json(spec_json);
  [[nodiscard]] static result<response_template> from_json(const json& spec);
  /// The same from JSON text.
  [[nodiscard]] static result<response_template> from_text(std::string_view json_text);
  /// The same from a file (a spec or a tokenizer_config.json).
  [[nodiscard]] static result<response_template> from_file(const std::string& path);

  /// The field names, in the spec's order.
  [[nodiscard]] std::vector<std::string> fields() const;

 private:
  friend class response_parser;
  std::shared_ptr<const resp::spec> spec_;
};

/// What a response event reports.
enum class response_event_kind : std::uint8_t {
  history,       ///< Prefix bytes up to the last start anchor (earlier turns), dropped.
  structure,     ///< A delimiter that opened or closed a region (`text`).
  region_open,   ///< A region starts (`field`).
  region_chunk,  ///< Bytes of the open region's body (`text`, `dirty`).
  region_close,  ///< The region ended; `value` is its parsed, transformed value.
  unclaimed,     ///< Bytes outside every region (the template has no implicit field).
  diagnostic,    ///< An error or a warning (`diag`).
  /// A part of a call's arguments is complete before its region closes (an XML-style
  /// parameter): `value` is {"key", "value"}, typed as the close will type it. The
  /// region_close value holds it too.
  region_item,
  /// A call in a JSON body begins before its region closes (its name is known and its
  /// arguments object has opened): `call_name`, and `text` the id the body gave it before
  /// its arguments (empty: none). Its arguments follow as region_item events.
  region_call,
};

/// "history", "structure", "region_open", "region_chunk", "region_close", "unclaimed",
/// "diagnostic", "region_item", "region_call".
[[nodiscard]] std::string_view response_event_name(response_event_kind k) noexcept;

/// One event. Views and pointers are valid only during the callback.
struct response_event {
  response_event_kind kind = response_event_kind::region_chunk;
  /// Bytes consumed, as offsets into prefix + generation (the generation's first byte is at
  /// prefix.size()). Empty for region_open, region_close and diagnostics.
  byte_span span;
  std::string_view field;
  std::string_view text;
  /// region_chunk: the field's content is structured (json, xml-inline, kv-lines), so the
  /// raw text is not yet the value.
  bool dirty = false;
  const json* value = nullptr;
  const ocml::diagnostic* diag = nullptr;
  /// The event came from reading the prefix (transformers' `initial_events`).
  bool from_prefix = false;
  /// region_open: the text a `join` puts between the field's earlier value and this one
  /// (empty for the first), and whether the field's text parser strips its value.
  std::string_view separator;
  bool strip = true;
  /// region_open of a call whose arguments arrive as region_item events: the call's name.
  std::string_view call_name;
};

/// One event as a JSON object, as `ocml stream -d model:PATH` writes it (no `--events`):
/// `type` (response_event_name), `field`, `span` as `[begin, end]`, and by kind `text`
/// (with `dirty` for a chunk), `value` (a closed region), or `code`/`severity`/`message`/
/// `line`/`column` (a diagnostic); `prefix: true` for an event read from the prefix.
///
///   ocml::response_parser p(t, {}, [](const ocml::response_event& e) {
///     std::cout << ocml::response_event_json(e).dump() << '\n';
///   });
[[nodiscard]] json response_event_json(const response_event& e);

/// How a response parser reads.
struct response_parser_options {
  /// The prompt the generation continues (its text after the last start anchor is read
  /// first, so regions a template opened, such as `<think>`, are seen).
  std::string_view prefix;
  /// The request's tools (OpenAI form, a JSON array): string arguments of a call to one of
  /// them are cast to the types its JSON Schema declares as each region closes.
  const json* tools = nullptr;
  /// Lenient mode keeps going where transformers raises (a body that is not valid JSON, a
  /// required field missing…): the raw text stands in and a warning says so. Strict mode
  /// (the default, as transformers) fails with the error.
  bool lenient = false;
};

/// The streaming executor of a response template.
class response_parser {
 public:
  using sink = std::function<void(const response_event&)>;
  /// Reads `options.prefix` at once; its events reach `on_event` with from_prefix set.
  response_parser(const response_template& t, const response_parser_options& options,
                  sink on_event);
  ~response_parser();
  response_parser(response_parser&&) noexcept;
  response_parser& operator=(response_parser&&) noexcept;
  response_parser(const response_parser&) = delete;
  response_parser& operator=(const response_parser&) = delete;

  /// Feeds the next piece of generated text.
  void push(std::string_view piece);
  /// Ends the generation: closes the open region and returns the message, or the first
  /// error (E-RESPONSE-CONTENT, E-RESPONSE-MISSING, E-LIMIT-EXCEEDED) in strict mode.
  [[nodiscard]] result<json> finish();
  /// Diagnostics so far (warnings, and errors).
  [[nodiscard]] const std::vector<ocml::diagnostic>& diagnostics() const noexcept;

 private:
  std::unique_ptr<resp::executor> x_;
};

/// One-shot parse: a parser fed `generation` whole.
///
///   auto msg = ocml::parse_response(t, output_text, {.prefix = prompt_text});
[[nodiscard]] result<json> parse_response(const response_template& t, std::string_view generation,
                                          const response_parser_options& options = {});

/// The message parse_response returned, in OpenAI chat form: `content`, `reasoning_content`
/// (from `thinking`, `reasoning` or `reasoning_content`) and `tool_calls` with `id`s
/// (call_ids ids where the model gave none: reproducible with `options.call_id_seed`) and
/// `arguments` as JSON text. A `tool_calls` entry that is no call (text lenient parsing kept
/// where JSON was expected, a number) is appended to `content` as its text, never dropped.
///
///   ocml::response_to_openai({{"role", "assistant"}, {"thinking", "hm"}, {"content", "Hi"}})
///   // {"role": "assistant", "content": "Hi", "reasoning_content": "hm"}
[[nodiscard]] json response_to_openai(const json& message, const openai_options& options = {});

/// The message parse_response returned as a one-message conversation (through its OpenAI
/// form), so a model's output has the shapes a dialect's has: to_openai_json gives
/// `{"messages": [...]}`, to_native_json the native form.
///
///   auto c = ocml::response_to_conversation(j, {.call_id_seed = 7});
///   ocml::json o = ocml::to_openai_json(*c, {});  // {"messages": [{"role": "assistant", …}]}
[[nodiscard]] result<conversation> response_to_conversation(const json& message,
                                                            const openai_options& options = {});

/// Turns response events into the deltas events.hpp's writers take (openai_chunk_writer
/// writes OpenAI chunks): `content` chunks are text, `thinking` chunks reasoning, and each
/// `tool_calls` value is a call: begun at region_open (XML-style parameters) or region_call
/// (JSON), its arguments streamed from region_item events, or else whole at the close
/// (begin, arguments, end); the deltas concatenate to the final arguments. Text regions are
/// streamed as their value will read: white space at a region's start is dropped, and white
/// space is held until more text follows it (Python's strip), never splitting a character.
///
///   ocml::openai_chunk_writer out({}, print_line);
///   ocml::response_projection proj([&](const ocml::delta& d) { out(d); });
///   ocml::response_parser p(t, {}, [&](const ocml::response_event& e) { proj(e); });
class response_projection {
 public:
  using sink = std::function<void(const delta&)>;
  explicit response_projection(sink on_delta, const projection_options& options = {});
  void operator()(const response_event& e);
  /// `tool_calls` when a call was made, else `stop`.
  [[nodiscard]] finish_reason natural_finish() const noexcept;

 private:
  void text(delta_kind k, std::string_view t, std::size_t offset);
  void call(const json& value, std::size_t offset);
  void finish_call(const json& value, std::size_t offset);
  void begin_call(const std::string& id, const std::string& name, std::size_t offset);
  void end_call(const std::string& args, std::size_t offset);
  call_ids ids_;
  sink sink_;
  bool begun_ = false;
  bool started_ = false;  // the open region has written text
  bool strip_ = true;     // the open region's value is stripped
  delta_kind kind_ = delta_kind::text;
  std::string held_;  // white space (or a cut character) not yet sent
  std::size_t held_at_ = 0;
  std::string prefix_text_;  // the open region's text from the prompt, until it goes on
  std::size_t prefix_at_ = 0;
  bool streaming_call_ = false;  // a call begun at its region's open
  std::string streamed_args_;    // the arguments sent so far
  std::size_t calls_ = 0;
};

}  // namespace ocml
