// SPDX-License-Identifier: Apache-2.0
// Unicode classes in a tokenizer's regex, spelled out from ocml's pinned Unicode 16.0 data
// (unicode_categories.cpp) before PCRE2 compiles it: PCRE2's own tables are of whatever
// Unicode its build had (14.0 in Debian 12), and the reference's regex engine knows 16.0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ocml::detail {

namespace unicode {
/// From this code point on (until the next run), the General_Category is
/// kCategoryNames[category].
struct category_run {
  std::uint32_t first;
  std::uint8_t category;
};
extern const char* const kCategoryNames[30];
extern const category_run kCategoryRuns[];
extern const std::size_t kCategoryRunCount;
extern const std::uint32_t kWhiteSpaceRanges[][2];
extern const std::size_t kWhiteSpaceRangeCount;
}  // namespace unicode

/// `pattern` with `\p{X}` and `\P{X}` (X a General_Category or its one-letter group: L, Lu,
/// M, N, Nd, P, S, Z, C, …) and `\s`, `\S` replaced by explicit code-point ranges, in and
/// out of bracketed classes (`\P{X}` and `\S` inside a class are left to PCRE2). Other
/// escapes are copied as they are. Stops once the result is longer than `limit` (the
/// caller refuses such a pattern).
[[nodiscard]] std::string spell_unicode_classes(std::string_view pattern,
                                                std::size_t limit = static_cast<std::size_t>(-1));

}  // namespace ocml::detail
