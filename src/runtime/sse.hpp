// SPDX-License-Identifier: Apache-2.0
// Server-sent events (the WHATWG event-stream format): bytes in any chunking, one callback
// per event with its `data:` lines joined by '\n'. Comments and other fields are skipped.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace ocml::detail {

class sse_parser {
 public:
  /// Receives each event's data; returning false stops the parser (feed() returns false).
  using sink = std::function<bool(std::string_view data)>;
  explicit sse_parser(sink on_event) : sink_(std::move(on_event)) {}

  /// Feeds bytes; false once the sink said stop (or a line grew beyond `max_line`).
  bool feed(std::string_view bytes);
  /// Bytes of the longest line accepted (a hostile server cannot grow memory without end).
  static constexpr std::size_t max_line = std::size_t{16} << 20;

 private:
  bool line(std::string_view l);
  sink sink_;
  std::string partial_;  // an unfinished line
  std::string data_;     // data lines of the current event
  bool has_data_ = false;
  bool stopped_ = false;
};

}  // namespace ocml::detail
