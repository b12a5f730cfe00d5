// SPDX-License-Identifier: Apache-2.0
// ocml/display.hpp - what a user may see (OpenChatML 2.2 §4-5, §11).
#pragma once

#include <string>

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

}  // namespace ocml
