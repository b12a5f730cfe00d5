// SPDX-License-Identifier: Apache-2.0
// The pre-tokenizer scanners. Each alternative of the regex is a function that returns the
// end of its match at a position, or npos; they are tried in the regex's order.
#include "tokens/pretokenize.hpp"

#include "tokens/unicode.hpp"

namespace ocml::detail {

namespace {

namespace u = unicode;
constexpr std::size_t npos = std::string_view::npos;

constexpr std::string_view kO200k =
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'"
    "s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}"
    "\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/"
    "]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
constexpr std::string_view kCl100k =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
constexpr std::string_view kQwen2 =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
constexpr std::string_view kTekken =
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+|[^"
    "\\r\\n\\p{"
    "L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*|\\p{N}| "
    "?[^\\s\\p{L}\\p{N}]+["
    "\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
constexpr std::string_view kGpt2 =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

// The text being scanned, with class lookups by byte position.
struct cursor {
  const unsigned char* b;
  std::size_t n;

  [[nodiscard]] u::decoded at(std::size_t i) const noexcept { return u::decode(b + i, b + n); }
  [[nodiscard]] std::uint8_t cls(std::size_t i) const noexcept {
    return b[i] < 0x80 ? ascii_class(b[i]) : u::classes(at(i).cp);
  }
  [[nodiscard]] std::size_t len(std::size_t i) const noexcept {
    return b[i] < 0x80 ? 1 : at(i).len;
  }
  [[nodiscard]] bool newline(std::size_t i) const noexcept { return b[i] == '\r' || b[i] == '\n'; }

  static std::uint8_t ascii_class(unsigned char c) noexcept {
    if (c >= 'a' && c <= 'z') return u::Ll;
    if (c >= 'A' && c <= 'Z') return u::Lu;
    if (c >= '0' && c <= '9') return u::N;
    if (c == ' ' || (c >= '\t' && c <= '\r')) return u::WS;
    return 0;
  }
  // The end of the run of characters from `i` whose classes meet `mask`.
  [[nodiscard]] std::size_t run(std::size_t i, std::uint8_t mask) const noexcept {
    while (i < n && (cls(i) & mask) != 0) i += len(i);
    return i;
  }
};

constexpr std::uint8_t kUpperish = u::Lu | u::Lt | u::Lm | u::Lo | u::M;  // o200k's first class
constexpr std::uint8_t kLowerish = u::Ll | u::Lm | u::Lo | u::M;          // and its second

// (?i:'s|'t|'re|'ve|'m|'ll|'d) at i (ASCII, and U+017F, which folds to s): its end or npos.
std::size_t contraction(const cursor& c, std::size_t i, bool fold_case) {
  if (i + 1 >= c.n || c.b[i] != '\'') return npos;
  const auto lower = [&](std::size_t k) -> int {
    const int ch = c.b[k];
    return fold_case && ch >= 'A' && ch <= 'Z' ? ch + 32 : ch;
  };
  const int x = lower(i + 1);
  if (x == 's' || x == 't' || x == 'm' || x == 'd') return i + 2;
  if (fold_case && c.b[i + 1] == 0xC5 && i + 2 < c.n && c.b[i + 2] == 0xBF) return i + 3;  // ſ
  if (i + 2 < c.n) {
    const int y = lower(i + 2);
    if ((x == 'r' && y == 'e') || (x == 'v' && y == 'e') || (x == 'l' && y == 'l')) return i + 3;
  }
  return npos;
}

// [^\r\n\p{L}\p{N}] at i: its end, or npos.
std::size_t not_letter_digit_newline(const cursor& c, std::size_t i) {
  if (i >= c.n || c.newline(i) || (c.cls(i) & (u::L | u::N)) != 0) return npos;
  return i + c.len(i);
}

// The white-space alternatives `\s*[\r\n]+|\s+(?!\S)|\s+` at i.
std::size_t spaces(const cursor& c, std::size_t i) {
  const std::size_t j = c.run(i, u::WS);
  if (j == i) return npos;
  // \s*[\r\n]+: \s* gives back down to the last newline of the run.
  for (std::size_t q = j; q > i; --q) {
    if (c.newline(q - 1)) return q;
  }
  if (j == c.n) return j;  // \s+(?!\S) at the end
  // \s+(?!\S) gives back the run's last character (one byte or more) if that leaves one.
  std::size_t last = i;
  for (std::size_t k = i; k < j; k += c.len(k)) last = k;
  return last > i ? last : j;  // else \s+
}

// What may follow the punctuation run: nothing (GPT-2), `[\r\n]*` or `[\r\n/]*` (o200k).
enum class trail : unsigned char { none, newlines, newlines_slash };

// ` ?[^\s\p{L}\p{N}]+` and its trailing class.
std::size_t punctuation(const cursor& c, std::size_t i, trail t) {
  std::size_t k = i;
  if (c.b[k] == ' ') ++k;
  const auto other = [&](std::size_t x) {
    return x < c.n && (c.cls(x) & (u::WS | u::L | u::N)) == 0;
  };
  if (!other(k)) return npos;
  while (other(k)) k += c.len(k);
  if (t == trail::none) return k;
  while (k < c.n && (c.newline(k) || (t == trail::newlines_slash && c.b[k] == '/'))) ++k;
  return k;
}

// o200k's first alternative from s: [upperish]*[lowerish]+ (after the optional prefix).
std::size_t o200k_lower_word(const cursor& c, std::size_t s) {
  std::size_t k = s;
  std::size_t last_lower = npos;  // the last lowerish character in [s, k)
  while (k < c.n && (c.cls(k) & kUpperish) != 0) {
    if ((c.cls(k) & kLowerish) != 0) last_lower = k;
    k += c.len(k);
  }
  if (k < c.n && (c.cls(k) & kLowerish) != 0) return c.run(k, kLowerish);
  if (last_lower == npos) return npos;
  return last_lower + c.len(last_lower);  // A* gave back down to it; B+ takes it alone
}

// o200k's second alternative from s: [upperish]+[lowerish]*.
std::size_t o200k_upper_word(const cursor& c, std::size_t s) {
  const std::size_t k = c.run(s, kUpperish);
  if (k == s) return npos;
  return c.run(k, kLowerish);
}

std::size_t with_contraction(const cursor& c, std::size_t e, bool contractions) {
  const std::size_t x = contractions ? contraction(c, e, true) : npos;
  return x == npos ? e : x;
}

// o200k's regex, and Mistral's Tekken (no contractions, one digit a piece).
std::size_t o200k(const cursor& c, std::size_t i, bool contractions, int max_digits) {
  const std::size_t p = not_letter_digit_newline(c, i);
  for (auto word : {o200k_lower_word, o200k_upper_word}) {
    if (p != npos) {
      if (const std::size_t e = word(c, p); e != npos) return with_contraction(c, e, contractions);
    }
    if (const std::size_t e = word(c, i); e != npos) return with_contraction(c, e, contractions);
  }
  if ((c.cls(i) & u::N) != 0) {
    std::size_t k = i;
    for (int d = 0; d < max_digits && k < c.n && (c.cls(k) & u::N) != 0; ++d) k += c.len(k);
    return k;
  }
  if (const std::size_t e = punctuation(c, i, trail::newlines_slash); e != npos) return e;
  return spaces(c, i);
}

std::size_t cl100k_like(const cursor& c, std::size_t i, int max_digits) {
  if (const std::size_t e = contraction(c, i, true); e != npos) return e;
  const std::size_t p = not_letter_digit_newline(c, i);
  if (p != npos && p < c.n && (c.cls(p) & u::L) != 0) return c.run(p, u::L);
  if ((c.cls(i) & u::L) != 0) return c.run(i, u::L);
  if ((c.cls(i) & u::N) != 0) {
    std::size_t k = i;
    for (int d = 0; d < max_digits && k < c.n && (c.cls(k) & u::N) != 0; ++d) k += c.len(k);
    return k;
  }
  if (const std::size_t e = punctuation(c, i, trail::newlines); e != npos) return e;
  return spaces(c, i);
}

std::size_t gpt2(const cursor& c, std::size_t i) {
  if (const std::size_t e = contraction(c, i, false); e != npos) return e;
  const std::size_t k = c.b[i] == ' ' ? i + 1 : i;
  if (k < c.n) {
    if ((c.cls(k) & u::L) != 0) return c.run(k, u::L);
    if ((c.cls(k) & u::N) != 0) return c.run(k, u::N);
  }
  if (const std::size_t e = punctuation(c, i, trail::none); e != npos) return e;
  // \s+(?!\S)|\s+ (no newline alternative)
  const std::size_t j = c.run(i, u::WS);
  if (j == c.n) return j;
  std::size_t last = i;
  for (std::size_t q = i; q < j; q += c.len(q)) last = q;
  return last > i ? last : j;
}

}  // namespace

std::optional<pretokenizer> recognize_pattern(std::string_view regex) noexcept {
  if (regex == kO200k) return pretokenizer::o200k;
  if (regex == kCl100k) return pretokenizer::cl100k;
  if (regex == kQwen2) return pretokenizer::qwen2;
  if (regex == kGpt2) return pretokenizer::gpt2;
  if (regex == kTekken) return pretokenizer::tekken;
  return std::nullopt;
}

std::string_view pattern_of(pretokenizer p) noexcept {
  switch (p) {
    case pretokenizer::o200k:
      return kO200k;
    case pretokenizer::cl100k:
      return kCl100k;
    case pretokenizer::qwen2:
      return kQwen2;
    case pretokenizer::gpt2:
      return kGpt2;
    case pretokenizer::tekken:
      return kTekken;
  }
  return {};
}

std::size_t next_piece(pretokenizer p, std::string_view text, std::size_t at) noexcept {
  const cursor c{reinterpret_cast<const unsigned char*>(text.data()), text.size()};
  std::size_t e = npos;
  switch (p) {
    case pretokenizer::o200k:
      e = o200k(c, at, true, 3);
      break;
    case pretokenizer::tekken:
      e = o200k(c, at, false, 1);
      break;
    case pretokenizer::cl100k:
      e = cl100k_like(c, at, 3);
      break;
    case pretokenizer::qwen2:
      e = cl100k_like(c, at, 1);
      break;
    case pretokenizer::gpt2:
      e = gpt2(c, at);
      break;
  }
  return e == npos || e <= at ? c.len(at) : e - at;  // every character matches; never stall
}

}  // namespace ocml::detail
