// SPDX-License-Identifier: Apache-2.0
// Where each message of harmony::build_prompt's result came from.
#pragma once

#include "core/message_path.hpp"
#include "ocml/model.hpp"

namespace ocml::detail {

/// For build_prompt(c, ...): the system message is ocml's own, the developer message is
/// made from the first system/developer message (or the tools), the rest are c's.
[[nodiscard]] origin_map harmony_prompt_origins(const conversation& c);

}  // namespace ocml::detail
