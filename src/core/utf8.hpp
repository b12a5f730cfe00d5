// SPDX-License-Identifier: Apache-2.0
// Incremental UTF-8 validation across arbitrary chunk boundaries.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ocml::detail {

/// Scalar check of [s, s+n): the offset of the first invalid byte, or n when all is valid.
/// When `allow_partial_tail` is set, a sequence cut short by the end counts as valid and
/// `*tail_start` receives where it begins (n if none).
[[nodiscard]] std::size_t utf8_first_invalid(const unsigned char* s, std::size_t n,
                                             bool allow_partial_tail,
                                             std::size_t* tail_start) noexcept;

/// Bytes of `s` that may be kept without cutting a UTF-8 sequence, at most `n`.
[[nodiscard]] inline std::size_t utf8_cut(std::string_view s, std::size_t n) noexcept {
  if (n >= s.size()) return s.size();
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return n;
}

/// The length of `s` without a UTF-8 sequence that its end cuts short.
///
///   utf8_whole("ab\xe6\x97") == 2
[[nodiscard]] inline std::size_t utf8_whole(std::string_view s) noexcept {
  const std::size_t n = s.size();
  for (std::size_t back = 1; back <= 3 && back <= n; ++back) {
    const auto b = static_cast<unsigned char>(s[n - back]);
    if ((b & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    const std::size_t need = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}

/// `s` with each byte that does not begin a valid UTF-8 sequence replaced by U+FFFD (the
/// way text from a user, a tool or an engine is made fit for JSON); `repaired` (when
/// given) says whether anything was replaced.
///
///   valid_utf8("a\xffb") == "a\xef\xbf\xbdb"
[[nodiscard]] inline std::string valid_utf8(std::string_view s, bool* repaired = nullptr) {
  std::string out;
  bool any = false;
  for (;;) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const std::size_t bad = utf8_first_invalid(p, s.size(), false, nullptr);
    out.append(s.substr(0, bad));
    if (bad == s.size()) break;
    out += "\xef\xbf\xbd";
    any = true;
    s.remove_prefix(bad + 1);
  }
  if (repaired != nullptr) *repaired = any;
  return out;
}

/// Appends the UTF-8 of code point `cp` (below 0x110000).
///
///   std::string s; append_utf8(s, 0x65E5);  // "日"
inline void append_utf8(std::string& out, unsigned long cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

/// Decodes the code point at `s[i]` and moves `i` past it; a byte that cannot begin a
/// sequence, or a sequence cut short by the end, reads as that one byte.
///
///   std::size_t i = 0; decode_utf8("\xe6\x97\xa5", i) == 0x65E5 && i == 3
[[nodiscard]] inline char32_t decode_utf8(std::string_view s, std::size_t& i) noexcept {
  const auto b = static_cast<unsigned char>(s[i]);
  std::size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
  if ((b >= 0x80 && b < 0xC0) || i + n > s.size()) n = 1;
  char32_t c = n == 1 ? b : n == 2 ? b & 0x1F : n == 3 ? b & 0x0F : b & 0x07;
  for (std::size_t k = 1; k < n; ++k) c = (c << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += n;
  return c;
}

/// Python's str.isspace for one character.
[[nodiscard]] inline bool py_isspace(char32_t c) noexcept {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

/// `s` without the white space Python's str.strip() removes (only the ends are decoded).
///
///   py_strip_ws(" a b\u3000") == "a b"
[[nodiscard]] inline std::string_view py_strip_ws(std::string_view s, bool left = true,
                                                  bool right = true) noexcept {
  std::size_t b = 0;
  std::size_t e = s.size();
  while (left && b < e) {
    std::size_t i = b;
    if (!py_isspace(decode_utf8(s, i))) break;
    b = i;
  }
  while (right && e > b) {
    std::size_t k = e - 1;
    while (k > b && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
    std::size_t i = k;
    if (!py_isspace(decode_utf8(s, i)) || i != e) break;
    e = k;
  }
  return s.substr(b, e - b);
}

/// Validates a byte stream piece by piece; sequences split across pieces are handled.
class utf8_stream {
 public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  /// Feeds the next piece, which begins at absolute offset `at`; returns the absolute
  /// offset of the first byte of the first invalid sequence (which may lie in an earlier
  /// piece), or npos. After the first error the stream stops checking until reset().
  [[nodiscard]] std::size_t feed(std::string_view piece, std::size_t at) noexcept;
  /// True when the stream ended inside a multi-byte sequence.
  [[nodiscard]] bool incomplete() const noexcept { return !failed_ && pending_len_ > 0; }
  [[nodiscard]] bool failed() const noexcept { return failed_; }
  /// Absolute offset where the incomplete trailing sequence begins.
  [[nodiscard]] std::size_t pending_at() const noexcept { return pending_at_; }
  void reset() noexcept {
    pending_len_ = 0;
    failed_ = false;
  }

 private:
  unsigned char pending_[4] = {};
  std::size_t pending_len_ = 0;
  std::size_t pending_at_ = 0;  // absolute offset of pending_[0]
  bool failed_ = false;
};

}  // namespace ocml::detail
