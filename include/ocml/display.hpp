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
  /// Debug view: show every message, each hidden one marked as such.
  bool debug = false;
};

/// Plain-text view of a conversation, one block per message:
/// "user: ...", "assistant: ..." (debug: "[hidden assistant/analysis] ...").
[[nodiscard]] std::string render_view(const conversation& c, const view_options& options);

}  // namespace ocml
