// SPDX-License-Identifier: Apache-2.0
#include "ocml/display.hpp"

namespace ocml {

bool is_user_visible(const message& m) noexcept {
  if (m.role == role::system || m.role == role::developer || m.role == role::tool) return false;
  if (m.role == role::user) return true;
  const std::string_view ch = m.effective_channel();
  if (ch == "final") return m.recipient.empty();
  return ch == "commentary" && m.intent == "preamble" && m.recipient.empty();
}

std::string render_view(const conversation& c, const view_options& options) {
  std::string out;
  for (const auto& m : c.messages) {
    const bool visible = is_user_visible(m);
    if (!visible && !options.debug) continue;
    std::string label(role_name(m.role));
    if (m.role == role::tool && !m.name.empty()) label = m.name;
    if (options.debug) {
      label += "/" + std::string(m.effective_channel());
      if (!m.recipient.empty()) label += " to=" + m.recipient;
      if (!m.intent.empty()) label += " intent=" + m.intent;
      label = (visible ? "[shown " : "[hidden ") + label + "]";
    } else {
      label += ":";
    }
    out += label;
    out += ' ';
    out += m.content;
    out += "\n\n";
  }
  return out;
}

}  // namespace ocml
