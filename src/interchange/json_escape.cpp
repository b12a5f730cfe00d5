// SPDX-License-Identifier: Apache-2.0
// JSON string escaping on the batch hot path: 16 bytes a step, stored unconditionally into
// an escaped_buffer with room to spare, so a run of plain bytes costs one store and an
// escape costs a table lookup and one 8-byte store (no std::string call per escape).
#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "interchange/json_escape.hpp"
#include "interchange/simd_json.hpp"
#include "ocml/json.hpp"

namespace ocml::detail {

namespace {

// The escaped form of every byte that needs one (length 0: the byte stands for itself).
struct escape_entry {
  std::array<char, 8> text{};
  unsigned char length = 0;
};
using escape_table = std::array<escape_entry, 256>;

constexpr escape_table make_escapes(bool twice) {
  escape_table t{};
  constexpr const char* hex = "0123456789abcdef";
  // Escaped twice (a JSON string inside a JSON string), every '\' of the first escape
  // doubles and its '"' gains one: "\n" -> "\\n", "\"" -> "\\\"", "\\" -> "\\\\".
  const auto set = [&t, twice](unsigned char c, std::string_view once) {
    std::size_t n = 0;
    for (const char ch : once) {
      if (twice && (ch == '\\' || ch == '"')) t[c].text[n++] = '\\';
      t[c].text[n++] = ch;
    }
    t[c].length = static_cast<unsigned char>(n);
  };
  for (unsigned c = 0; c < 0x20; ++c) {
    const std::array<char, 6> u = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
    set(static_cast<unsigned char>(c), std::string_view(u.data(), u.size()));
  }
  set('"', "\\\"");
  set('\\', "\\\\");
  set('\n', "\\n");
  set('\r', "\\r");
  set('\t', "\\t");
  set('\b', "\\b");
  set('\f', "\\f");
  return t;
}

constexpr escape_table kOnce = make_escapes(false);
constexpr escape_table kTwice = make_escapes(true);

constexpr std::size_t kPiece = std::size_t{1} << 15;  // input bytes escaped per step
constexpr std::size_t kWorst = 8;                     // bytes written per input byte at most

#if defined(__SSE2__)
// One bit per byte of `v` that JSON escapes: a control byte, '"' or '\\'.
inline unsigned escape_hits(__m128i v) {
  const __m128i ctrl = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);  // < 0x20
  const __m128i hit = _mm_or_si128(ctrl, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                                      _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
  return static_cast<unsigned>(_mm_movemask_epi8(hit));
}

// Copies 16 bytes from src to dst and escapes the first escape among the first `limit`
// of them; returns how many input bytes were consumed (16 when none needs escaping).
inline std::size_t escape_step(const escape_table& table, const char* src, unsigned limit,
                               char*& dst) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), v);
  auto mask = escape_hits(v);
  if (limit < 16) mask &= (1u << limit) - 1;
  if (mask == 0) {
    dst += limit;
    return limit;
  }
  const auto skip = static_cast<unsigned>(__builtin_ctz(mask));
  const escape_entry& e = table[static_cast<unsigned char>(src[skip])];
  dst += skip;
  std::memcpy(dst, e.text.data(), 8);
  dst += e.length;
  return skip + 1;
}

// Escapes the 16 bytes at src, every escape among them, into dst (src + 32 is readable):
// each plain run is one unaligned 16-byte copy, each escape one 8-byte store.
inline void escape_block(const escape_table& table, const char* src, char*& dst) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
  auto mask = escape_hits(v);
  unsigned prev = 0;
  while (mask != 0) {
    const auto at = static_cast<unsigned>(__builtin_ctz(mask));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + prev)));
    dst += at - prev;
    const escape_entry& e = table[static_cast<unsigned char>(src[at])];
    std::memcpy(dst, e.text.data(), 8);
    dst += e.length;
    prev = at + 1;
    mask &= mask - 1;
  }
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst),
                   _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + prev)));
  dst += 16 - prev;
}
#endif

// Escapes src[0..n) into dst (room for 8n + 32 bytes); returns the bytes written.
std::size_t escape_piece(const escape_table& table, const char* src, std::size_t n, char* dst) {
  const char* const end = src + n;
  char* const start = dst;
#if defined(__SSE2__)
  for (; end - src >= 32; src += 16) escape_block(table, src, dst);
  while (end - src >= 16) src += escape_step(table, src, 16, dst);
  if (src < end) {  // the tail, through one padded copy (never reading past the input)
    char tail[32];
    auto left = static_cast<unsigned>(end - src);
    std::memset(tail, 'a', sizeof tail);
    std::memcpy(tail, src, left);
    const char* t = tail;
    while (left > 0) {
      const auto used = static_cast<unsigned>(escape_step(table, t, left, dst));
      t += used;
      left -= used;
    }
  }
#else
  while (src < end) {
    const auto c = static_cast<unsigned char>(*src++);
    const escape_entry& e = table[c];
    if (e.length == 0) {
      *dst++ = static_cast<char>(c);
    } else {
      std::memcpy(dst, e.text.data(), 8);
      dst += e.length;
    }
  }
#endif
  return static_cast<std::size_t>(dst - start);
}

// Whether any byte of `w` is a control byte, '"' or '\\' (the test is exact for "any":
// a borrow only ever spreads from a byte that is itself a hit).
inline bool word_needs_escape(std::uint64_t w) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  const auto zero_byte = [](std::uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  const std::uint64_t below_space = (w - kOnes * 0x20) & ~w & kHigh;
  return (below_space | zero_byte(w ^ (kOnes * '"')) | zero_byte(w ^ (kOnes * '\\'))) != 0;
}

// Copies `s` (4 to 63 bytes) to `dst` 8 bytes a step (the last step overlapping the one
// before; 4 twice below 8) while checking each word; false, with `dst` to be overwritten,
// when a byte needs escaping. The usual key or short value: one pass, no call.
inline bool copy_plain(std::string_view s, char* dst) {
  const std::size_t n = s.size();
  if (n < 8) {
    std::uint32_t x = 0;
    std::uint32_t y = 0;
    std::memcpy(&x, s.data(), 4);
    std::memcpy(&y, s.data() + n - 4, 4);
    constexpr std::uint64_t kSpaces = std::uint64_t{0x20202020} << 32;  // never a hit
    if (word_needs_escape(x | kSpaces) || word_needs_escape(y | kSpaces)) return false;
    std::memcpy(dst, &x, 4);
    std::memcpy(dst + n - 4, &y, 4);
    return true;
  }
  std::uint64_t w = 0;
  for (std::size_t at = 0; at + 8 < n; at += 8) {
    std::memcpy(&w, s.data() + at, 8);
    if (word_needs_escape(w)) return false;
    std::memcpy(dst + at, &w, 8);
  }
  std::memcpy(&w, s.data() + n - 8, 8);
  if (word_needs_escape(w)) return false;
  std::memcpy(dst + n - 8, &w, 8);
  return true;
}

}  // namespace

void append_json_string(std::string& out, std::string_view s, bool known_valid_utf8) {
  if (!known_valid_utf8 && !simdjson::validate_utf8(s.data(), s.size())) {
    out += dump_json(json(std::string(s)));  // nlohmann's replacement of invalid bytes
    return;
  }
  out.push_back('"');
  thread_local escaped_buffer escaped;  // one escaping loop: the batch writer's
  escaped.clear();
  escaped.escape(s);
  out += escaped.view();
  out.push_back('"');
}

}  // namespace ocml::detail

void ocml::text_buffer::grow(std::size_t n) {
  const std::size_t capacity = std::max({capacity_ * 2, used_ + n, std::size_t{256}});
  std::unique_ptr<char[]> bigger(new char[capacity]);  // NOLINT(*-avoid-c-arrays)
  if (used_ > 0) std::memcpy(bigger.get(), buf_.get(), used_);
  buf_ = std::move(bigger);
  capacity_ = capacity;
}

void ocml::text_buffer::escape_with(const void* table, std::string_view s) {
  const auto& t = *static_cast<const detail::escape_table*>(table);
  if (s.size() < 16) {  // a byte loop beats the SIMD setup (~1%)
    char* dst = room(detail::kWorst * s.size() + 8);
    char* const start = dst;
    for (const char ch : s) {
      const detail::escape_entry& e = t[static_cast<unsigned char>(ch)];
      if (e.length == 0) {
        *dst++ = ch;
      } else {
        std::memcpy(dst, e.text.data(), 8);
        dst += e.length;
      }
    }
    used_ += static_cast<std::size_t>(dst - start);
    return;
  }
  for (std::size_t at = 0; at < s.size(); at += detail::kPiece) {
    const std::size_t n = std::min(detail::kPiece, s.size() - at);
    used_ += detail::escape_piece(t, s.data() + at, n, room(detail::kWorst * n + 32));
  }
}

// Keys and short values without an escape, nearly all of them: copied as they are checked,
// before the general loop (and its setup) is entered.
bool ocml::text_buffer::plain(std::string_view s) {
  constexpr std::size_t kShort = 64;
  if (s.size() < 4 || s.size() >= kShort || !detail::copy_plain(s, room(s.size()))) return false;
  used_ += s.size();
  return true;
}

void ocml::text_buffer::escape(std::string_view s) {
  if (!plain(s)) escape_with(&detail::kOnce, s);
}

void ocml::text_buffer::escape_twice(std::string_view s) {
  if (!plain(s)) escape_with(&detail::kTwice, s);
}
