// SPDX-License-Identifier: Apache-2.0
// Turn-aware truncation (truncation::turns): a conversation too long for max_tokens loses
// whole old user turns, never its system prompt, developer message or tools, and never part
// of a turn. Shared by the dialects and the model templates.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "ocml/token_render.hpp"

namespace ocml::detail {

/// The first message of each group a truncation may drop, in a conversation of `n`
/// messages: the leading messages `is_head` keeps (system, developer) are in no group; the
/// first group begins right after them (whatever its role), and each user message after
/// that begins a new one. The last group holds the last turn and is never dropped.
///
///   // system, user, assistant, user, assistant: groups at 1 and 3
[[nodiscard]] std::vector<std::size_t> turn_groups(std::size_t n,
                                                   const std::function<bool(std::size_t)>& is_head,
                                                   const std::function<bool(std::size_t)>& is_user);

/// The examples of the conversation with messages [from, to) dropped (from == to: none).
using examples_without =
    std::function<result<std::vector<token_sequence>>(std::size_t from, std::size_t to)>;

/// The examples with as few of the oldest groups dropped as makes every example hold at
/// most `max_tokens` tokens (found by bisection: O(log groups) renders), a warning
/// (E-LIMIT-EXCEEDED) on the first saying what was dropped; E-LIMIT-EXCEEDED when even the
/// last group alone does not fit.
[[nodiscard]] result<std::vector<token_sequence>> fit_by_turns(
    const std::vector<std::size_t>& groups, std::size_t max_tokens,
    const examples_without& examples);

}  // namespace ocml::detail
