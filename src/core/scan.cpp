// SPDX-License-Identifier: Apache-2.0
#include "core/scan.hpp"

#include <array>

namespace ocml::detail {

namespace {
constexpr std::array<std::string_view, 10> kTokenText = {
    "",           "<|start|>", "<|channel|>", "<|message|>",    "<|call|>", "<|constrain|>",
    "<|return|>", "<|end|>",   "<|literal|>", "<|endliteral|>",
};
}  // namespace

std::string_view token_text(token t) noexcept {
  return kTokenText[static_cast<std::size_t>(t)];
}

token_match match_token(const char* p, std::size_t n) noexcept {
  bool need_more = false;
  for (std::size_t i = 1; i < kTokenText.size(); ++i) {
    const std::string_view t = kTokenText[i];
    if (n >= t.size()) {
      if (std::memcmp(p, t.data(), t.size()) == 0) {
        return {match_status::matched, static_cast<token>(i), t.size()};
      }
    } else if (std::memcmp(p, t.data(), n) == 0) {
      need_more = true;
    }
  }
  return {need_more ? match_status::need_more : match_status::no_match, token::none, 0};
}

newline_count count_newlines(const char* p, const char* end) noexcept {
  newline_count r;
#if defined(__SSE2__)
  const __m128i nl = _mm_set1_epi8('\n');
  while (end - p >= 16) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, nl)));
    if (mask != 0) {
      r.count += static_cast<std::size_t>(__builtin_popcount(mask));
      r.after_last = p + (31 - __builtin_clz(mask)) + 1;
    }
    p += 16;
  }
#endif
  for (; p < end; ++p) {
    if (*p == '\n') {
      ++r.count;
      r.after_last = p + 1;
    }
  }
  return r;
}

}  // namespace ocml::detail
