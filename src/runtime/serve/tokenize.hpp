// SPDX-License-Identifier: Apache-2.0
// vLLM's POST /tokenize and /detokenize.
#pragma once

#include <string>
#include <string_view>

#include "ocml/serve.hpp"
#include "runtime/serve/request.hpp"

namespace ocml::serve {

/// {"prompt": TEXT} (special tokens recognized), or {"messages": [...],
/// "add_generation_prompt": true} rendered in the server's format: {"count", "tokens"}.
[[nodiscard]] answer tokenize(const serve_options& o, std::string_view body);
/// {"tokens": [IDS]}: {"prompt": TEXT}.
[[nodiscard]] answer detokenize(const serve_options& o, std::string_view body);

}  // namespace ocml::serve
