// SPDX-License-Identifier: Apache-2.0
// Unicode classes the pre-tokenizer patterns ask about (\p{L}, \p{Lu}, \p{N}, \p{M}, \s as
// Rust's regex defines it: the White_Space property), from Unicode 16.0 tables generated
// by scripts/gen_unicode_tables.mjs; and UTF-8 decoding that never fails (an invalid byte
// decodes as one code point of its own, as U+FFFD would, so every byte is scanned).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ocml::detail::unicode {

enum unicode_class : std::uint8_t {
  Lu = 1,
  Lt = 2,
  Ll = 4,
  Lm = 8,
  Lo = 16,
  M = 32,
  N = 64,
  WS = 128,
  L = Lu | Lt | Ll | Lm | Lo,
};

extern const std::uint16_t kStage1[0x110000 / 256];
extern const std::uint8_t kStage2[][256];

/// The classes of code point `cp` (0 for one past U+10FFFF).
[[nodiscard]] inline std::uint8_t classes(std::uint32_t cp) noexcept {
  if (cp >= 0x110000) return 0;
  return kStage2[kStage1[cp >> 8]][cp & 0xFF];
}

/// One code point of UTF-8 text: its value and its length in bytes.
struct decoded {
  std::uint32_t cp;
  std::uint32_t len;
};

/// Decodes the code point at `p` (p < end). A byte that does not begin a well-formed
/// sequence decodes alone, as 0x110000 (no class).
[[nodiscard]] inline decoded decode(const unsigned char* p, const unsigned char* end) noexcept {
  const unsigned char b = *p;
  if (b < 0x80) return {b, 1};
  const auto cont = [&](std::size_t i) { return p + i < end && (p[i] & 0xC0) == 0x80; };
  if (b >= 0xC2 && b <= 0xDF && cont(1)) return {(b & 0x1Fu) << 6 | (p[1] & 0x3Fu), 2};
  if (b >= 0xE0 && b <= 0xEF && cont(1) && cont(2)) {
    const std::uint32_t cp = (b & 0x0Fu) << 12 | (p[1] & 0x3Fu) << 6 | (p[2] & 0x3Fu);
    if (cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF)) return {cp, 3};
  }
  if (b >= 0xF0 && b <= 0xF4 && cont(1) && cont(2) && cont(3)) {
    const std::uint32_t cp =
        (b & 0x07u) << 18 | (p[1] & 0x3Fu) << 12 | (p[2] & 0x3Fu) << 6 | (p[3] & 0x3Fu);
    if (cp >= 0x10000 && cp <= 0x10FFFF) return {cp, 4};
  }
  return {0x110000, 1};
}

}  // namespace ocml::detail::unicode
