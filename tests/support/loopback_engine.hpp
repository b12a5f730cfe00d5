// SPDX-License-Identifier: Apache-2.0
// A local OpenAI-compatible completions server for tests: POST /v1/completions with
// `stream: true` answered by scripted replies as server-sent events, the way vLLM does
// (stop sequences cut and reported in `stop_reason`, max_tokens counted in bytes).
// Bounded: requests past `max_requests` get HTTP 429; socket timeouts of 5 seconds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ocml::test {

/// One scripted reply. In token mode the engine cuts at the first of the request's
/// `stop_token_ids` and reports it as an integer `stop_reason`; max_tokens counts IDs.
struct engine_reply {
  std::string text;            ///< What the model writes (may run past a stop sequence).
  std::size_t chunk = 8;       ///< Bytes per SSE event.
  bool strip_special = false;  ///< Remove every `<|...|>` token (skip_special_tokens=true).
  bool no_finish = false;      ///< End with [DONE] but no finish_reason (engine died).
  bool report_stop = true;     ///< Say which stop sequence matched (`stop_reason`).
  int status = 200;            ///< Anything else: an OpenAI-style error body.
  int delay_ms = 0;            ///< Pause before each chunk.
  // Hostile engines (issue 13), each bounded by `hostile_ms` and by stop():
  bool silent = false;      ///< Send the headers, then nothing.
  bool keep_alive = false;  ///< Send only SSE comments (": keep-alive"), every 20 ms.
  bool endless = false;     ///< Stream `text` over and over (with status != 200: as the body).
  bool cut = false;         ///< Close the stream after `text`, without finish or [DONE].
  int hostile_ms = 20000;
  // Token mode (a request with `return_token_ids`), as vLLM answers it:
  std::vector<std::uint32_t> ids;    ///< The sampled IDs (`chunk` per event).
  bool stop_token_in_output = true;  ///< Send the stop ID that matched as well.
  bool no_token_ids = false;         ///< An engine without return_token_ids: text only.
};

class loopback_engine {
 public:
  explicit loopback_engine(std::vector<engine_reply> replies, std::size_t max_requests = 32);
  ~loopback_engine();
  loopback_engine(const loopback_engine&) = delete;
  loopback_engine& operator=(const loopback_engine&) = delete;

  [[nodiscard]] int port() const;
  [[nodiscard]] std::string url() const;  ///< "http://127.0.0.1:PORT"
  /// The JSON bodies received so far.
  [[nodiscard]] std::vector<nlohmann::json> requests() const;
  /// Hostile replies that ran to their end (`hostile_ms`) rather than being cut off by
  /// the client going away.
  [[nodiscard]] std::size_t hostile_completed() const;
  /// Load tests: the replies are used in turn without end (no 429), and only the first 64
  /// request bodies are kept (`served()` counts them all).
  void cycle();
  [[nodiscard]] std::size_t served() const;
  /// Blocks until the server stops (stop()).
  void wait();
  void stop();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace ocml::test
