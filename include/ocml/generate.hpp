// SPDX-License-Identifier: Apache-2.0
// ocml/generate.hpp - the generation loop: a prompt goes to a model, text streams back,
// each dialect's stop rules apply, and the completion is decoded while it arrives.
//
//   ocml::scripted_engine engine({{.text = "<|channel|>final<|message|>Hi<|return|>"}});
//   auto p = ocml::build_prompt(conv, {.dialect = ocml::dialect::harmony});
//   auto g = ocml::generate(engine, *p, {.dialect = ocml::dialect::harmony},
//                           [](const ocml::delta& d) {
//                             if (d.kind == ocml::delta_kind::text) std::cout << d.text;
//                           });
//   // g.finish == ocml::finish_reason::stop, g.messages[0].content == "Hi"
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ocml/dialect.hpp"
#include "ocml/error.hpp"
#include "ocml/events.hpp"
#include "ocml/model.hpp"
#include "ocml/prompt.hpp"
#include "ocml/token_render.hpp"
#include "ocml/tokens.hpp"

namespace ocml {

/// A flag one thread sets and others poll (Ctrl-C, a client that went away).
class cancellation {
 public:
  void cancel() noexcept { flag_.store(true, std::memory_order_release); }
  [[nodiscard]] bool cancelled() const noexcept { return flag_.load(std::memory_order_acquire); }
  void reset() noexcept { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> flag_{false};
};

/// What a model is asked to do.
struct model_request {
  std::string prompt;
  std::vector<std::string> stop;  ///< Stop sequences (the engine leaves them out of its text).
  std::size_t max_tokens = 0;     ///< 0: the engine's default.
  /// Token mode (complete_tokens): the prompt as IDs, and the IDs that end the completion
  /// (vLLM's `stop_token_ids`).
  std::vector<token_id> prompt_ids;
  std::vector<token_id> stop_token_ids;
  /// When set, a model stops the request soon after it is cancelled, even while the engine
  /// sends nothing (silent, keep-alive comments only, an error body without end).
  const cancellation* cancel = nullptr;
};

/// How a model's stream ended.
enum class engine_stop : std::uint8_t {
  stop,    ///< The engine stopped on a stop sequence or its end-of-sequence token.
  length,  ///< The engine hit max_tokens.
  eof,     ///< The stream ended without a finish reason (connection lost, engine crash).
};

/// The end of one model stream.
struct model_finish {
  engine_stop reason = engine_stop::stop;
  /// The stop sequence that matched, when the engine says (vLLM's `stop_reason`).
  std::string stop_sequence;
  /// The stop token ID that matched, when the engine says (vLLM's integer `stop_reason`).
  std::optional<token_id> stop_token;
};

/// An inference engine: prompt and stop sequences in, text chunks out.
class engine {
 public:
  /// Receives each text chunk; returning false cancels the stream.
  using chunk_sink = std::function<bool(std::string_view text)>;
  /// Receives each chunk of sampled token IDs; returning false cancels the stream.
  using token_sink = std::function<bool(std::span<const token_id> ids)>;
  virtual ~engine() = default;
  /// Streams the completion of `request`. A cancelled stream (the sink said false) still
  /// returns a model_finish; errors are E-ENGINE diagnostics.
  [[nodiscard]] virtual result<model_finish> complete(const model_request& request,
                                                      const chunk_sink& on_text) = 0;
  /// Token mode: `request.prompt_ids` in, sampled IDs out. An engine may stop on
  /// `request.stop_token_ids` (with or without the stop ID in its output) or run past them:
  /// generate() stops on them itself. The default refuses (E-ENGINE): the model streams
  /// text only.
  [[nodiscard]] virtual result<model_finish> complete_tokens(const model_request& request,
                                                             const token_sink& on_tokens);
};

/// One scripted reply of scripted_engine.
struct scripted_response {
  std::string text;        ///< What the "model" writes (may run past its stop sequences).
  std::size_t chunk = 16;  ///< Bytes per streamed chunk.
  /// End the stream without a finish reason after `text` (a dropped connection).
  bool drop_connection = false;
  /// Token mode: the sampled IDs (`chunk` IDs per streamed chunk).
  std::vector<token_id> ids;
  /// Stream past the request's stop sequences and stop IDs, like an engine that was not
  /// told them: generate() must stop by itself.
  bool ignore_stops = false;
  /// Token mode: keep the stop ID in the output (an engine that samples it and sends it).
  bool stop_token_in_output = false;
};

/// Replays scripted replies in order, behaving like an engine: it stops before the first
/// stop sequence of the request (reporting which), honours max_tokens (one byte is one
/// token; in token mode one ID) and records every request. For tests and demos.
class scripted_engine final : public engine {
 public:
  explicit scripted_engine(std::vector<scripted_response> responses);
  [[nodiscard]] result<model_finish> complete(const model_request& request,
                                              const chunk_sink& on_text) override;
  [[nodiscard]] result<model_finish> complete_tokens(const model_request& request,
                                                     const token_sink& on_tokens) override;
  /// Every request received, in order.
  [[nodiscard]] const std::vector<model_request>& requests() const noexcept { return requests_; }

 private:
  // Records `request` and gives the reply to it (E-ENGINE when none is left).
  [[nodiscard]] result<const scripted_response*> take(const model_request& request);
  std::vector<scripted_response> responses_;
  std::vector<model_request> requests_;
};

/// The names before issue 24, for one release: `ocml::model` was the engine interface (the
/// conversation model is ocml/model.hpp's).
using model [[deprecated("renamed ocml::engine")]] = engine;
using scripted_model [[deprecated("renamed ocml::scripted_engine")]] = scripted_engine;

/// How to run a generation.
struct generate_options {
  ocml::dialect dialect = dialect::ocml_2_2;
  /// GabGPT think mode (the prompt ends in <|think|>): when the model never writes
  /// <|assistant|>, a second round appends it and generates the answer.
  bool think = false;
  std::size_t max_tokens = 0;  ///< Sent to the engine (0: its default).
  std::size_t max_bytes = 0;   ///< Local limit on completion bytes (0: none).
  bool lenient = false;        ///< Decode the completion leniently.
  cancellation* cancel = nullptr;
  /// Token mode: the prompt goes to the engine as IDs of this tokenizer (encoded under
  /// `policy`, see encode_markup), the engine's sampled IDs are decoded by a token_decoder
  /// (structure only from special IDs), and the loop stops on the dialect's stop-token IDs
  /// whether or not the engine does. A stop token the vocabulary lacks is E-TOKEN-UNKNOWN.
  const tokenizer* tokens = nullptr;
  token_policy policy = token_policy::harmony;
  /// Ids of the calls the model writes without one: random per generation (OpenAI's call_
  /// shape), or reproducible from this seed (ocml/call_id.hpp).
  std::optional<std::uint64_t> call_id_seed;
  /// The caller's own stop strings (OpenAI `stop`), text mode only: sent to the engine with
  /// the dialect's and watched in the stream too. The completion ends before the first one
  /// found, which is left out of the text (as OpenAI leaves it out), with finish `stop`.
  std::vector<std::string> stop;

  /// Whether the engine stopped on one of the caller's stop strings (`engine_finish`'s
  /// stop_sequence, empty when it names none):
  ///
  ///   ocml::generate_options o{.stop = {"\n\n"}};
  ///   bool mine = o.callers_stop("\n\n");  // true
  [[nodiscard]] bool callers_stop(std::string_view sequence) const {
    return !sequence.empty() && std::find(stop.begin(), stop.end(), sequence) != stop.end();
  }
};

/// The outcome of a generation.
struct generation {
  /// The completion as markup, stop tokens restored: the prompt plus this text is the
  /// transcript (GabGPT's second round includes the <|assistant|> it appended).
  std::string text;
  std::vector<message> messages;  ///< The completion, decoded.
  finish_reason finish = finish_reason::none;
  std::vector<diagnostic> diagnostics;
  std::size_t rounds = 0;  ///< Engine requests made (2 for GabGPT's second round).
  /// Token mode: the completion's IDs, stop ID restored (`text` is what they spell).
  std::vector<token_id> token_ids;
  /// Token mode: the IDs of the prompt sent (0 in text mode).
  std::size_t prompt_tokens = 0;
};

/// Runs `p` on `engine`, applying the dialect's stop rules: <|return|> and <|call|> are
/// hard stops (2.2 §12.8), a 2.x `final` message closed by <|end|> also ends the response;
/// ChatML and 0.1 stop on <|im_end|>, PCML on <end>, GabGPT on <|end|> (with the
/// think -> assistant watch and second round). A stop the engine cut from its text is put
/// back so the decoder sees whole messages. Deltas reach `on_delta` as text arrives.
/// finish: stop / tool_calls, length (max_tokens or max_bytes), cancelled, or error
/// (E-ENGINE, E-ENGINE-TOKENS-STRIPPED, or E-STREAM-TRUNCATED when the engine stopped
/// without a stop token).
[[nodiscard]] generation generate(engine& engine, const prompt& p, const generate_options& options,
                                  const std::function<void(const delta&)>& on_delta = {});

}  // namespace ocml
