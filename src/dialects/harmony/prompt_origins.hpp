// SPDX-License-Identifier: Apache-2.0
// Harmony's preamble hooks (codec::preamble) and where each message of
// harmony::build_prompt's result came from.
#pragma once

#include "core/codec.hpp"
#include "core/message_path.hpp"
#include "ocml/model.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ocml::detail {

/// For build_prompt(c, ...): the system message is ocml's own, the developer message is
/// made from the first system/developer message (or the tools), the rest are c's.
[[nodiscard]] origin_map harmony_prompt_origins(const conversation& c);

/// gpt-oss's system and developer messages: present when a system message holds
/// "# Valid channels:"; built with the reasoning effort and date asked for.
extern const preamble_hooks kHarmonyPreamble;

/// harmony::render_developer_content of {instructions, {functions_namespace(functions)}},
/// written from the tools themselves (no copy of their schemas).
[[nodiscard]] std::string harmony_developer_text(const std::optional<std::string>& instructions,
                                                 const std::vector<tool>& functions);

}  // namespace ocml::detail
