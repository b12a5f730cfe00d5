// SPDX-License-Identifier: Apache-2.0
#include "core/utf8.hpp"

#include <simdjson.h>

namespace ocml::detail {

namespace {
// Expected sequence length for a lead byte, 0 when the byte cannot start a sequence.
constexpr std::size_t seq_len(unsigned char c) noexcept {
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return 2;
  if (c >= 0xE0 && c <= 0xEF) return 3;
  if (c >= 0xF0 && c <= 0xF4) return 4;
  return 0;
}
// Valid range for the second byte of a sequence, per lead byte (RFC 3629 table).
constexpr bool second_ok(unsigned char lead, unsigned char b) noexcept {
  if (lead == 0xE0) return b >= 0xA0 && b <= 0xBF;
  if (lead == 0xED) return b >= 0x80 && b <= 0x9F;
  if (lead == 0xF0) return b >= 0x90 && b <= 0xBF;
  if (lead == 0xF4) return b >= 0x80 && b <= 0x8F;
  return b >= 0x80 && b <= 0xBF;
}
}  // namespace

std::size_t utf8_first_invalid(const unsigned char* s, std::size_t n, bool allow_partial_tail,
                               std::size_t* tail_start) noexcept {
  if (tail_start != nullptr) *tail_start = n;
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    const std::size_t len = seq_len(c);
    if (len == 0) return i;
    for (std::size_t k = 1; k < len; ++k) {
      if (i + k >= n) {
        if (allow_partial_tail) {
          if (tail_start != nullptr) *tail_start = i;
          return n;
        }
        return i;
      }
      const unsigned char b = s[i + k];
      const bool ok = k == 1 ? second_ok(c, b) : (b >= 0x80 && b <= 0xBF);
      if (!ok) return i;
    }
    i += len;
  }
  return n;
}

std::size_t utf8_stream::feed(std::string_view piece, std::size_t at) noexcept {
  if (failed_ || piece.empty()) return npos;
  const auto* p = reinterpret_cast<const unsigned char*>(piece.data());
  std::size_t n = piece.size();
  std::size_t used = 0;
  if (pending_len_ > 0) {
    // Complete the sequence left over from the previous piece.
    const std::size_t need = seq_len(pending_[0]);
    while (pending_len_ < need && used < n) pending_[pending_len_++] = p[used++];
    std::size_t tail = 0;
    const std::size_t bad = utf8_first_invalid(pending_, pending_len_, true, &tail);
    if (bad < pending_len_) {
      failed_ = true;
      return pending_at_;  // the sequence began in an earlier piece
    }
    if (tail < pending_len_) return npos;  // still incomplete (piece was tiny)
    pending_len_ = 0;
  }
  p += used;
  n -= used;
  if (n == 0) return npos;
  // Find where a trailing partial sequence begins (at most 3 bytes back).
  std::size_t cut = n;
  for (std::size_t back = 1; back <= 3 && back <= n; ++back) {
    const unsigned char c = p[n - back];
    if (c >= 0xC0) {
      if (seq_len(c) > back) cut = n - back;
      break;
    }
    if (c < 0x80) break;
  }
  if (!simdjson::validate_utf8(reinterpret_cast<const char*>(p), cut)) {
    failed_ = true;
    return at + used + utf8_first_invalid(p, cut, false, nullptr);
  }
  // The unfinished tail may already be wrong (E0 9F: no second byte below A0 after E0),
  // as it would be found if its bytes came in later pieces.
  std::size_t tail = 0;
  if (utf8_first_invalid(p + cut, n - cut, true, &tail) < n - cut) {
    failed_ = true;
    return at + used + cut;
  }
  pending_at_ = at + used + cut;
  for (std::size_t i = cut; i < n; ++i) pending_[pending_len_++] = p[i];
  return npos;
}

}  // namespace ocml::detail
