// SPDX-License-Identifier: Apache-2.0
// The two shapes of assistant turns, with the map from each reshaped message back to the
// message it came from (so a diagnostic can name what the caller wrote).
#pragma once

#include "core/message_path.hpp"
#include "ocml/model.hpp"

namespace ocml::detail {

/// What split_form copies besides the messages.
enum class split_copy : unsigned char {
  all,       ///< header, tools and document too
  no_tools,  ///< not the tools (the 2.x family's renderers never read them: a render-only copy)
};

/// split_form(c), noting in `origins` (when given) where each message came from.
[[nodiscard]] conversation split_form(const conversation& c, origin_map* origins,
                                      split_copy what = split_copy::all);
/// split_form of a conversation the caller gives up (its texts are moved, not copied).
[[nodiscard]] conversation split_form(conversation&& c, origin_map* origins,
                                      split_copy what = split_copy::all);
/// grouped_form(c): `via_split` maps the split messages to `c`, `via_group` the grouped ones
/// to the split ones. Both stay empty (identity) when `c` is grouped already.
[[nodiscard]] conversation grouped_form(const conversation& c, origin_map* via_split,
                                        origin_map* via_group);
/// Whether no assistant message is written the 2.x way (a recipient, a non-final channel).
[[nodiscard]] bool is_grouped(const conversation& c);
/// Whether some message holds reasoning or tool calls inside it.
[[nodiscard]] bool has_embedded(const conversation& c);

}  // namespace ocml::detail
