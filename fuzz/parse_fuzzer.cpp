// SPDX-License-Identifier: Apache-2.0
// One-shot parse of one dialect (ocml_fuzz_dialect, set by each target's one-line source),
// checked against a streaming parse split at input-derived points, strict and lenient. With
// ocml_fuzz_dialect -1 the first byte picks the dialect (the streaming target).
#include "fuzz_common.hpp"

extern const int ocml_fuzz_dialect;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t seed = data[0];
  const ocml::dialect d = ocml::fuzz::dialect_at(
      ocml_fuzz_dialect >= 0 ? static_cast<std::uint8_t>(ocml_fuzz_dialect) : seed);
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  (void)ocml::fuzz::parse_both_ways(text, d, seed);
  return 0;
}
