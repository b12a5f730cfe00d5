// SPDX-License-Identifier: Apache-2.0
// The OpenAI chat projection, both directions (the grouped shape as JSON).
#include "interchange/json_input.hpp"
#include "interchange/json_util.hpp"
#include "ocml/call_id.hpp"
#include "ocml/convert.hpp"
#include "ocml/json.hpp"

namespace ocml {

json to_openai_json(const conversation& c, const openai_options& options) {
  const conversation g = grouped_form(c);
  json root = json::object();
  if (!g.tools.empty()) root["tools"] = detail::write_tools(g.tools);
  json msgs = json::array();
  const call_ids ids = call_ids::from(options.call_id_seed);
  std::size_t call_count = 0;         // every call of the conversation, in order
  std::vector<std::string> open_ids;  // ids of the last turn's calls, for replies without one
  std::size_t next_open = 0;
  for (const auto& m : g.messages) {
    json o = json::object();
    o["role"] = std::string(role_name(m.role));
    if (m.role == role::tool) {
      // Dialects without call ids (ChatML, GabGPT) answer calls in order.
      if (!m.call_id.empty()) {
        o["tool_call_id"] = m.call_id;
      } else if (next_open < open_ids.size()) {
        o["tool_call_id"] = open_ids[next_open++];
      }
    }
    if (!m.name.empty()) o["name"] = m.name;
    if (m.role == role::assistant) {
      const bool bare = m.content.empty() && (!m.tool_calls.empty() || !m.reasoning.empty());
      o["content"] = bare ? json(nullptr) : json(m.content);
      if (!m.reasoning.empty() && options.include_reasoning) o[options.reasoning_key] = m.reasoning;
      // OpenChatML 0.1's other thought blocks stay recoverable beside reasoning_content.
      if (!m.reflection.empty()) o["reflection"] = m.reflection;
      if (!m.introspection.empty()) o["introspection"] = m.introspection;
      if (!m.tool_calls.empty()) {
        json calls = json::array();
        open_ids.clear();
        next_open = 0;
        for (const auto& tc : m.tool_calls) {
          const std::size_t index = call_count++;
          open_ids.push_back(tc.id.empty() ? ids(index) : tc.id);
          calls.push_back(json{{"id", open_ids.back()},
                               {"type", "function"},
                               {"function", json{{"name", tc.name}, {"arguments", tc.arguments}}}});
        }
        if (!options.tool_call_type) {
          for (auto& call : calls) call.erase("type");
        }
        o["tool_calls"] = std::move(calls);
      }
    } else {
      o["content"] = m.content;
    }
    if (!m.flags.empty()) o["flags"] = m.flags;
    msgs.push_back(std::move(o));
  }
  root["messages"] = std::move(msgs);
  if (!g.document.empty()) root["document"] = detail::write_document(g.document);
  return root;
}

namespace detail {

// Reads OpenAI JSON into the grouped shape (one message per OpenAI message).
result<conversation> read_openai_grouped(const json& j) {
  if (!j.is_object()) return make_error(error_code::invalid_json, "conversation must be an object");
  conversation c;
  std::string err;
  if (auto t = j.find("tools"); t != j.end() && !t->is_null()) {
    if (!read_tools(*t, c.tools, err)) return make_error(error_code::invalid_json, err);
  }
  if (auto d = j.find("document"); d != j.end() && !d->is_null()) {
    if (!read_document(*d, c.document, err)) return make_error(error_code::invalid_json, err);
  }
  auto ms = j.find("messages");
  if ((ms == j.end() || ms->is_null()) && !c.document.empty()) return c;
  if (ms == j.end() || !ms->is_array()) {
    return make_error(error_code::invalid_json, "conversation needs a 'messages' array");
  }
  for (std::size_t i = 0; i < ms->size(); ++i) {
    const json& o = (*ms)[i];
    const std::string where = "messages[" + std::to_string(i) + "]";
    if (!o.is_object()) return make_error(error_code::invalid_json, where + " must be an object");
    message m;
    const std::string r = get_string(o, "role", where, err);
    const auto pr = parse_role(r);
    if (!pr && err.empty()) err = where + ".role '" + r + "' is not a role";
    if (!err.empty()) return make_error(error_code::invalid_json, err);
    m.role = *pr;
    if (auto ct = o.find("content"); ct != o.end()) m.content = content_text(*ct, where, err);
    m.name = get_string(o, "name", where, err);
    if (m.role == role::tool) m.call_id = get_string(o, "tool_call_id", where, err);
    m.reflection = get_string(o, "reflection", where, err);
    m.introspection = get_string(o, "introspection", where, err);
    if (auto fl = o.find("flags"); fl != o.end() && fl->is_array()) {
      for (const auto& f : *fl) {
        if (f.is_string()) m.flags.push_back(f.get<std::string>());
      }
    }
    if (m.role == role::assistant) {
      m.channel = "final";
      for (const char* key : {"reasoning_content", "thinking", "reasoning"}) {
        if (auto v = o.find(key); v != o.end() && v->is_string()) {
          m.reasoning = v->get<std::string>();
          break;
        }
      }
      if (auto tc = o.find("tool_calls"); tc != o.end() && !tc->is_null()) {
        if (!tc->is_array()) {
          return make_error(error_code::invalid_json, where + ".tool_calls must be an array");
        }
        for (std::size_t k = 0; k < tc->size(); ++k) {
          const json& call = (*tc)[k];
          const std::string cw = where + ".tool_calls[" + std::to_string(k) + "]";
          if (!call.is_object() || !call.contains("function") || !call["function"].is_object()) {
            return make_error(error_code::invalid_json, cw + " needs a 'function' object");
          }
          const json& f = call["function"];
          tool_call t;
          t.id = get_string(call, "id", cw, err);
          t.name = get_string(f, "name", cw + ".function", err);
          if (auto a = f.find("arguments"); a != f.end()) {
            t.arguments = a->is_string() ? a->get<std::string>() : a->dump();
          }
          m.tool_calls.push_back(std::move(t));
        }
      }
    }
    if (!err.empty()) return make_error(error_code::invalid_json, err);
    c.messages.push_back(std::move(m));
  }
  return c;
}

}  // namespace detail

result<conversation> from_openai_json(const json& j) {
  auto g = detail::read_openai_grouped(j.is_array() ? json{{"messages", j}} : j);
  if (!g) return g;
  return split_form(*g);
}

}  // namespace ocml
