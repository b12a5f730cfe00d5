// SPDX-License-Identifier: Apache-2.0
// The playground's files, built in by cmake/embed.cmake (web/playground/).
#pragma once

#include <cstddef>
#include <string_view>

namespace ocml::serve {

struct web_asset {
  const char* path;  ///< "/index.html", "/playground.js", …
  const char* type;  ///< its Content-Type
  std::string_view body;
};

extern const web_asset kWebAssets[];
extern const std::size_t kWebAssetCount;

}  // namespace ocml::serve
