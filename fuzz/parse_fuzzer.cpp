// One-shot parse of one dialect (OCML_FUZZ_DIALECT), checked against a streaming parse
// split at input-derived points, strict and lenient. Without OCML_FUZZ_DIALECT the first
// byte picks the dialect (the streaming target).
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t seed = data[0];
#ifdef OCML_FUZZ_DIALECT
  const ocml::dialect d = ocml::fuzz::dialect_at(OCML_FUZZ_DIALECT);
#else
  const ocml::dialect d = ocml::fuzz::dialect_at(seed);
#endif
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  (void)ocml::fuzz::parse_both_ways(text, d, seed);
  return 0;
}
