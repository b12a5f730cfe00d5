// SPDX-License-Identifier: Apache-2.0
// PCML renderer (grouped shape: reasoning and tool calls inside [AST]).
#include <algorithm>
#include <string>

#include "core/forge.hpp"
#include "core/message_path.hpp"
#include "dialects/pcml/pcml.hpp"
#include "interchange/json_util.hpp"
#include "interchange/pyjson.hpp"
#include "ocml/convert.hpp"

namespace ocml::detail::pcml {

std::string escape_value(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

namespace {

bool valid_key(std::string_view k) {
  if (k.empty() || !(std::isalpha(static_cast<unsigned char>(k[0])) || k[0] == '_')) return false;
  for (char c : k) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  }
  return true;
}

// PCML has no escape for its tags inside content.
std::string forged(std::string_view text, std::string_view what, std::size_t i) {
  for (const auto& t : kTokens) {
    if (text.find(t) != std::string_view::npos) {
      return message_path(i, what) + ": " + std::string(what) + " contains '" + t +
             "', which PCML cannot escape";
    }
  }
  return {};
}

std::string tools_json(const std::vector<tool>& tools) {
  json arr = json::array();
  for (const auto& t : tools) {
    json o = json::object();
    o["name"] = t.name;
    if (!t.description.empty()) o["description"] = t.description;
    if (!t.parameters.is_null()) o["parameters"] = t.parameters;
    arr.push_back(std::move(o));
  }
  return arr.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string call_json(const tool_call& tc) {
  json o = json::object();
  if (!tc.id.empty()) o["id"] = tc.id;
  o["name"] = tc.name;
  auto parsed = try_parse_json(tc.arguments);
  o["arguments"] = parsed ? std::move(*parsed) : json(tc.arguments);
  return python_json_dumps(o);
}

void warn(std::vector<diagnostic>* warnings, std::string text) {
  if (warnings == nullptr) return;
  diagnostic d = make_error(error_code::unrepresentable, std::move(text));
  d.level = severity::warning;
  warnings->push_back(std::move(d));
}

// A metadata value holds tags as text, except the container's own closing tag and the
// opening tags: those end metadata on parse-back (so a value left open swallows nothing).
std::string value_breaks(std::string_view value, std::size_t close) {
  const std::string_view tok =
      spelled_token(value, std::array<std::string_view, 5>{
                               kTokenNames[close], kTokenNames[sys_open], kTokenNames[usr_open],
                               kTokenNames[ast_open], kTokenNames[obs_open]});
  return tok.empty() ? std::string() : std::string(tok);
}

// Content with no metadata before it that reads as a metadata value still open at its end
// (`x="y`) would be read back as metadata: PCML cannot write it.
bool reads_as_open_metadata(std::string_view content) {
  meta_scanner s;
  return s.feed(content) == meta_scanner::status::ok && s.in_value();
}

}  // namespace

result<std::string> render(const conversation& c0, const render_options& o,
                           std::vector<diagnostic>* warnings) {
  const conversation c = grouped_form(c0);
  std::string out;
  bool tools_done = c.tools.empty();
  const std::string tools_text = tools_json(c.tools);
  if (const auto tok = spelled_token(tools_text, kTokenNames); !tok.empty()) {
    return make_error(error_code::unrepresentable, forged_field("tools", tok, "PCML"));
  }
  const auto tools_block = [&]() {
    tools_done = true;
    return "\n<tools>" + tools_text + "</tools>";
  };
  if (!tools_done && (c.messages.empty() || c.messages[0].role != role::system)) {
    out += "[SYS]" + tools_block() + "[/SYS]";
  }
  for (std::size_t i = 0; i < c.messages.size(); ++i) {
    const message& m = c.messages[i];
    for (auto [text, what] : {std::pair<std::string_view, std::string_view>{m.content, "content"},
                              {m.reasoning, "reasoning"}}) {
      if (auto err = forged(text, what, i); !err.empty()) {
        return make_error(error_code::unrepresentable, err);
      }
    }
    static const char* open[] = {"[SYS]", "[SYS]", "[USR]", "[AST]", "[OBS]"};
    static const char* close[] = {"[/SYS]", "[/SYS]", "[/USR]", "[/AST]", "[/OBS]"};
    const auto r = static_cast<std::size_t>(m.role);
    if (m.role == role::developer && warnings != nullptr) {
      diagnostic d =
          make_error(error_code::unrepresentable,
                     message_path(i, "role") + ": PCML has no developer role (written as [SYS])");
      d.level = severity::warning;
      warnings->push_back(std::move(d));
    }
    if (!out.empty()) out += "\n\n";
    // Only the last container can stay open (a stream cut short); earlier ones are closed.
    const bool left_open = m.end == end_token::unterminated && i + 1 == c.messages.size();
    out += open[r];
    std::vector<std::pair<std::string, std::string>> meta;
    if (!m.name.empty()) meta.emplace_back("name", m.name);
    if (!m.call_id.empty()) meta.emplace_back("id", m.call_id);
    for (const auto& kv : m.extra) {
      // PCML's own keys: an extra attribute by that name would be read back as the
      // message's name or id (promoted to structure), so it is not written.
      if (std::find(kReservedKeys.begin(), kReservedKeys.end(), kv.first) != kReservedKeys.end()) {
        warn(warnings, message_path(i, "extra") + ": extra attribute '" + kv.first +
                           "' is PCML's own (dropped)");
        continue;
      }
      meta.push_back(kv);
    }
    if (meta.empty() && reads_as_open_metadata(m.content)) {
      return make_error(error_code::unrepresentable,
                        message_path(i, "content") +
                            ": content reads as a metadata value left open (key=\"...), "
                            "which PCML cannot tell from metadata");
    }
    for (std::size_t k = 0; k < meta.size(); ++k) {
      if (!valid_key(meta[k].first)) {
        return make_error(error_code::unrepresentable, message_path(i, "extra") +
                                                           ": metadata key '" + meta[k].first +
                                                           "' is not [A-Za-z_][A-Za-z0-9_-]*");
      }
      static constexpr std::size_t close_id[] = {sys_close, sys_close, usr_close, ast_close,
                                                 obs_close};
      if (const auto tok = value_breaks(meta[k].second, close_id[r]); !tok.empty()) {
        return make_error(
            error_code::unrepresentable,
            forged_field(message_path(i, "extra") + ": metadata '" + meta[k].first + "'", tok,
                         "PCML"));
      }
      if (k > 0) out += ' ';
      out += meta[k].first + "=\"" + escape_value(meta[k].second) + "\"";
    }
    if (!meta.empty()) out += "[SEP]";
    if (m.role == role::assistant) {
      if (!m.reasoning.empty()) out += "<think>" + m.reasoning + "</think>\n";
      out += m.content;
      for (std::size_t k = 0; k < m.tool_calls.size(); ++k) {
        if (k > 0 || !m.content.empty()) out += '\n';
        const std::string call = call_json(m.tool_calls[k]);
        if (const auto tok = spelled_token(call, kTokenNames); !tok.empty()) {
          return make_error(
              error_code::unrepresentable,
              forged_field(call_path(i, k) + ": tool call (id, name or arguments)", tok, "PCML"));
        }
        out += "<call>" + call + "</call>";
      }
      if (!left_open) out += "<end>";
    } else {
      out += m.content;
      if (m.role == role::system && !tools_done) out += tools_block();
    }
    if (!left_open) out += close[r];
  }
  if (o.add_generation_prompt) {
    if (!out.empty()) out += "\n\n";
    out += "[AST]";
  }
  return out;
}

}  // namespace ocml::detail::pcml
