// The harmony renderer: byte-identical to openai/harmony's text rendering.
#include <string>

#include "dialects/openchatml/render_common.hpp"

namespace ocml::detail {

result<std::string> render_harmony(const conversation& c, const render_options& o,
                                   std::vector<diagnostic>* warnings) {
  std::string out;
  if (c.header.present) warn_dropped(warnings, 0, "a YAML document header", "harmony");
  const auto msgs = messages_to_render(c, o.drop_analysis);
  for (std::size_t k = 0; k < msgs.size(); ++k) {
    const message& m = *msgs[k];
    std::string err;
    out += "<|start|>";
    if (m.role == role::tool) {
      // Harmony writes a tool reply's author as the tool's name alone; a reply that has
      // only a call id takes the name of the call it answers.
      std::string name = m.name;
      for (std::size_t b = k; name.empty() && !m.call_id.empty() && b-- > 0;) {
        if (msgs[b]->call_id == m.call_id && !msgs[b]->recipient.empty()) name = msgs[b]->recipient;
      }
      if (name.empty() && m.call_id.empty()) {
        // Dialects without call ids answer calls in order: count the replies since the
        // last run of calls and take the matching call.
        std::size_t replies = 0;
        std::size_t b = k;
        while (b > 0 && msgs[b - 1]->role == role::tool) --b, ++replies;
        std::size_t first = b;
        while (first > 0 && msgs[first - 1]->role == role::assistant &&
               !msgs[first - 1]->recipient.empty())
          --first;
        if (first + replies < b) name = msgs[first + replies]->recipient;
      }
      if (name.empty()) {
        return make_error(error_code::unrepresentable,
                          "message " + std::to_string(k) + ": a harmony tool message needs a name");
      }
      err = check_header_value("tool name", name, k);
      out += name;
    } else {
      out += role_name(m.role);
      if (!m.name.empty()) {
        err = check_header_value("name", m.name, k);
        out += ':';
        out += m.name;
      }
    }
    if (!m.recipient.empty() && m.recipient != "all") {
      if (err.empty()) err = check_header_value("recipient", m.recipient, k);
      out += " to=";
      out += m.recipient;
    }
    if (!m.channel.empty()) {
      if (err.empty()) err = check_header_value("channel", m.channel, k);
      out += "<|channel|>";
      out += m.channel;
    }
    if (!m.content_type.empty()) {
      if (err.empty()) err = check_header_value("content type", m.content_type, k);
      out += ' ';
      out += m.content_type;
    }
    if (!m.constrain.empty()) {
      if (err.empty()) err = check_header_value("constrain type", m.constrain, k);
      out += " <|constrain|>";
      out += m.constrain;
    }
    if (!err.empty()) return make_error(error_code::unrepresentable, err);
    if (!m.call_id.empty()) warn_dropped(warnings, k, "call_id", "harmony");
    if (!m.intent.empty()) warn_dropped(warnings, k, "intent", "harmony");
    if (!m.extra.empty()) warn_dropped(warnings, k, "extra header attributes", "harmony");
    out += "<|message|>";
    out += escape_body(m.content);
    const bool call = m.role == role::assistant && !m.recipient.empty();
    const bool last = k + 1 == msgs.size();
    if (o.training && last && m.role == role::assistant && m.channel == "final") {
      out += "<|return|>";
    } else {
      out += call ? "<|call|>" : "<|end|>";
    }
  }
  if (o.add_generation_prompt) {
    out += "<|start|>";
    out += o.generation_role;
  }
  return out;
}

}  // namespace ocml::detail
