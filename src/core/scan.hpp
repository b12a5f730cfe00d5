// SPDX-License-Identifier: Apache-2.0
// Hot-path byte scanning: find "<|" candidates, count newlines, match control tokens.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ocml::detail {

/// The nine OpenChatML 2.2 control tokens (2.2 §3).
enum class token : std::uint8_t {
  none,
  start,
  channel,
  message,
  call,
  constrain,
  return_,
  end,
  literal,
  endliteral,
};

/// Longest token spelling ("<|endliteral|>" is 14 bytes).
inline constexpr std::size_t max_token_len = 14;

[[nodiscard]] std::string_view token_text(token t) noexcept;

/// Result of matching a control token at a position that begins with "<|".
enum class match_status : std::uint8_t { matched, no_match, need_more };
struct token_match {
  match_status status;
  token tok;
  std::size_t len;
};

/// Matches a control token at p (p[0]=='<', p[1]=='|'), given n available bytes.
[[nodiscard]] token_match match_token(const char* p, std::size_t n) noexcept;

/// Position of the first "<|" in [p, end), or of a final '<' at end-1, or end.
/// A memchr-class scan: 16 bytes per step with SSE2, a byte loop elsewhere.
[[nodiscard]] inline const char* find_token_candidate(const char* p, const char* end) noexcept {
#if defined(__SSE2__)
  const __m128i lt = _mm_set1_epi8('<');
  const __m128i bar = _mm_set1_epi8('|');
  while (end - p >= 17) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 1));
    unsigned mask = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, lt), _mm_cmpeq_epi8(b, bar))));
    if (mask != 0) return p + __builtin_ctz(mask);
    p += 16;
  }
#endif
  while (p < end) {
    const void* hit = std::memchr(p, '<', static_cast<std::size_t>(end - p));
    if (hit == nullptr) return end;
    p = static_cast<const char*>(hit);
    if (p + 1 == end || p[1] == '|') return p;
    ++p;
  }
  return end;
}

/// Number of '\n' bytes in [p, end) and the position just after the last one (or nullptr).
struct newline_count {
  std::size_t count = 0;
  const char* after_last = nullptr;
};
[[nodiscard]] newline_count count_newlines(const char* p, const char* end) noexcept;

/// True for the ASCII whitespace bytes (space, tab, CR, LF, FF, VT).
[[nodiscard]] constexpr bool is_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace ocml::detail
