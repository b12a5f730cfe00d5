// SPDX-License-Identifier: Apache-2.0
// Conversion between dialects: never crashes, and what it writes parses in the target.
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const ocml::dialect from = ocml::fuzz::dialect_at(data[0]);
  const ocml::dialect to = ocml::fuzz::dialect_at(data[1]);
  const std::string_view text(reinterpret_cast<const char*>(data) + 2, size - 2);
  const auto r = ocml::convert(text, {.from = from, .to = to, .lenient = (data[0] & 0x80) != 0});
  if (!r.ok()) return 0;
  const auto back = ocml::parse(r.text, {.dialect = to});
  for (const auto& d : back.diagnostics) {
    // Rendered markup is well formed; what may remain is carried over from the input:
    // invalid UTF-8, a message left unterminated, a header without a version (lenient).
    ocml::fuzz::check(
        d.code == ocml::error_code::invalid_utf8 || d.code == ocml::error_code::stream_truncated ||
        d.code == ocml::error_code::document_header || d.level == ocml::severity::warning);
  }
  return 0;
}
