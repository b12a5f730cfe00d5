// SPDX-License-Identifier: Apache-2.0
// Unicode 9.0 normalization data, generated into normalization_tables.cpp by
// scripts/gen_normalization_tables.py (see that script for where the data comes from).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ocml::detail::unicode {

/// Bits 0..3 of a code point's entry: alone, it is its own NFD, NFKD, NFC, NFKC, it is a
/// starter, and (NFC, NFKC) never the second of a composition; bits 8..15: its canonical
/// combining class.
extern const std::uint16_t kNormStage1[0x110000 / 256];
extern const std::uint16_t kNormStage2[][256];

/// A code point's full decompositions: kDecompositionPool[canon, canon + canon_len) and
/// [compat, compat + compat_len). Sorted by code point; Hangul syllables are not listed.
struct decomposition {
  std::uint32_t cp;
  std::uint32_t canon;
  std::uint32_t canon_len;
  std::uint32_t compat;
  std::uint32_t compat_len;
};
/// A primary composite: first + second -> composite. Sorted by (first, second).
struct composition {
  std::uint32_t first;
  std::uint32_t second;
  std::uint32_t composite;
};

extern const std::uint32_t kDecompositionPool[];
extern const decomposition kDecompositions[];
extern const composition kCompositions[];
extern const std::size_t kDecompositionCount;
extern const std::size_t kCompositionCount;

[[nodiscard]] inline std::uint16_t norm_entry(std::uint32_t cp) noexcept {
  if (cp >= 0x110000) return 0xF;
  return kNormStage2[kNormStage1[cp >> 8]][cp & 0xFF];
}

/// A code point's full lowercase mapping (one or two code points; `second` 0 for one).
struct lower_mapping {
  std::uint32_t cp;
  std::uint32_t first;
  std::uint32_t second;
};
/// Every code point whose lowercase is not itself, by code point (lowercase_table.cpp).
extern const lower_mapping kLowercase[];
extern const std::size_t kLowercaseCount;

}  // namespace ocml::detail::unicode
