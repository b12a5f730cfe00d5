// SPDX-License-Identifier: Apache-2.0
#include "ocml/display.hpp"

#include "dialects/registry.hpp"
#include "ocml/json.hpp"

namespace ocml {

bool is_user_visible(const message& m) noexcept {
  if (m.role == role::system || m.role == role::developer || m.role == role::tool) return false;
  if (m.role == role::user) return true;
  const std::string_view ch = m.effective_channel();
  if (ch == "final") return m.recipient.empty();
  return ch == "commentary" && m.intent == "preamble" && m.recipient.empty();
}

namespace {

// ANSI styles of the debug view's labels.
enum class style : std::uint8_t { shown, hidden, reasoning, call, tools };

class view_writer {
 public:
  view_writer(std::string& out, bool color) : out_(out), color_(color) {}

  /// "[LABEL] " in its style (the text after it is the caller's).
  void label(style s, std::string_view text) {
    if (color_) out_ += code(s);
    out_ += '[';
    out_ += text;
    out_ += ']';
    if (color_) out_ += "\x1b[0m";
  }
  /// An indented part of a message: "  [hidden KIND] text\n".
  void part(style s, std::string_view what, std::string_view text) {
    out_ += "  ";
    label(s, "hidden " + std::string(what));
    if (!text.empty()) {
      out_ += ' ';
      out_ += text;
    }
    out_ += '\n';
  }

 private:
  static std::string_view code(style s) {
    switch (s) {
      case style::shown:
        return "\x1b[1;32m";
      case style::hidden:
        return "\x1b[2m";
      case style::reasoning:
        return "\x1b[35m";
      case style::call:
        return "\x1b[36m";
      case style::tools:
        return "\x1b[33m";
    }
    return "";
  }
  std::string& out_;
  bool color_;
};

void debug_tools(const std::vector<tool>& tools, view_writer& w, std::string& out) {
  for (const auto& t : tools) {
    w.label(style::tools, "hidden tool declaration");
    out += ' ';
    out += t.name;
    if (!t.description.empty()) {
      out += ": ";
      out += t.description;
    }
    out += '\n';
    if (!t.parameters.is_null()) {
      out += "  parameters: ";
      out += dump_json(t.parameters);
      out += '\n';
    }
  }
  if (!tools.empty()) out += '\n';
}

void debug_message(const message& m, view_writer& w, std::string& out) {
  const bool visible = is_user_visible(m);
  std::string label(role_name(m.role));
  if (m.role == role::tool && !m.name.empty()) label = m.name;
  if (m.role != role::tool && !m.name.empty()) label += ":" + m.name;
  // A channel where one is written, and the assistant's (read as "final" when none is).
  if (!m.channel.empty() || m.role == role::assistant) {
    label += "/" + std::string(m.effective_channel());
  }
  if (!m.recipient.empty()) label += " to=" + m.recipient;
  if (!m.call_id.empty()) label += " call_id=" + m.call_id;
  if (!m.intent.empty()) label += " intent=" + m.intent;
  if (!m.content_type.empty()) label += " " + m.content_type;
  if (!m.constrain.empty()) label += " <|constrain|>" + m.constrain;
  w.label(visible ? style::shown : style::hidden, (visible ? "shown " : "hidden ") + label);
  if (!m.content.empty()) {
    out += ' ';
    out += m.content;
  }
  out += '\n';
  if (!m.reasoning.empty()) w.part(style::reasoning, "reasoning", m.reasoning);
  if (!m.reflection.empty()) w.part(style::reasoning, "reflection", m.reflection);
  if (!m.introspection.empty()) w.part(style::reasoning, "introspection", m.introspection);
  for (const auto& c : m.tool_calls) {
    std::string what = "tool call " + c.name;
    if (!c.id.empty()) what += " id=" + c.id;
    w.part(style::call, what, c.arguments);
  }
  for (const auto& f : m.flags) w.part(style::hidden, "flag", f);
  for (const auto& [k, v] : m.extra) w.part(style::hidden, "attribute", k + "=" + v);
  out += '\n';
}

}  // namespace

std::string render_view(const conversation& c, const view_options& options) {
  std::string out;
  view_writer w(out, options.color);
  if (options.debug) debug_tools(c.tools, w, out);
  for (const auto& m : c.messages) {
    if (options.debug) {
      debug_message(m, w, out);
      continue;
    }
    if (!is_user_visible(m) || m.content.empty()) continue;
    out += role_name(m.role);
    out += ": ";
    out += m.content;
    out += "\n\n";
  }
  return out;
}

}  // namespace ocml

namespace ocml {

markup_view view_markup(std::string_view markup, const decoder_options& decoder,
                        const view_options& options) {
  markup_view v;
  if (const auto own = detail::codec_of(decoder.dialect).view) {
    v.text = own(markup);
    return v;
  }
  parse_result r = parse(markup, decoder);
  v.ok = r.ok();
  v.diagnostics = std::move(r.diagnostics);
  v.text = render_view(r.conversation, options);
  return v;
}

}  // namespace ocml
