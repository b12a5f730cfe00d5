// SPDX-License-Identifier: Apache-2.0
// Training labels from renders of a conversation's prefixes, for a dialect and for a model's
// chat template alike: where each trained turn begins (the end of the conversation rendered
// up to it with the generation prompt) and ends (its stop), and the IDs of the pieces.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ocml/token_render.hpp"

namespace ocml::detail {

/// A trained region of the rendered text: [from, to).
struct trained_region {
  std::size_t from;
  std::size_t to;
};

/// What the regions are found from.
struct turn_renders {
  std::size_t messages = 0;
  std::function<bool(std::size_t)> is_assistant;
  /// The first `n` messages rendered, with the generation prompt or without.
  std::function<result<std::string>(std::size_t n, bool generation_prompt)> render_first;
  /// What ends a sampled turn (the last one in the turn counts).
  std::vector<std::string_view> stops;
  /// Said when a turn's prompt is not a prefix of the whole: why a format may do that, and
  /// the remedy.
  std::string_view rewrite_hint;
};

/// The most bytes the prompts of one conversation's trained turns may render together
/// (E-LIMIT-EXCEEDED beyond: the work grows with the square of the turns).
inline constexpr std::size_t kMaxPrefixRenderBytes = std::size_t{64} << 20;

/// The trained regions of `text` (the whole conversation rendered), or
/// E-RENDER-UNREPRESENTABLE naming the turn whose prompt is not a prefix of it.
[[nodiscard]] result<std::vector<trained_region>> trained_regions(
    const turn_renders& renders, std::string_view text, const token_render_options& options);

/// Encodes `text` piece by piece (before each region, the region, the rest) with `encode`
/// (which appends the IDs of [from, to) to its vector), labels the regions' IDs when
/// training, keeps the last `max_tokens`, and sets the attention mask.
void encode_regions(
    std::string_view text, const std::vector<trained_region>& regions,
    const std::function<void(std::size_t, std::size_t, std::vector<token_id>&)>& encode,
    const token_render_options& options, token_sequence& seq);

}  // namespace ocml::detail
