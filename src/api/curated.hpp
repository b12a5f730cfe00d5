// SPDX-License-Identifier: Apache-2.0
// The curated response templates built into the library (cmake/embed.cmake).
#pragma once

#include <cstddef>
#include <string_view>

namespace ocml::detail {

struct embedded_file {
  std::string_view name;  // "qwen3.json"
  std::string_view text;
};

extern const embedded_file kCuratedFiles[];
extern const std::size_t kCuratedFileCount;

}  // namespace ocml::detail
