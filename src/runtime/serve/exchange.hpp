// SPDX-License-Identifier: Apache-2.0
// One chat request in flight: a worker thread runs the generation and queues what is to be
// sent; the HTTP thread takes it from the queue, under the request's deadline.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "runtime/serve/chat.hpp"

namespace ocml::serve {

class exchange {
 public:
  using clock = std::chrono::steady_clock;

  /// Starts the generation of `prompt`. With `stream`, every chunk (a whole SSE event,
  /// "data: …\n\n") is queued as it is made; otherwise only the outcome is kept.
  exchange(const serve_options& o, chat_request r, std::string prompt, std::string id,
           std::string model, std::int64_t created);
  ~exchange();
  exchange(const exchange&) = delete;
  exchange& operator=(const exchange&) = delete;

  /// Waits until something is queued, the generation ends, or `until`; moves the queued
  /// events into `out`. True once the generation has ended and nothing is left.
  bool take(std::string& out, clock::time_point until);
  /// Whether the model has written anything yet (a chunk was queued).
  [[nodiscard]] bool began();
  /// Cancels the generation (the client went away, or the deadline passed).
  void cancel(bool timed_out);
  /// Waits for the worker; the outcome is then final.
  const chat_outcome& finish();
  [[nodiscard]] bool timed_out() const noexcept { return timed_out_; }
  [[nodiscard]] const chat_request& request() const noexcept { return req_; }

 private:
  void work();
  void push(std::string_view events);

  const serve_options& o_;
  chat_request req_;
  std::string prompt_, id_, model_;
  std::int64_t created_;
  cancellation cancel_;
  std::mutex m_;
  std::condition_variable cv_;
  std::string queued_;
  bool began_ = false, done_ = false, timed_out_ = false;
  chat_outcome outcome_;
  std::thread worker_;
};

}  // namespace ocml::serve
