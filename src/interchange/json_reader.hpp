// SPDX-License-Identifier: Apache-2.0
// A strict one-pass JSON reader for the batch hot path (OpenAI JSON -> escaped ChatML line).
//
// It reads a plain subset of RFC 8259 and says "no" (false) to everything else: text that
// is not JSON, but also lone surrogates, integers of more than 18 digits, "-0", floats out
// of a double's range and nesting deeper than 64. "No" means "ask the general path", which
// gives the precise error or the exact answer; so the reader never reports where or why.
// It never reads past its input and never allocates: unescaped text goes into an arena of
// fixed capacity (twice the input, enough for every string and one level of JSON nested in
// a string).
//
//   json_arena arena;
//   arena.reset(text.size());
//   json_reader r(text, arena);
//   json_string s;
//   if (r.peek() == '"' && r.string(s) && r.at_end()) { /* s.raw, s.canonical */ }
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "interchange/json_escape.hpp"
#include "interchange/key_set.hpp"

namespace ocml::detail {

/// Room for unescaped strings whose views must stay valid while a line is read.
class json_arena {
 public:
  /// Empties the arena and makes room for the strings of `input_size` bytes of JSON.
  void reset(std::size_t input_size);
  /// `n` bytes to write at the end, or null when the arena is full.
  [[nodiscard]] char* take(std::size_t n) noexcept;
  /// Gives back what take() handed out beyond the first `used` bytes of its last call.
  void give_back(std::size_t n) noexcept { used_ -= n; }

 private:
  std::unique_ptr<char[]> buf_;  // NOLINT(*-avoid-c-arrays): uninitialized scratch
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
};

/// A JSON string as it stands in the text.
struct json_string {
  std::string_view raw;   ///< between the quotes, escapes as written
  bool escaped = false;   ///< raw holds a backslash
  bool canonical = true;  ///< raw is exactly what escaped_buffer::escape writes for the value
};

class json_reader {
 public:
  json_reader(std::string_view text, json_arena& arena) noexcept
      : p_(text.data()), end_(text.data() + text.size()), arena_(arena) {}

  /// The next byte after white space, not consumed ('\0' at the end of the text).
  [[nodiscard]] char peek() noexcept {
    if (p_<end_&& static_cast<unsigned char>(*p_)> ' ') return *p_;  // compact JSON
    return skip_space();
  }
  /// Where the next value begins (after white space): for positions in diagnostics.
  [[nodiscard]] const char* position() noexcept {
    peek();
    return p_;
  }
  /// True when only white space is left.
  [[nodiscard]] bool at_end() noexcept { return peek() == '\0' && p_ == end_; }

  /// Reads a string (the next byte must be '"'), checking its escapes.
  [[nodiscard]] bool string(json_string& s) noexcept {
#if defined(__SSE2__)
    // Most strings are short and plain: their closing quote is in the first 16 bytes.
    if (peek() == '"' && end_ - p_ >= 17) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p_ + 1));
      const __m128i ctrl = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
      const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
      const __m128i hit =
          _mm_or_si128(ctrl, _mm_or_si128(quote, _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
      const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hit));
      const unsigned first = mask & (0u - mask);  // the first special byte
      if ((static_cast<unsigned>(_mm_movemask_epi8(quote)) & first) != 0) {
        const auto n = static_cast<std::size_t>(__builtin_ctz(mask));
        s = {std::string_view(p_ + 1, n), false, true};
        p_ += n + 2;
        return true;
      }
    }
#endif
    return string_slow(s);
  }
  /// The value of `s`: its raw text when it has no escape, else unescaped into the arena.
  [[nodiscard]] bool value_of(const json_string& s, std::string_view& out) noexcept {
    if (s.escaped) return unescape(s, out);
    out = s.raw;
    return true;
  }
  /// Reads `true`, `false` or `null`.
  [[nodiscard]] bool literal(std::string_view& word) noexcept;
  /// Reads a number; `integer` when it has neither fraction nor exponent.
  [[nodiscard]] bool number(std::string_view& raw, bool& integer) noexcept;
  /// Reads and checks one value of any kind.
  [[nodiscard]] bool skip(int depth = 0) noexcept;

  /// Consumes `open` ('{' or '['); `empty` when its closing bracket follows at once (and
  /// is consumed too).
  [[nodiscard]] bool begin(char open, bool& empty) noexcept {
    if (peek() != open) return fail();
    ++p_;
    empty = peek() == (open == '{' ? '}' : ']');
    if (empty) ++p_;
    return true;
  }
  /// Reads an object key and its ':'; `key` is the key's value.
  [[nodiscard]] bool key(json_string& raw, std::string_view& key) noexcept {
    if (!string(raw) || !value_of(raw, key)) return false;
    if (peek() != ':') return fail();
    ++p_;
    return true;
  }
  /// After a member or element: true when ',' follows (consumed); false at `close`
  /// (consumed) or on anything else (then failed() is true).
  [[nodiscard]] bool more(char close) noexcept {
    const char c = peek();
    if (c == ',' || c == close) {
      ++p_;
      return c == ',';
    }
    fail();
    return false;
  }
  [[nodiscard]] bool failed() const noexcept {
    return failed_;
  }

  /// Reads an object, handing each member to `member(key, raw_key)`, which reads its value
  /// (false stops). False for anything else, and for a key given twice (readers disagree
  /// on which one counts).
  template <typename Fn>
  [[nodiscard]] bool object(Fn&& member) {
    bool empty = false;
    if (!begin('{', empty)) return false;
    if (empty) return true;
    key_set seen;
    do {
      json_string raw;
      std::string_view k;
      if (!key(raw, k) || !seen.insert(k) || !member(k, raw)) return false;
    } while (more('}'));
    return !failed_;
  }
  /// Reads an array, calling `element()` to read each element (false stops).
  template <typename Fn>
  [[nodiscard]] bool array(Fn&& element) {
    bool empty = false;
    if (!begin('[', empty)) return false;
    if (empty) return true;
    do {
      if (!element()) return false;
    } while (more(']'));
    return !failed_;
  }

  /// Deepest nesting read() and skip() accept.
  static constexpr int max_depth = 64;

 private:
  char skip_space() noexcept;
  bool string_slow(json_string& s) noexcept;
  bool unescape(const json_string& s, std::string_view& out) noexcept;
  bool fail() noexcept {
    failed_ = true;
    return false;
  }
  const char* p_;
  const char* end_;
  json_arena& arena_;
  bool failed_ = false;
};

/// Python's json.dumps(value, ensure_ascii=False) of the next value of `r`, appended to
/// `out` escaped as the inside of a JSON string. False (with `out` in an unspecified state)
/// for anything the reader declines, and for an object that repeats a key (Python keeps
/// one of them; the general path knows which).
[[nodiscard]] bool python_dump(json_reader& r, escaped_buffer& out, int depth = 0);

/// Writes the value of string `s` read by `r` as Python writes it (a quoted JSON string),
/// escaped as the inside of a JSON string.
[[nodiscard]] bool python_dump_string(json_reader& r, const json_string& s, escaped_buffer& out);
/// python_dump_string for a string whose value is known (a key read by json_reader::key).
void python_dump_key(const json_string& s, std::string_view value, escaped_buffer& out);

/// Unescapes the inside of a JSON string whose escapes are valid (json_reader::string
/// checked them, or ocml escaped it); returns the end of what it wrote into `out`, which
/// has room for raw.size() bytes (no escape grows).
char* unescape_into(std::string_view raw, char* out) noexcept;

/// Writes the object at `r` as Python writes it, escaped, with each member's value written
/// by `value(key)` (which reads it from `r`). False for a repeated key.
template <typename Fn>
[[nodiscard]] bool python_dump_object(json_reader& r, escaped_buffer& out, Fn&& value) {
  out.raw('{');
  bool first = true;
  const bool ok = r.object([&](std::string_view key, const json_string& raw) {
    if (!first) out.raw(", ");
    first = false;
    python_dump_key(raw, key, out);
    out.raw(": ");
    return value(key);
  });
  out.raw('}');
  return ok;
}

}  // namespace ocml::detail
