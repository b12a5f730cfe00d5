// SPDX-License-Identifier: Apache-2.0
// Joining strings with a separator (harmony's system content and TypeScript types).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ocml::detail {

// join({"a", "b"}, ", ") == "a, b"; join({}, ", ") == "".
inline std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

}  // namespace ocml::detail
