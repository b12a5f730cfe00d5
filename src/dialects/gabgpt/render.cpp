// SPDX-License-Identifier: Apache-2.0
// GabGPT renderer: user segments, think segments, assistant segments closed by <|end|>.
#include <algorithm>
#include "core/message_path.hpp"
#include "dialects/gabgpt/gabgpt.hpp"
#include "ocml/convert.hpp"

namespace ocml::detail::gabgpt {

std::string_view find_token(std::string_view text) {
  for (const auto& t : kTokens) {
    if (text.find(t) != std::string_view::npos) return t;
  }
  return {};
}

namespace {
void warn(std::vector<diagnostic>* w, const std::string& path, const std::string& what) {
  if (w == nullptr) return;
  diagnostic d =
      make_error(error_code::unrepresentable, path + ": GabGPT cannot hold " + what + " (dropped)");
  d.level = severity::warning;
  w->push_back(std::move(d));
}
}  // namespace

result<std::string> render(const conversation& c0, const render_options& o,
                           std::vector<diagnostic>* warnings) {
  const conversation c = grouped_form(c0);
  std::string out;
  for (std::size_t i = 0; i < c.messages.size(); ++i) {
    const message& m = c.messages[i];
    if (m.role != role::user && m.role != role::assistant) {
      warn(warnings, message_path(i), std::string(role_name(m.role)) + " messages");
      continue;
    }
    for (std::string_view text : {std::string_view(m.content), std::string_view(m.reasoning)}) {
      if (auto t = find_token(text); !t.empty()) {
        return make_error(
            error_code::unrepresentable,
            message_path(i, text.data() == m.content.data() ? "content" : "reasoning") +
                ": text contains '" + std::string(t) + "', which GabGPT cannot escape");
      }
    }
    if (!m.name.empty()) warn(warnings, message_path(i, "name"), "a name");
    if (!m.tool_calls.empty()) warn(warnings, message_path(i, "tool_calls"), "tool calls");
    if (m.role == role::user) {
      out += "<|user|>" + m.content;
      if (m.end == end_token::end) out += "<|end|>";
      continue;
    }
    // Only the last turn can stay open: one followed by another is closed, or the next
    // segment would read as part of it.
    const bool followed = std::any_of(
        c.messages.begin() + static_cast<std::ptrdiff_t>(i) + 1, c.messages.end(),
        [](const message& n) { return n.role == role::user || n.role == role::assistant; });
    const bool open = m.end == end_token::unterminated && !followed;
    if (!m.reasoning.empty()) out += "<|think|>" + m.reasoning;
    // An open assistant message that only thought (think mode, the stream cut before
    // <|assistant|>) has no assistant segment; a closed one always has (fuzz finding 27).
    if (!(open && m.content.empty() && !m.reasoning.empty())) out += "<|assistant|>" + m.content;
    if (!open) out += "<|end|>";
  }
  if (o.add_generation_prompt) out += o.generation_role == "think" ? "<|think|>" : "<|assistant|>";
  return out;
}

}  // namespace ocml::detail::gabgpt
