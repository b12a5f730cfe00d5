// SPDX-License-Identifier: Apache-2.0
// ocml/format_decoder.hpp - one streaming decoder for any format: a dialect's decoder or a
// model's response template, fed bytes or token IDs, writing each event as one JSON text
// (the events `ocml stream` writes) or OpenAI chat-completion chunks. The bindings (Python,
// C) wrap this class; a C++ program that wants typed events uses `decoder`,
// `token_decoder` or `response_parser` directly.
//
//   auto f = ocml::format::find("harmony");
//   ocml::format_decoder d(*f, {.events = ocml::stream_events::openai, .completion = true},
//                          [](std::string_view chunk) { std::cout << chunk << '\n'; });
//   d.push(text);  // as many times as pieces arrive; chunking never changes the output
//   d.finish();    // the last chunks, with finish_reason
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ocml/format.hpp"
#include "ocml/tokens.hpp"

namespace ocml {

/// What a format_decoder writes.
enum class stream_events : std::uint8_t {
  /// The format's own events: a dialect's decoder events (`event`, `offset`, `span`, …: see
  /// event_json_line) or a model's response events (`type`, `span`, …: response_event_json).
  native,
  /// OpenAI `chat.completion.chunk` objects; finish() writes the finish_reason chunk.
  openai,
};

struct format_decoder_options {
  stream_events events = stream_events::native;
  bool lenient = false;
  /// The input is a completion after the generation prompt (a model's output always is).
  bool completion = false;
  /// Token IDs are pushed (push_ids) and read with this tokenizer; it must outlive the
  /// decoder. Null: bytes are pushed.
  const tokenizer* tokens = nullptr;
  /// A model format: the prompt the generation continues, and the request's tools (JSON
  /// text of an OpenAI `tools` array, to type call arguments).
  std::string prefix;
  std::string tools;
  /// Ids for tool calls written without one: reproducible from this seed.
  std::optional<std::uint64_t> call_id_seed;
};

class format_decoder {
 public:
  /// Receives each event's JSON text (valid during the call).
  using sink = std::function<void(std::string_view json_text)>;

  /// Never throws for bad input: a decoder that cannot run (a model format without a
  /// response template, tools that are not JSON) keeps the reason in error().
  format_decoder(format f, format_decoder_options options, sink on_event);
  ~format_decoder();
  format_decoder(format_decoder&&) noexcept;
  format_decoder& operator=(format_decoder&&) noexcept;
  format_decoder(const format_decoder&) = delete;
  format_decoder& operator=(const format_decoder&) = delete;

  /// Why the decoder cannot run (E-JSON-INPUT: the model has no response template, the tools
  /// are not JSON; E-LIMIT-EXCEEDED), or null. push/finish do nothing then.
  [[nodiscard]] const diagnostic* error() const noexcept;

  /// Feeds bytes (a decoder made without `tokens`). False if the decoder takes IDs, was
  /// finished, or cannot run.
  bool push(std::string_view bytes);
  /// Feeds token IDs (a decoder made with `tokens`). False otherwise, as push.
  bool push_ids(std::span<const token_id> ids);
  /// Ends the input. False if it was finished already or cannot run.
  bool finish();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace ocml
