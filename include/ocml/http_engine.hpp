// SPDX-License-Identifier: Apache-2.0
// ocml/http_engine.hpp - a model behind an OpenAI-compatible completions endpoint
// (llama.cpp server, vLLM, SGLang, TGI): POST /v1/completions with `stream: true`, read as
// server-sent events.
//
//   ocml::http_engine engine({.endpoint = "http://127.0.0.1:8080", .model = "gpt-oss-20b"});
//   auto p = ocml::build_prompt(conv, {.dialect = ocml::dialect::harmony});
//   auto g = ocml::generate(engine, *p, {.dialect = ocml::dialect::harmony});
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "ocml/generate.hpp"
#include "ocml/model.hpp"

namespace ocml {

/// Keep-alive connections to engines, shared by every http_engine given it: a request takes
/// an idle connection to its engine (or opens one) and gives it back when its response ended
/// cleanly. A server making an engine request per client request (`ocml serve`) would
/// otherwise open and close a connection each time: the connect costs a round trip, and
/// thousands of closed sockets a second in TIME_WAIT exhaust the local ports. Thread-safe.
///
///   auto pool = std::make_shared<ocml::http_connections>();
///   ocml::http_engine a({.endpoint = "http://127.0.0.1:8080", .connections = pool});
class http_connections {
 public:
  /// Keeps at most `max_idle` idle connections (the rest are closed when given back).
  explicit http_connections(std::size_t max_idle = 64);
  ~http_connections();
  http_connections(const http_connections&) = delete;
  http_connections& operator=(const http_connections&) = delete;
  /// Idle connections held now.
  [[nodiscard]] std::size_t idle() const;

 private:
  friend class http_engine;
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// Where and how to reach the engine.
struct http_engine_options {
  /// Base URL: "http://host:port", ".../v1" or the full ".../v1/completions".
  std::string endpoint;
  std::string model;    ///< The request's `model` (omitted when empty).
  std::string api_key;  ///< Sent as `Authorization: Bearer ...` when not empty.
  /// Merged into every request body (temperature, seed, top_p, ...).
  json extra = json::object();
  std::chrono::seconds connect_timeout{10};
  std::chrono::seconds read_timeout{300};  ///< Longest silence between two chunks.
  /// Bytes of one response at most (events, keep-alive comments and all): an engine that
  /// streams without end is cut off with E-LIMIT-EXCEEDED, not read into memory forever.
  std::size_t max_response_bytes = std::size_t{64} << 20;
  /// Connections to reuse (null: one connection per request, closed after it).
  std::shared_ptr<http_connections> connections;
};

/// The completions client. Each request sends the prompt, the dialect's stop sequences,
/// `max_tokens`, and asks the engine to keep special tokens in its text
/// (`skip_special_tokens: false`, `spaces_between_special_tokens: false`): the markup is
/// made of them. vLLM's `stop_reason` says which stop sequence matched. An engine that
/// strips them anyway is caught by generate() (E-ENGINE-TOKENS-STRIPPED).
class http_engine final : public engine {
 public:
  explicit http_engine(http_engine_options options);
  /// Errors: E-ENGINE (connection refused, HTTP status other than 200 with the body's
  /// message, an `error` event, malformed event data, a stream that ends without a finish
  /// reason or [DONE]), E-LIMIT-EXCEEDED (max_response_bytes). A request whose
  /// `cancel` is set is stopped within ~50 ms whatever the engine sends.
  [[nodiscard]] result<model_finish> complete(const model_request& request,
                                              const chunk_sink& on_text) override;
  /// Token mode: `prompt` is the array of IDs, `stop_token_ids` the stop IDs, and
  /// `return_token_ids: true` asks for each event's sampled IDs (vLLM's and SGLang's
  /// `token_ids`). An engine that sends text without them is E-ENGINE.
  [[nodiscard]] result<model_finish> complete_tokens(const model_request& request,
                                                     const token_sink& on_tokens) override;

 private:
  // Reads one choice of a stream event: false stops the stream (cancelled, or `failure` set).
  using choice_reader = std::function<bool(const json& choice, std::string& failure)>;
  [[nodiscard]] json body_of(const model_request& request) const;
  [[nodiscard]] result<model_finish> post(const model_request& request, json body,
                                          const choice_reader& on_choice);

  http_engine_options opt_;
  std::string origin_;  // scheme://host:port
  std::string path_;    // /v1/completions (or the endpoint's own path)
};

/// The names before issue 24, for one release.
using http_model [[deprecated("renamed ocml::http_engine")]] = http_engine;
using http_model_options [[deprecated("renamed ocml::http_engine_options")]] = http_engine_options;

}  // namespace ocml
