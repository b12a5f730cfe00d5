// SPDX-License-Identifier: Apache-2.0
// Maps byte offsets of a stream to 1-based line:column, counting each byte once.
#pragma once

#include <cstddef>
#include <string_view>

#include "core/scan.hpp"

namespace ocml::detail {

struct position {
  std::size_t line = 1;
  std::size_t column = 1;
};

/// The position reached from `p` after the bytes of `text` (for offsets inside buffered text).
[[nodiscard]] inline position advance(position p, std::string_view text) noexcept {
  const newline_count nc = count_newlines(text.data(), text.data() + text.size());
  if (nc.count == 0) {
    p.column += text.size();
  } else {
    p.line += nc.count;
    p.column = static_cast<std::size_t>(text.data() + text.size() - nc.after_last) + 1;
  }
  return p;
}

/// Counts newlines lazily and monotonically over the bytes of the current buffer.
class line_tracker {
 public:
  /// Declares the buffer that holds absolute offsets [base, base+len).
  void set_buffer(const char* data, std::size_t base, std::size_t len) noexcept {
    data_ = data;
    base_ = base;
    len_ = len;
  }
  /// Position of `abs`; offsets before the counted prefix fall back to the current line.
  [[nodiscard]] position at(std::size_t abs) noexcept {
    if (abs > counted_ && data_ != nullptr) {
      const std::size_t lo = counted_ < base_ ? base_ : counted_;
      const std::size_t hi = abs < base_ + len_ ? abs : base_ + len_;
      if (hi > lo) {
        const newline_count nc = count_newlines(data_ + (lo - base_), data_ + (hi - base_));
        if (nc.count > 0) {
          line_ += nc.count;
          line_start_ = base_ + static_cast<std::size_t>(nc.after_last - data_);
        }
        counted_ = hi;
      }
    }
    position p;
    p.line = line_;
    p.column = abs >= line_start_ ? abs - line_start_ + 1 : 1;
    return p;
  }

 private:
  const char* data_ = nullptr;
  std::size_t base_ = 0;
  std::size_t len_ = 0;
  std::size_t counted_ = 0;
  std::size_t line_ = 1;
  std::size_t line_start_ = 0;
};

}  // namespace ocml::detail
