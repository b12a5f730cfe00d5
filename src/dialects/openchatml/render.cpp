// SPDX-License-Identifier: Apache-2.0
// Renderers for ocml-2.2 (canonical attribute positions) and ocml-2.0.
#include <algorithm>
#include <string>

#include "core/document_header.hpp"
#include "dialects/openchatml/header_parser.hpp"
#include "dialects/openchatml/render_common.hpp"

namespace ocml::detail {

std::string check_header_value(std::string_view field, std::string_view what, std::string_view v,
                               std::size_t index) {
  std::string bad;
  if (v.empty()) bad = "is empty";
  for (char ch : v) {
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v') {
      bad = "contains whitespace";
      break;
    }
  }
  if (v.find("<|") != std::string_view::npos) bad = "contains '<|'";
  if (bad.empty()) return {};
  return message_path(index, field) + ": " + std::string(what) + " '" + std::string(v) + "' " +
         bad + "; header values cannot hold it";
}

std::string_view stop_token_text(end_token e) {
  switch (e) {
    case end_token::return_:
      return "<|return|>";
    case end_token::call:
      return "<|call|>";
    case end_token::unterminated:
      return "";
    default:
      return "<|end|>";
  }
}

std::vector<const message*> messages_to_render(const conversation& c, bool drop_analysis) {
  return messages_to_render(c.messages, c.messages.size(), drop_analysis);
}

std::vector<const message*> messages_to_render(const std::vector<message>& ms, std::size_t n,
                                               bool drop_analysis) {
  std::vector<const message*> out;
  n = std::min(n, ms.size());
  bool last_assistant_final = false;
  for (std::size_t i = n; i-- > 0;) {
    if (ms[i].role == role::assistant) {
      last_assistant_final = ms[i].channel == "final";
      break;
    }
  }
  std::size_t first_final = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (ms[i].channel == "final") {
      first_final = i;
      break;
    }
  }
  const bool drop = drop_analysis && last_assistant_final;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (drop && i < first_final && ms[i].channel == "analysis") continue;
    out.push_back(&ms[i]);
  }
  return out;
}

void warn_dropped(std::vector<diagnostic>* warnings, std::string_view path, std::string_view what,
                  std::string_view dialect) {
  if (warnings == nullptr) return;
  diagnostic d = make_error(error_code::unrepresentable,
                            std::string(path) + ": " + std::string(dialect) + " cannot hold " +
                                std::string(what) + " (dropped)");
  d.level = severity::warning;
  warnings->push_back(std::move(d));
}

namespace {

end_token default_end(const message& m, bool v22) {
  if (m.end != end_token::unspecified) return m.end;
  if (m.role == role::assistant && !m.recipient.empty()) return end_token::call;
  if (v22 && m.role == role::assistant && m.channel == "final") return end_token::return_;
  return end_token::end;
}

// The field a header attribute holds ("to" is the recipient).
std::string_view field_of(std::string_view key) {
  if (key == "to") return "recipient";
  if (key == "name" || key == "call_id" || key == "intent" || key == "content_type") return key;
  return "extra";
}

struct attr_writer {
  std::string& out;
  std::size_t index;
  std::string err;
  void put(std::string_view key, std::string_view value) {
    if (value.empty() || !err.empty()) return;
    err = check_header_value("extra", "attribute name", key, index);
    if (err.empty() && key.find('=') != std::string_view::npos) {
      err = message_path(index, "extra") + ": attribute name '" + std::string(key) +
            "' contains '='; header keys cannot hold it";
    }
    if (err.empty()) err = check_header_value(field_of(key), key, value, index);
    out += ' ';
    out += key;
    out += '=';
    out += value;
  }
};

}  // namespace

result<std::string> render_openchatml(const conversation& c, const render_options& o,
                                      std::vector<diagnostic>* warnings) {
  const bool v22 = o.dialect == dialect::ocml_2_2;
  const std::string_view dname = v22 ? "ocml-2.2" : "ocml-2.0";
  std::string out;
  if (c.header.present) {
    out += render_document_header(c.header);
  } else if (o.default_document_header) {
    out += v22 ? "---\nversion: 2.2\n---\n" : "---\nversion: 2.0\n---\n";
  }
  const auto msgs = messages_to_render(c, o.drop_analysis);
  for (std::size_t k = 0; k < msgs.size(); ++k) {
    const message& m = *msgs[k];
    const std::size_t at = static_cast<std::size_t>(msgs[k] - c.messages.data());
    if (k > 0) out += '\n';
    out += "<|start|>";
    attr_writer w{out, at, {}};
    if (m.role == role::tool && !v22 && m.name.starts_with("functions.")) {
      w.err = check_header_value("name", "tool name", m.name, at);
      out += m.name;  // 2.0: the tool's name is the author
    } else {
      out += role_name(m.role);
      // A tool reply's name identifies its author (2.2 §4), so it follows the role.
      if (m.role == role::tool) w.put("name", m.name);
    }
    w.put("to", m.recipient);
    if (v22) w.put("call_id", m.call_id);
    if (m.role != role::tool) w.put("name", m.name);
    if (v22) {
      w.put("intent", m.intent);
      w.put("content_type", m.content_type);
      for (const auto& [k2, v] : m.extra) {
        // The header's own keys: an extra attribute by that name would be read back as
        // the recipient, id, name, … (promoted to structure), so it is not written.
        if (std::find(kReservedKeys22.begin(), kReservedKeys22.end(), k2) !=
            kReservedKeys22.end()) {
          warn_dropped(warnings, message_path(at, "extra"),
                       "an extra attribute named '" + k2 + "' (the header's own key)", dname);
          continue;
        }
        if (k2.find('=') != std::string::npos) {
          w.err = message_path(at, "extra") + ": attribute key '" + k2 + "' contains '='";
        }
        w.put(k2, v);
      }
    } else {
      // 2.0 has no call ids (replies answer calls by name and order), writes a preamble as
      // commentary text before the call and JSON arguments as they are: dropping those
      // loses nothing the user wrote, so none is a warning (issue 14). The rest is.
      if (!m.intent.empty() && m.intent != "preamble") {
        warn_dropped(warnings, message_path(at, "intent"), "intent", dname);
      }
      if (!m.content_type.empty()) {
        warn_dropped(warnings, message_path(at, "content_type"), "content_type", dname);
      }
      if (!m.constrain.empty() && !(m.constrain == "json" && !m.recipient.empty())) {
        warn_dropped(warnings, message_path(at, "constrain"), "<|constrain|>", dname);
      }
      if (!m.extra.empty()) {
        warn_dropped(warnings, message_path(at, "extra"), "extra header attributes", dname);
      }
    }
    if (!m.channel.empty()) {
      if (w.err.empty()) w.err = check_header_value("channel", "channel", m.channel, at);
      if (w.err.empty() && !known_channel(m.channel)) {
        w.err = message_path(at, "channel") + ": channel '" + m.channel + "' is not one of " +
                std::string(dname) + "'s (analysis, commentary, final)";
      }
      out += "<|channel|>";
      out += m.channel;
    }
    if (v22 && !m.constrain.empty()) {
      if (w.err.empty()) {
        w.err = check_header_value("constrain", "constrain type", m.constrain, at);
      }
      out += "<|constrain|>";
      out += m.constrain;
    }
    if (!w.err.empty()) return make_error(error_code::unrepresentable, w.err);
    out += "<|message|>";
    escape_body_into(out, m.content);
    const end_token e = default_end(m, v22);
    if (e == end_token::unterminated && k + 1 != msgs.size()) {
      return make_error(error_code::unrepresentable,
                        message_path(at, "end") + ": unterminated but not last");
    }
    out += stop_token_text(e);
  }
  if (o.add_generation_prompt) {
    if (!msgs.empty()) out += '\n';
    out += "<|start|>";
    out += o.generation_role;
  }
  return out;
}

}  // namespace ocml::detail
