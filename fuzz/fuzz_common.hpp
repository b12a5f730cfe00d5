// Shared pieces of the fuzz targets: picking a dialect and split points from the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "ocml/ocml.hpp"

namespace ocml::fuzz {

/// Every dialect of the registry, by number (the enum is contiguous from 0).
inline constexpr std::size_t kDialectCount = ocml::dialect_count;
inline constexpr ocml::dialect dialect_at(std::size_t i) {
  return static_cast<ocml::dialect>(i % kDialectCount);
}

/// Aborts (a finding) when `ok` is false, naming the failed check.
inline void check(bool ok, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  if (ok) return;
  std::fprintf(stderr, "fuzz check failed: %s:%d\n", file, line);
  std::abort();
}

/// Parses `text` pushed in pieces whose sizes follow from `seed`.
inline parse_result parse_split(std::string_view text, const decoder_options& o,
                                std::uint8_t seed) {
  collector c;
  decoder d(o, [&c](const event& e) { c(e); });
  std::size_t pos = 0;
  std::size_t step = 1 + seed % 17;
  while (pos < text.size()) {
    d.push(text.substr(pos, step));
    pos += step;
    step = 1 + (step * 7 + seed) % 23;
  }
  d.finish();
  return c.take();
}

/// One-shot and split parses agree, in strict and lenient mode; returns the strict one.
inline parse_result parse_both_ways(std::string_view text, ocml::dialect d, std::uint8_t seed) {
  parse_result strict;
  for (bool lenient : {false, true}) {
    const decoder_options o{.dialect = d, .lenient = lenient, .completion = (seed & 0x80) != 0};
    auto whole = parse(text, o);
    const auto split = parse_split(text, o, seed);
    check(whole.conversation == split.conversation && whole.diagnostics == split.diagnostics);
    for (const auto& diag : whole.diagnostics) check(diag.offset <= text.size());
    if (!lenient) strict = std::move(whole);
  }
  return strict;
}

}  // namespace ocml::fuzz
