// The OpenAI chat projection, both directions.
#include <map>

#include "interchange/json_util.hpp"
#include "ocml/json.hpp"

namespace ocml {

namespace {

// "functions.get_weather" -> "get_weather"; built-ins ("browser.search") stay as they are.
std::string function_name(const std::string& recipient) {
  return recipient.starts_with("functions.") ? recipient.substr(10) : recipient;
}
std::string recipient_of(const std::string& name) {
  if (name.find('.') != std::string::npos) return name;
  return "functions." + name;
}

struct assistant_group {
  json obj;
  std::string reasoning;
  std::string content;
  json calls = json::array();
  bool has_content = false;
  bool open = false;
};

}  // namespace

json to_openai_json(const conversation& c, const openai_options& options) {
  json root = json::object();
  if (!c.tools.empty()) root["tools"] = detail::write_tools(c.tools);
  json msgs = json::array();
  assistant_group g;
  std::size_t generated_ids = 0;
  const auto flush = [&]() {
    if (!g.open) return;
    json o = json::object();
    o["role"] = "assistant";
    o["content"] = g.has_content ? json(g.content) : json(nullptr);
    if (!g.reasoning.empty()) o[options.reasoning_key] = g.reasoning;
    if (!g.calls.empty()) o["tool_calls"] = g.calls;
    msgs.push_back(std::move(o));
    g = assistant_group{};
  };
  for (const auto& m : c.messages) {
    if (m.role != role::assistant) {
      flush();
      json o = json::object();
      o["role"] = std::string(role_name(m.role));
      if (m.role == role::tool) {
        if (!m.call_id.empty()) o["tool_call_id"] = m.call_id;
        if (!m.name.empty()) o["name"] = function_name(m.name);
      } else if (!m.name.empty()) {
        o["name"] = m.name;
      }
      o["content"] = m.content;
      msgs.push_back(std::move(o));
      continue;
    }
    g.open = true;
    if (!m.recipient.empty()) {
      json call = json::object();
      call["id"] = m.call_id.empty() ? "call_" + std::to_string(generated_ids++) : m.call_id;
      call["type"] = "function";
      call["function"] = json{{"name", function_name(m.recipient)}, {"arguments", m.content}};
      g.calls.push_back(std::move(call));
    } else if (m.effective_channel() == "analysis") {
      if (!g.reasoning.empty()) g.reasoning += "\n";
      g.reasoning += m.content;
    } else {
      if (g.has_content) g.content += "\n";
      g.content += m.content;
      g.has_content = true;
      if (m.effective_channel() == "final") flush();
    }
  }
  flush();
  root["messages"] = std::move(msgs);
  return root;
}

result<conversation> from_openai_json(const json& j) {
  if (!j.is_object()) return make_error(error_code::invalid_json, "conversation must be an object");
  conversation c;
  std::string err;
  if (auto t = j.find("tools"); t != j.end() && !t->is_null()) {
    if (!detail::read_tools(*t, c.tools, err)) return make_error(error_code::invalid_json, err);
  }
  auto ms = j.find("messages");
  if (ms == j.end() || !ms->is_array()) {
    return make_error(error_code::invalid_json, "conversation needs a 'messages' array");
  }
  std::map<std::string, std::string> call_names;  // call id -> recipient
  for (std::size_t i = 0; i < ms->size(); ++i) {
    const json& o = (*ms)[i];
    const std::string where = "messages[" + std::to_string(i) + "]";
    if (!o.is_object()) return make_error(error_code::invalid_json, where + " must be an object");
    const std::string r = detail::get_string(o, "role", where, err);
    const auto pr = parse_role(r);
    if (!pr && err.empty()) err = where + ".role '" + r + "' is not a role";
    if (!err.empty()) return make_error(error_code::invalid_json, err);
    const std::string text =
        o.contains("content") ? detail::content_text(o["content"], where, err) : std::string();
    if (*pr != role::assistant) {
      message m;
      m.role = *pr;
      m.content = text;
      if (m.role == role::tool) {
        m.call_id = detail::get_string(o, "tool_call_id", where, err);
        const std::string n = detail::get_string(o, "name", where, err);
        if (!n.empty()) {
          m.name = recipient_of(n);
        } else if (auto it = call_names.find(m.call_id); it != call_names.end()) {
          m.name = it->second;
        }
        m.channel = "commentary";
        m.recipient = "assistant";
      } else {
        m.name = detail::get_string(o, "name", where, err);
      }
      if (!err.empty()) return make_error(error_code::invalid_json, err);
      c.messages.push_back(std::move(m));
      continue;
    }
    std::string reasoning;
    for (const char* key : {"reasoning_content", "thinking", "reasoning"}) {
      if (auto v = o.find(key); v != o.end() && v->is_string()) {
        reasoning = v->get<std::string>();
        break;
      }
    }
    const json* calls = nullptr;
    if (auto tc = o.find("tool_calls"); tc != o.end() && !tc->is_null()) {
      if (!tc->is_array())
        return make_error(error_code::invalid_json, where + ".tool_calls must be an array");
      calls = &*tc;
    }
    if (!reasoning.empty()) {
      message a;
      a.role = role::assistant;
      a.channel = "analysis";
      a.content = reasoning;
      c.messages.push_back(std::move(a));
    }
    const bool has_calls = calls != nullptr && !calls->empty();
    if (!text.empty() || (!has_calls && reasoning.empty())) {
      message f;
      f.role = role::assistant;
      f.channel = has_calls ? "commentary" : "final";
      if (has_calls) f.intent = "preamble";
      f.content = text;
      c.messages.push_back(std::move(f));
    }
    for (std::size_t k = 0; has_calls && k < calls->size(); ++k) {
      const json& call = (*calls)[k];
      const std::string cw = where + ".tool_calls[" + std::to_string(k) + "]";
      if (!call.is_object() || !call.contains("function") || !call["function"].is_object()) {
        return make_error(error_code::invalid_json, cw + " needs a 'function' object");
      }
      const json& f = call["function"];
      message m;
      m.role = role::assistant;
      m.channel = "commentary";
      m.call_id = detail::get_string(call, "id", cw, err);
      m.recipient = recipient_of(detail::get_string(f, "name", cw + ".function", err));
      if (auto a = f.find("arguments"); a != f.end()) {
        m.content = a->is_string() ? a->get<std::string>() : a->dump();
      }
      if (!err.empty()) return make_error(error_code::invalid_json, err);
      if (json::accept(m.content)) m.constrain = "json";
      m.end = end_token::call;
      if (!m.call_id.empty()) call_names[m.call_id] = m.recipient;
      c.messages.push_back(std::move(m));
    }
  }
  return c;
}

}  // namespace ocml
