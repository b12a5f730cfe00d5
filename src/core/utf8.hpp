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
