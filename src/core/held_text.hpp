// SPDX-License-Identifier: Apache-2.0
// Text a decoder holds back until it knows what it was (a system turn read to its end, to
// take a tools block out of it), kept with the input offset and position of each piece so
// it can be emitted later in input order, each slice with its own span. Bytes between the
// pieces (control tokens that were taken as markup) become structure when emitted.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/emitter.hpp"

namespace ocml::detail {

class held_text {
 public:
  void clear() {
    text_.clear();
    pieces_.clear();
  }
  /// Holds `t`, the input at `off`, whose first byte is at `pos`.
  void append(std::string_view t, std::size_t off, position pos) {
    if (t.empty()) return;
    if (!pieces_.empty()) {
      const piece& last = pieces_.back();
      if (last.off + (text_.size() - last.at) == off) {  // contiguous: one piece
        text_.append(t);
        return;
      }
    }
    pieces_.push_back({text_.size(), off, pos});
    text_.append(t);
  }
  /// Drops the last held byte (a separator the format writes, not text).
  void pop_back() {
    if (text_.empty()) return;
    text_.pop_back();
    if (pieces_.back().at == text_.size()) pieces_.pop_back();
  }
  [[nodiscard]] const std::string& str() const noexcept { return text_; }
  [[nodiscard]] std::size_t size() const noexcept { return text_.size(); }
  [[nodiscard]] bool empty() const noexcept { return text_.empty(); }

  /// Emits held bytes [from, to) as content slices, each after structure up to its start.
  void emit(emitter& em, std::size_t from, std::size_t to) const {
    for (std::size_t k = 0; k < pieces_.size() && from < to; ++k) {
      const piece& p = pieces_[k];
      const std::size_t end = k + 1 < pieces_.size() ? pieces_[k + 1].at : text_.size();
      if (end <= from) continue;
      const std::size_t a = from > p.at ? from : p.at;
      const std::size_t b = end < to ? end : to;
      const std::string_view s = std::string_view(text_).substr(a, b - a);
      const std::size_t off = p.off + (a - p.at);
      em.structure(off);
      em.text_at(s, off, advance(p.pos, std::string_view(text_).substr(p.at, a - p.at)));
      from = b;
    }
  }
  /// The input offset of held byte `i` (`i` may be the size: just past the last byte).
  [[nodiscard]] std::size_t offset_of(std::size_t i) const noexcept {
    std::size_t k = pieces_.size();
    while (k > 0 && pieces_[k - 1].at > i) --k;
    return k == 0 ? 0 : pieces_[k - 1].off + (i - pieces_[k - 1].at);
  }

 private:
  struct piece {
    std::size_t at;   // index in text_
    std::size_t off;  // input offset of text_[at]
    position pos;     // its line:column
  };
  std::string text_;
  std::vector<piece> pieces_;
};

}  // namespace ocml::detail
