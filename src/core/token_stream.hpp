// SPDX-License-Identifier: Apache-2.0
// A chunk-invariant splitter of a byte stream into text and control tokens, for dialects
// whose markup has no escapes (ChatML, PCML, GabGPT, OpenChatML 0.1). Only a possible
// token prefix (shorter than the longest token) is ever carried between pushes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/line_tracker.hpp"

namespace ocml::detail {

class token_stream {
 public:
  /// Receives the pieces in order. Token ids index the table given to the constructor.
  class handler {
   public:
    virtual ~handler() = default;
    virtual void on_text(std::string_view text, std::size_t offset) = 0;
    virtual void on_token(std::size_t id, std::size_t offset) = 0;
    /// True once decoding stopped (the rest of the input is skipped).
    [[nodiscard]] virtual bool stopped() const noexcept = 0;
  };

  explicit token_stream(std::vector<std::string> tokens);
  void push(std::string_view bytes, handler& h);
  /// Flushes a carried token prefix as text.
  void finish(handler& h);
  [[nodiscard]] std::size_t consumed() const noexcept { return consumed_; }
  [[nodiscard]] position at(std::size_t abs) noexcept { return lines_.at(abs); }
  [[nodiscard]] line_tracker& lines() noexcept { return lines_; }
  [[nodiscard]] const std::string& token_text(std::size_t id) const { return tokens_[id]; }

 private:
  std::size_t run(const char* p, std::size_t n, std::size_t base, bool final, handler& h);
  [[nodiscard]] const char* find_candidate(const char* p, const char* end) const noexcept;

  std::vector<std::string> tokens_;
  std::string first_bytes_;
  std::size_t max_len_ = 0;
  std::size_t consumed_ = 0;
  std::string carry_;
  line_tracker lines_;
};

}  // namespace ocml::detail
