// SPDX-License-Identifier: Apache-2.0
// ocml/serve.hpp - `ocml serve`: an OpenAI-compatible chat server in front of any completions
// engine. A chat request is rendered by ocml (a dialect, or a model's own templates), sent to
// the engine's /v1/completions, and what the engine streams back is decoded by ocml's
// streaming decoder under the format's stop rules, into `content`, `reasoning_content` and
// `tool_calls` (chat.completion, or chat.completion.chunk events).
//
//   auto f = ocml::format::find("harmony").value();
//   ocml::chat_server server({.engine = {.endpoint = "http://127.0.0.1:8080"}, .format = f});
//   auto port = server.bind();  // E-IO when the port is taken
//   if (port) server.listen();  // until server.stop(), from any thread
//
// Endpoints: POST /v1/chat/completions, GET /v1/models, GET /health, and with a tokenizer
// POST /tokenize and /detokenize (vLLM's); the playground at / and its API under /ocml/.
// docs/serve.md says what each field does.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ocml/error.hpp"
#include "ocml/format.hpp"
#include "ocml/http_engine.hpp"
#include "ocml/tokens.hpp"

namespace ocml {

/// What one client may ask of the server.
struct serve_limits {
  std::size_t max_request_bytes = std::size_t{8} << 20;  ///< Larger bodies: 413.
  /// Chat requests running at once; more get 429 at once (not queued).
  std::size_t max_concurrency = 32;
  /// Longest a chat request may run, engine time included: then it is cancelled (504, or a
  /// `timeout` error event once the stream has begun).
  std::chrono::seconds request_timeout{600};
  /// Longest a client may take to send its request or to take what is sent to it.
  std::chrono::seconds client_timeout{30};
  /// Bytes of one completion at most (an engine that never stops is cut: `length`).
  std::size_t max_completion_bytes = std::size_t{4} << 20;
  /// `max_tokens` sent when the request has none (vLLM's completions API defaults to 16).
  std::size_t default_max_tokens = 8192;
};

/// How to serve.
struct serve_options {
  std::string host = "127.0.0.1";
  int port = 8000;  ///< 0: any free port (bind() says which).
  http_engine_options engine;
  /// The format prompts are rendered in and completions parsed with: a dialect, or a model
  /// format from `format::find("model:PATH")` (with a response template).
  ocml::format format = dialect::harmony;
  /// Token mode (a dialect only): prompts go to the engine as IDs, the engine's sampled IDs
  /// come back, and generation stops on stop-token IDs. With a model format it counts
  /// usage and serves /tokenize only. Must outlive the server. Null: text mode, no usage.
  const tokenizer* tokens = nullptr;
  /// The model name /v1/models lists; a request naming another model is 404 (empty: the
  /// format's name, and any request's `model` is accepted).
  std::string model_name;
  serve_limits limits;
  /// One line per request (method, path, status, tokens, latency) and the start-up line.
  /// Empty: standard error.
  std::function<void(std::string_view line)> log;
  /// The playground at / (a page that renders conversations and parses completions through
  /// GET /ocml/formats, POST /ocml/render and /ocml/parse; docs/serve.md).
  bool playground = true;
  /// Reproducible ids for the tool calls the model writes without one (tests); random
  /// otherwise, OpenAI's call_ shape.
  std::optional<std::uint64_t> call_id_seed;
};

/// The HTTP server. Requests are served on a pool of threads; a streamed response runs its
/// generation on a thread of its own, so a client that stops reading cancels the engine
/// request rather than holding it.
class chat_server {
 public:
  explicit chat_server(serve_options options);
  ~chat_server();
  chat_server(const chat_server&) = delete;
  chat_server& operator=(const chat_server&) = delete;

  /// Binds the host and port. Returns the port (the one chosen when the options said 0).
  /// Errors: E-IO (the address is taken or not valid).
  ///
  ///   ocml::chat_server s({.port = 0, .engine = {.endpoint = "http://127.0.0.1:8080"}});
  ///   auto port = s.bind();  // *port: the free port the system chose
  [[nodiscard]] result<int> bind();
  /// Serves until stop(). False when it could not (not bound).
  bool listen();
  /// Stops listen() (from any thread); running generations are cancelled.
  void stop();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace ocml
