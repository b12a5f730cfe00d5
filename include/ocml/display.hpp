// SPDX-License-Identifier: Apache-2.0
// ocml/display.hpp - what a user may see (OpenChatML 2.2 §4-5, §11).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ocml/decoder.hpp"
#include "ocml/model.hpp"

namespace ocml {

/// Whether the user view shows a message: system, developer, analysis and commentary are
/// hidden, except commentary flagged `intent=preamble`; tool replies are hidden.
///
///   ocml::is_user_visible(m)  // true for a user message or an assistant `final`
[[nodiscard]] bool is_user_visible(const message& m) noexcept;

/// Options for render_view.
struct view_options {
  /// Debug view: every message and every part of one (reasoning, tool calls with their
  /// arguments, 0.1 thought blocks and flags) and the tool declarations, each marked shown
  /// or hidden.
  bool debug = false;
  /// ANSI colours (shown green, hidden dim, reasoning magenta, calls cyan, tools yellow).
  /// The CLI sets it for a terminal unless NO_COLOR is set (`--color=never|always|auto`).
  bool color = false;
};

/// Plain-text view of a conversation, one block per message: "user: ...",
/// "assistant: ..." (what a user sees: messages with no visible text are left out). Debug:
/// "[hidden tool declaration] NAME: description" with the parameters, "[shown user] ...",
/// "[shown assistant/final] ..."
/// with each part on its own line: "  [hidden reasoning] ...",
/// "  [hidden tool call NAME id=ID] {arguments}".
///
///   auto r = ocml::parse(text, {.dialect = ocml::dialect::qwen3});
///   std::string v = ocml::render_view(r.conversation, {.debug = true});
[[nodiscard]] std::string render_view(const conversation& c, const view_options& options);

/// What view_markup shows, and what parsing the markup said.
struct markup_view {
  std::string text;
  std::vector<diagnostic> diagnostics;
  bool ok = true;  ///< false when the parse failed (an error among the diagnostics)
};

/// The view of markup in `decoder.dialect` (what `ocml view` prints): the dialect's own
/// display rules when it has them (GabGPT's "[user] …", "[thinking] …", "[assistant] …"
/// bubbles), otherwise render_view of the parsed conversation.
///
///   auto v = ocml::view_markup(text, {.dialect = ocml::dialect::gabgpt}, {});
///   std::cout << v.text;
[[nodiscard]] markup_view view_markup(std::string_view markup, const decoder_options& decoder,
                                      const view_options& options);

}  // namespace ocml
