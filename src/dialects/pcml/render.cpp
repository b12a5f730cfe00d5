// PCML renderer (grouped shape: reasoning and tool calls inside [AST]).
#include <string>

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
      return "message " + std::to_string(i) + ": " + std::string(what) + " contains '" + t +
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

}  // namespace

result<std::string> render(const conversation& c0, const render_options& o,
                           std::vector<diagnostic>* warnings) {
  const conversation c = grouped_form(c0);
  std::string out;
  bool tools_done = c.tools.empty();
  const auto tools_block = [&]() {
    tools_done = true;
    return "\n<tools>" + tools_json(c.tools) + "</tools>";
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
      diagnostic d = make_error(
          error_code::unrepresentable,
          "message " + std::to_string(i) + ": PCML has no developer role (written as [SYS])");
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
    for (const auto& kv : m.extra) meta.push_back(kv);
    for (std::size_t k = 0; k < meta.size(); ++k) {
      if (!valid_key(meta[k].first)) {
        return make_error(error_code::unrepresentable, "message " + std::to_string(i) +
                                                           ": metadata key '" + meta[k].first +
                                                           "' is not [A-Za-z_][A-Za-z0-9_-]*");
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
        out += "<call>" + call_json(m.tool_calls[k]) + "</call>";
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
