// SPDX-License-Identifier: Apache-2.0
// The lossless native JSON form and format detection.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/line_tracker.hpp"
#include "core/utf8.hpp"
#include "interchange/json_input.hpp"
#include "interchange/json_path.hpp"
#include "interchange/json_util.hpp"
#include "ocml/json.hpp"

namespace ocml {

namespace detail {

bool read_tools(const json& arr, std::vector<tool>& out, std::string& err) {
  if (!arr.is_array()) {
    err = "tools must be an array";
    return false;
  }
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const json& t = arr[i];
    const std::string where = "tools[" + std::to_string(i) + "]";
    if (!t.is_object()) {
      err = where + " must be an object";
      return false;
    }
    const json& f = t.contains("function") ? t["function"] : t;
    if (!f.is_object()) {
      err = where + ".function must be an object";
      return false;
    }
    tool x;
    x.name = get_string(f, "name", where, err);
    x.description = get_string(f, "description", where, err);
    if (auto p = f.find("parameters"); p != f.end()) x.parameters = *p;
    x.source = t;
    if (x.name.empty() && err.empty()) err = where + " has no name";
    if (!err.empty()) return false;
    out.push_back(std::move(x));
  }
  return true;
}

json write_document(const std::vector<document_part>& parts) {
  json arr = json::array();
  for (const auto& p : parts) {
    json o = json::object();
    o["text"] = p.text;
    if (p.fim) o["fim"] = json{{"prefix", p.prefix}, {"middle", p.middle}, {"suffix", p.suffix}};
    arr.push_back(std::move(o));
  }
  return arr;
}

bool read_document(const json& arr, std::vector<document_part>& out, std::string& err) {
  if (!arr.is_array()) {
    err = "document must be an array of parts";
    return false;
  }
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string where = "document[" + std::to_string(i) + "]";
    if (!arr[i].is_object()) {
      err = where + " must be an object";
      return false;
    }
    document_part p;
    p.text = get_string(arr[i], "text", where, err);
    if (auto f = arr[i].find("fim"); f != arr[i].end() && f->is_object()) {
      p.fim = true;
      p.prefix = get_string(*f, "prefix", where + ".fim", err);
      p.middle = get_string(*f, "middle", where + ".fim", err);
      p.suffix = get_string(*f, "suffix", where + ".fim", err);
    }
    if (!err.empty()) return false;
    out.push_back(std::move(p));
  }
  return true;
}

json write_tools(const std::vector<tool>& tools) {
  json arr = json::array();
  for (const auto& t : tools) {
    if (!t.source.is_null()) {
      arr.push_back(t.source);
      continue;
    }
    json f = json::object();
    f["name"] = t.name;
    if (!t.description.empty()) f["description"] = t.description;
    if (!t.parameters.is_null()) f["parameters"] = t.parameters;
    arr.push_back(json{{"type", "function"}, {"function", f}});
  }
  return arr;
}

}  // namespace detail

namespace {

json header_json(const document_header& h) {
  json j = json::object();
  if (!h.version.empty()) j["version"] = h.version;
  if (!h.model.empty()) j["model"] = h.model;
  if (!h.generation_settings.is_null()) j["generation_settings"] = h.generation_settings;
  if (!h.capabilities.is_null()) j["capabilities"] = h.capabilities;
  if (!h.profiles.is_null()) j["profiles"] = h.profiles;
  for (const auto& [k, v] : h.extra.items()) j[k] = v;
  return j;
}

bool read_header(const json& j, document_header& h, std::string& err) {
  if (!j.is_object()) {
    err = "header must be an object";
    return false;
  }
  h.present = true;
  for (const auto& [k, v] : j.items()) {
    if (k == "version" || k == "model") {
      (k == "version" ? h.version : h.model) = v.is_string() ? v.get<std::string>() : v.dump();
    } else if (k == "generation_settings") {
      h.generation_settings = v;
    } else if (k == "capabilities") {
      h.capabilities = v;
    } else if (k == "profiles") {
      h.profiles = v;
    } else {
      h.extra[k] = v;
    }
  }
  return true;
}

void put(json& o, const char* key, const std::string& v) {
  if (!v.empty()) o[key] = v;
}

}  // namespace

json to_native_json(const conversation& c) {
  json root = json::object();
  if (c.header.present) root["header"] = header_json(c.header);
  if (!c.tools.empty()) root["tools"] = detail::write_tools(c.tools);
  json msgs = json::array();
  for (const auto& m : c.messages) {
    json o = json::object();
    o["role"] = std::string(role_name(m.role));
    put(o, "name", m.name);
    put(o, "recipient", m.recipient);
    put(o, "channel", m.channel);
    put(o, "call_id", m.call_id);
    put(o, "intent", m.intent);
    put(o, "content_type", m.content_type);
    put(o, "constrain", m.constrain);
    o["content"] = m.content;
    put(o, "reasoning", m.reasoning);
    put(o, "reflection", m.reflection);
    put(o, "introspection", m.introspection);
    if (!m.flags.empty()) o["flags"] = m.flags;
    if (!m.tool_calls.empty()) {
      json calls = json::array();
      for (const auto& tc : m.tool_calls) {
        json t = json::object();
        put(t, "id", tc.id);
        t["name"] = tc.name;
        t["arguments"] = tc.arguments;
        calls.push_back(std::move(t));
      }
      o["tool_calls"] = std::move(calls);
    }
    if (m.end != end_token::unspecified) o["end"] = std::string(end_name(m.end));
    if (!m.extra.empty()) {
      json x = json::object();
      for (const auto& [k, v] : m.extra) x[k] = v;
      o["extra"] = x;
    }
    msgs.push_back(std::move(o));
  }
  root["messages"] = std::move(msgs);
  if (!c.document.empty()) root["document"] = detail::write_document(c.document);
  return root;
}

result<conversation> from_native_json(const json& j) {
  if (!j.is_object()) return make_error(error_code::invalid_json, "conversation must be an object");
  conversation c;
  std::string err;
  if (auto h = j.find("header"); h != j.end() && !h->is_null()) {
    if (!read_header(*h, c.header, err)) return make_error(error_code::invalid_json, err);
  }
  if (auto t = j.find("tools"); t != j.end() && !t->is_null()) {
    if (!detail::read_tools(*t, c.tools, err)) return make_error(error_code::invalid_json, err);
  }
  if (auto d = j.find("document"); d != j.end() && !d->is_null()) {
    if (!detail::read_document(*d, c.document, err))
      return make_error(error_code::invalid_json, err);
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
    const std::string r = detail::get_string(o, "role", where, err);
    if (auto pr = parse_role(r)) {
      m.role = *pr;
    } else if (r.starts_with("functions.")) {
      m.role = role::tool;
      m.name = r;
    } else if (err.empty()) {
      err = where + ".role '" + r + "' is not a role";
    }
    if (auto n = detail::get_string(o, "name", where, err); !n.empty()) m.name = n;
    m.recipient = detail::get_string(o, "recipient", where, err);
    m.channel = detail::get_string(o, "channel", where, err);
    m.call_id = detail::get_string(o, "call_id", where, err);
    m.intent = detail::get_string(o, "intent", where, err);
    m.content_type = detail::get_string(o, "content_type", where, err);
    m.constrain = detail::get_string(o, "constrain", where, err);
    if (auto ct = o.find("content"); ct != o.end()) {
      m.content = detail::content_text(*ct, where, err);
    }
    m.reasoning = detail::get_string(o, "reasoning", where, err);
    m.reflection = detail::get_string(o, "reflection", where, err);
    m.introspection = detail::get_string(o, "introspection", where, err);
    if (auto fl = o.find("flags"); fl != o.end() && fl->is_array()) {
      for (const auto& f : *fl) {
        if (f.is_string()) m.flags.push_back(f.get<std::string>());
      }
    }
    if (auto tc = o.find("tool_calls"); tc != o.end() && tc->is_array()) {
      for (const auto& t : *tc) {
        if (!t.is_object()) {
          err = where + ".tool_calls entries must be objects";
          break;
        }
        tool_call x;
        x.id = detail::get_string(t, "id", where + ".tool_calls", err);
        x.name = detail::get_string(t, "name", where + ".tool_calls", err);
        if (auto a = t.find("arguments"); a != t.end()) {
          x.arguments = a->is_string() ? a->get<std::string>() : a->dump();
        }
        m.tool_calls.push_back(std::move(x));
      }
    }
    const std::string e = detail::get_string(o, "end", where, err);
    if (!e.empty()) {
      if (auto pe = parse_end(e)) {
        m.end = *pe;
      } else if (err.empty()) {
        err = where + ".end '" + e + "' is not end, return, call or unterminated";
      }
    }
    if (auto x = o.find("extra"); x != o.end() && x->is_object()) {
      for (const auto& [k, v] : x->items()) {
        if (!v.is_string()) {
          err = where + ".extra." + k + " must be a string";
          break;
        }
        m.extra.emplace_back(k, v.get<std::string>());
      }
    }
    if (!err.empty()) return make_error(error_code::invalid_json, err);
    c.messages.push_back(std::move(m));
  }
  return c;
}

json_format detect_json_format(const json& j) {
  // OpenAI chat JSON is the default: the native form is chosen only by keys that only it
  // has (decision 34), never by the absence of OpenAI keys.
  if (j.is_array()) return json_format::openai;  // a bare list of messages
  if (!j.is_object()) return json_format::native;
  if (j.contains("header") || j.contains("document")) return json_format::native;
  if (!j.contains("messages") || !j["messages"].is_array()) return json_format::native;
  bool native = false;
  for (const auto& m : j["messages"]) {
    if (!m.is_object()) continue;
    for (const char* k : {"end", "call_id", "constrain", "intent", "extra", "recipient", "channel",
                          "content_type", "reflection", "introspection", "flags"}) {
      if (m.contains(k)) native = true;
    }
    if (auto tc = m.find("tool_calls"); tc != m.end() && tc->is_array()) {
      for (const auto& t : *tc) {
        if (t.is_object() && t.contains("name") && !t.contains("function")) native = true;
      }
    }
    if (auto c = m.find("content"); c != m.end() && c->is_array()) {
      for (const auto& part : *c) {
        if (part.is_object() && part.contains("type") &&
            (part["type"] == "system_content" || part["type"] == "developer_content")) {
          return json_format::harmony;
        }
      }
    }
  }
  return native ? json_format::native : json_format::openai;
}

diagnostic detail::error_at(error_code code, std::string_view text, std::size_t off,
                            const std::string& message) {
  diagnostic d = make_error(code, message);
  d.offset = off;
  const detail::position p = detail::advance({}, text.substr(0, std::min(off, text.size())));
  d.line = p.line;
  d.column = p.column;
  return d;
}

namespace {

// The offset of the first number outside strings that a double cannot hold (what makes
// nlohmann-json throw out_of_range after accepting the syntax), or the end.
std::size_t overflowing_number(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      continue;
    }
    if (c != '-' && (c < '0' || c > '9')) continue;
    std::size_t e = i + 1;
    while (e < text.size() &&
           std::string_view("0123456789.eE+-").find(text[e]) != std::string_view::npos) {
      ++e;
    }
    const std::string number(text.substr(i, e - i));
    if (std::isinf(std::strtod(number.c_str(), nullptr))) return i;
    i = e - 1;
  }
  return text.size();
}

}  // namespace

result<json> parse_json_text(std::string_view text, std::size_t max_depth) {
  if (const auto deep = detail::json_too_deep(text, max_depth); deep != std::string_view::npos) {
    return detail::error_at(error_code::limit_exceeded, text, deep,
                            "JSON nested deeper than " + std::to_string(max_depth) + " levels");
  }
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    return detail::error_at(error_code::invalid_json, text, e.byte > 0 ? e.byte - 1 : 0, e.what());
  } catch (const json::exception& e) {
    // Valid syntax nlohmann-json cannot hold: a number overflowing a double.
    return detail::error_at(error_code::invalid_json, text, overflowing_number(text), e.what());
  }
}

void detail::place_at_path(diagnostic& d, std::string_view text) {
  const std::string_view path = leading_path(d.message);
  if (path.empty()) return;
  if (const auto at = json_path_offset(text, path)) {
    const diagnostic placed = detail::error_at(d.code, text, *at, d.message);
    d.offset = placed.offset;
    d.line = placed.line;
    d.column = placed.column;
  }
}

result<std::vector<tool>> tools_from_json(const json& tools) {
  std::vector<tool> out;
  std::string err;
  if (!detail::read_tools(tools, out, err)) return make_error(error_code::invalid_json, err);
  return out;
}

std::string repair_utf8(std::string_view s, bool* repaired) {
  return detail::valid_utf8(s, repaired);
}

std::string dump_json(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace ocml
