// SPDX-License-Identifier: Apache-2.0
// Token IDs written as text: one flat JSON array ([9707, 11]) or IDs between white space or
// commas.
#pragma once

#include <string_view>
#include <vector>

#include "ocml/error.hpp"
#include "ocml/tokens.hpp"

namespace ocml::cli {

/// Token IDs written as a JSON array or separated by white space.
[[nodiscard]] result<std::vector<token_id>> read_token_ids(std::string_view text);

}  // namespace ocml::cli
