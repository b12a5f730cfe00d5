// SPDX-License-Identifier: Apache-2.0
// render∘parse: whatever parses cleanly renders, and rendering is a fixed point
// (render(parse(render(c))) == render(c)).
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const ocml::dialect d = ocml::fuzz::dialect_at(data[0]);
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto first = ocml::parse(text, {.dialect = d});
  if (!first.ok()) return 0;
  auto t1 = ocml::render(first.conversation, {.dialect = d});
  if (!t1.ok()) return 0;  // e.g. a value the dialect cannot write back: refused, not mangled
  const auto second = ocml::parse(*t1, {.dialect = d});
  if (!second.ok()) {
    // Rendering closes a message the input left open; a constrained body cut short then
    // fails its JSON check. Nothing else may fail.
    for (const auto& diag : second.diagnostics) {
      ocml::fuzz::check(diag.level == ocml::severity::warning ||
                        diag.code == ocml::error_code::body_constraint_violation);
    }
    return 0;
  }
  auto t2 = ocml::render(second.conversation, {.dialect = d});
  ocml::fuzz::check(t2.ok() && *t2 == *t1);
  return 0;
}
