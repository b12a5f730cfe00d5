// SPDX-License-Identifier: Apache-2.0
// harmony's own Conversation JSON (serde shape of openai/harmony's chat.rs).
#include "interchange/json_util.hpp"
#include "ocml/harmony.hpp"

namespace ocml::harmony {

namespace {

bool read_namespaces(const json& j, std::vector<tool_namespace>& out, std::string& err) {
  if (j.is_null()) return true;
  if (!j.is_object()) {
    err = "tools must be an object of namespaces";
    return false;
  }
  for (const auto& [key, ns] : j.items()) {
    tool_namespace t;
    t.name = ns.contains("name") && ns["name"].is_string() ? ns["name"].get<std::string>() : key;
    if (auto d = ns.find("description"); d != ns.end() && d->is_string()) t.description = *d;
    if (auto ts = ns.find("tools"); ts != ns.end() && ts->is_array()) {
      for (const auto& x : *ts) {
        tool_description td;
        td.name = detail::get_string(x, "name", "tool", err);
        td.description = detail::get_string(x, "description", "tool", err);
        if (auto p = x.find("parameters"); p != x.end()) td.parameters = *p;
        t.tools.push_back(std::move(td));
      }
    }
    out.push_back(std::move(t));
  }
  return err.empty();
}

std::optional<std::string> opt_string(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

bool has_function_tools(const json& messages) {
  for (const auto& m : messages) {
    auto c = m.find("content");
    if (c == m.end() || !c->is_array()) continue;
    for (const auto& part : *c) {
      if (!part.is_object() || part.value("type", "") != "developer_content") continue;
      auto tools = part.find("tools");
      if (tools == part.end() || !tools->is_object()) continue;
      auto fns = tools->find("functions");
      if (fns != tools->end() && fns->contains("tools") && (*fns)["tools"].is_array() &&
          !(*fns)["tools"].empty()) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

result<conversation> from_conversation_json(const json& j) {
  if (!j.is_object() || !j.contains("messages") || !j["messages"].is_array()) {
    return make_error(error_code::invalid_json, "harmony conversation needs a 'messages' array");
  }
  const json& msgs = j["messages"];
  const bool fn_tools = has_function_tools(msgs);
  conversation c;
  std::string err;
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    const json& o = msgs[i];
    const std::string where = "messages[" + std::to_string(i) + "]";
    if (!o.is_object()) return make_error(error_code::invalid_json, where + " must be an object");
    message m;
    const std::string r = detail::get_string(o, "role", where, err);
    if (auto pr = parse_role(r)) {
      m.role = *pr;
    } else if (err.empty()) {
      err = where + ".role '" + r + "' is not a harmony role";
    }
    m.name = detail::get_string(o, "name", where, err);
    m.recipient = detail::get_string(o, "recipient", where, err);
    m.channel = detail::get_string(o, "channel", where, err);
    const std::string ct = detail::get_string(o, "content_type", where, err);
    if (ct.starts_with("<|constrain|>")) {
      m.constrain = ct.substr(13);
    } else {
      m.content_type = ct;
    }
    const json content = o.value("content", json());
    if (content.is_array()) {
      for (const auto& part : content) {
        const std::string type = part.is_object() ? part.value("type", "text") : "text";
        if (type == "system_content") {
          system_content s;
          s.model_identity = opt_string(part, "model_identity");
          if (auto e = opt_string(part, "reasoning_effort")) {
            s.effort = *e == "Low" || *e == "low"     ? reasoning_effort::low
                       : *e == "High" || *e == "high" ? reasoning_effort::high
                                                      : reasoning_effort::medium;
          }
          s.conversation_start_date = opt_string(part, "conversation_start_date");
          s.knowledge_cutoff = opt_string(part, "knowledge_cutoff");
          if (auto cc = part.find("channel_config"); cc != part.end() && cc->is_object()) {
            s.valid_channels = cc->value("valid_channels", std::vector<std::string>{});
            s.channel_required = cc->value("channel_required", false);
          }
          if (!read_namespaces(part.value("tools", json()), s.tools, err)) break;
          m.content += render_system_content(s, fn_tools);
        } else if (type == "developer_content") {
          developer_content d;
          d.instructions = opt_string(part, "instructions");
          if (!read_namespaces(part.value("tools", json()), d.tools, err)) break;
          m.content += render_developer_content(d);
        } else {
          m.content += detail::content_text(json::array({part}), where, err);
        }
      }
    } else {
      m.content = detail::content_text(content, where, err);
    }
    if (!err.empty()) return make_error(error_code::invalid_json, err);
    c.messages.push_back(std::move(m));
  }
  return c;
}

json to_conversation_json(const conversation& c) {
  json msgs = json::array();
  for (const auto& m : c.messages) {
    json o = json::object();
    o["role"] = std::string(role_name(m.role));
    if (!m.name.empty()) o["name"] = m.name;
    if (!m.recipient.empty()) o["recipient"] = m.recipient;
    o["content"] = json::array({json{{"type", "text"}, {"text", m.content}}});
    if (!m.channel.empty()) o["channel"] = m.channel;
    if (!m.constrain.empty()) {
      o["content_type"] = "<|constrain|>" + m.constrain;
    } else if (!m.content_type.empty()) {
      o["content_type"] = m.content_type;
    }
    msgs.push_back(std::move(o));
  }
  return json{{"messages", msgs}};
}

}  // namespace ocml::harmony
