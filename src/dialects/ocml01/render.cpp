// SPDX-License-Identifier: Apache-2.0
// OpenChatML 0.1 renderer.
#include "core/forge.hpp"
#include "core/json_extent.hpp"
#include "core/message_path.hpp"
#include "dialects/ocml01/ocml01.hpp"
#include "interchange/json_util.hpp"
#include "interchange/pyjson.hpp"
#include "ocml/convert.hpp"

namespace ocml::detail::ocml01 {

namespace {

std::string tool_json(const tool& t) {
  json o = t.source;
  if (o.is_null()) {
    json f = json::object();
    f["name"] = t.name;
    if (!t.description.empty()) f["description"] = t.description;
    if (!t.parameters.is_null()) f["parameters"] = t.parameters;
    o = json{{"type", "function"}, {"function", f}};
  }
  return python_json_dumps(o);
}

}  // namespace

std::string function_list_block(const std::vector<tool>& tools) {
  std::string out = "\n<|function_list|>";
  for (const auto& t : tools) out += "\n" + tool_json(t);
  out += "\n<|function_list|>";
  return out;
}

namespace {

// Reads the JSON objects of one function list's text.
void collect_tools(std::string_view text, std::vector<tool>& out) {
  std::size_t i = 0;
  while (i < text.size()) {
    i = text.find('{', i);
    if (i == std::string_view::npos) return;
    json_extent x;
    std::size_t k = i;
    for (; k < text.size() && !x.complete(); ++k) x.feed(text.substr(k, 1));
    if (!x.complete()) return;
    if (auto parsed = try_parse_json(text.substr(i, k - i))) {
      std::string err;
      std::vector<tool> one;
      json arr = json::array({std::move(*parsed)});
      if (read_tools(arr, one, err)) out.push_back(std::move(one[0]));
    }
    i = k;
  }
}

bool same_tools(const std::vector<tool>& a, const std::vector<tool>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (a[k].name != b[k].name || a[k].description != b[k].description ||
        a[k].parameters != b[k].parameters) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::vector<tool> tools_in_function_lists(std::string_view text) {
  std::vector<tool> tools;
  const std::string_view tok = "<|function_list|>";
  for (std::size_t pos = text.find(tok); pos != std::string_view::npos;) {
    const std::size_t start = pos + tok.size();
    const std::size_t stop = std::min(text.find(tok, start), text.size());
    collect_tools(text.substr(start, stop - start), tools);
    pos = stop == text.size() ? std::string_view::npos : stop + tok.size();
    if (pos != std::string_view::npos) pos = text.find(tok, pos);
  }
  return tools;
}

namespace {

// OpenChatML 0.1 has no escape: a field that spells one of its tokens (but `allowed`, the
// function list a system message may hold verbatim) cannot be written.
std::string forged(std::string_view text, const std::string& field, const render_options& o,
                   std::string_view allowed = {}) {
  for (const auto& t : kFixedTokens) {
    if (t != allowed && text.find(t) != std::string_view::npos) {
      return forged_field(field, t, "OpenChatML 0.1");
    }
  }
  for (const std::string& t : {o.bos, o.eos}) {
    if (!t.empty() && text.find(t) != std::string_view::npos) {
      return forged_field(field, t, "OpenChatML 0.1");
    }
  }
  return {};
}
std::string at(std::string path, std::string_view what) {
  path += ": ";
  path += what;
  return path;
}

std::string call_json(const tool_call& tc) {
  json o = json::object();
  auto parsed = try_parse_json(tc.arguments);
  o["arguments"] = parsed ? std::move(*parsed) : json(tc.arguments);
  o["name"] = tc.name;
  return python_json_dumps(o);
}

result<std::string> render_document(const conversation& c, const render_options& o) {
  std::string out;
  for (std::size_t i = 0; i < c.document.size(); ++i) {
    const document_part& p = c.document[i];
    for (std::string_view t : {std::string_view(p.text), std::string_view(p.prefix),
                               std::string_view(p.middle), std::string_view(p.suffix)}) {
      if (auto err = forged(t, "document part " + std::to_string(i), o); !err.empty()) {
        return make_error(error_code::unrepresentable, err);
      }
    }
    if (i > 0) out += "<|file_separator|>";
    out += p.text;
    if (p.fim) {
      out +=
          "<|fim_prefix|>" + p.prefix + "<|fim_middle|>" + p.middle + "<|fim_suffix|>" + p.suffix;
    }
  }
  return out;
}

}  // namespace

result<std::string> render(const conversation& c0, const render_options& o,
                           std::vector<diagnostic>* warnings) {
  if (!c0.document.empty()) return render_document(c0, o);
  const conversation c = grouped_form(c0);
  std::string out = o.bos;
  // Tools a system message's own function lists already hold are written there, verbatim;
  // otherwise ocml appends its block to the first system message (or writes one).
  // (The decoder reads each system message's lists as the conversation's tools, the last
  // one's winning: lists in two system messages cannot be read back.)
  std::vector<tool> listed;
  std::size_t with_lists = 0;
  for (const auto& m : c.messages) {
    if (m.role != role::system) continue;
    auto tools = tools_in_function_lists(m.content);
    if (tools.empty()) continue;
    ++with_lists;
    for (auto& t : tools) listed.push_back(std::move(t));
  }
  if (with_lists > 1) {
    return make_error(error_code::unrepresentable,
                      "function lists in two system messages cannot be read back");
  }
  if (!listed.empty() && !same_tools(listed, c.tools)) {
    return make_error(error_code::unrepresentable,
                      "system content holds function lists whose tools are not the "
                      "conversation's tools (they would be read back instead)");
  }
  bool tools_pending = !c.tools.empty() && listed.empty();
  for (std::size_t k = 0; k < c.tools.size(); ++k) {
    if (auto err = forged(tool_json(c.tools[k]), "tools[" + std::to_string(k) + "]", o);
        !err.empty()) {
      return make_error(error_code::unrepresentable, err);
    }
  }
  for (std::size_t i = 0; i < c.messages.size(); ++i) {
    const message& m = c.messages[i];
    role r = m.role;
    if (r == role::developer) {
      r = role::system;
      if (warnings != nullptr) {
        diagnostic d = make_error(
            error_code::unrepresentable,
            message_path(i, "role") + ": OpenChatML 0.1 has no developer role (written as system)");
        d.level = severity::warning;
        warnings->push_back(std::move(d));
      }
    }
    // System content holds function lists and instructions verbatim: there only
    // <|im_end|> and thought flags at its very end are markup.
    if (r == role::system) {
      if (m.content.find(kFixedTokenNames[im_end]) != std::string::npos) {
        return make_error(error_code::unrepresentable,
                          forged_field(at(message_path(i, "content"), "content"),
                                       kFixedTokenNames[im_end], "OpenChatML 0.1"));
      }
      std::size_t lists = 0;
      const std::string_view list = kFixedTokenNames[function_list];
      for (auto p = m.content.find(list); p != std::string::npos; p = m.content.find(list, p + 1)) {
        ++lists;
      }
      if (lists % 2 != 0) {
        return make_error(
            error_code::unrepresentable,
            at(message_path(i, "content"), "content") + " opens a function list it does not close");
      }
      for (const std::size_t f : {flag_reflect, flag_introspect, flag_reason}) {
        if (m.content.ends_with(kFixedTokenNames[f])) {
          return make_error(error_code::unrepresentable,
                            at(message_path(i, "content"), "content") + " ends with '" +
                                std::string(kFixedTokenNames[f]) +
                                "', which would be read back as a thought flag");
        }
      }
    } else if (auto err = forged(m.content, at(message_path(i, "content"), "content"), o);
               !err.empty()) {
      return make_error(error_code::unrepresentable, err);
    }
    if (auto err = forged(m.name, at(message_path(i, "name"), "name"), o); !err.empty()) {
      return make_error(error_code::unrepresentable, err);
    }
    for (std::size_t k = 0; k < m.tool_calls.size(); ++k) {
      const std::string where = at(call_path(i, k), "tool call (name or arguments)");
      if (auto err = forged(call_json(m.tool_calls[k]), where, o); !err.empty()) {
        return make_error(error_code::unrepresentable, err);
      }
    }
    for (std::string_view t : {std::string_view(m.reasoning), std::string_view(m.reflection),
                               std::string_view(m.introspection)}) {
      if (auto err = forged(t, at(message_path(i), "a thought block"), o); !err.empty()) {
        return make_error(error_code::unrepresentable, err);
      }
    }
    if (!m.name.empty() && m.name.find_first_of(" \t\r\n") != std::string::npos) {
      return make_error(error_code::unrepresentable,
                        message_path(i, "name") + ": name '" + m.name + "' contains whitespace");
    }
    if (i > 0) out += '\n';
    out += "<|im_start|>";
    out += role_name(r);
    if (!m.name.empty() && r != role::tool) out += " name=" + m.name;
    out += '\n';
    if (r == role::assistant) {
      if (!m.reflection.empty()) out += "<|start_reflect|>" + m.reflection + "<|end_reflect|>\n";
      if (!m.introspection.empty()) {
        out += "<|start_introspect|>" + m.introspection + "<|end_introspect|>\n";
      }
      if (!m.reasoning.empty()) out += "<|start_reason|>" + m.reasoning + "<|end_reason|>\n";
    }
    if (r == role::tool) out += "<|function_output|>\n";
    out += m.content;
    if (r == role::system) {
      if (tools_pending) {
        out += function_list_block(c.tools);
        tools_pending = false;
      }
      for (const auto& f : m.flags) {
        if (f != "reflect" && f != "introspect" && f != "reason") {
          return make_error(
              error_code::unrepresentable,
              message_path(i, "flags") + ": flag '" + f + "' is not reflect, introspect or reason");
        }
        out += "<|" + f + "|>";
      }
    }
    for (const auto& tc : m.tool_calls) out += "<|function_call|>\n" + call_json(tc) + "\n";
    // Only the last message can stay open (a stream cut short); earlier ones are closed.
    if (m.end != end_token::unterminated || i + 1 != c.messages.size()) out += "<|im_end|>";
  }
  if (tools_pending) {  // tools but no system message to carry them
    out.insert(o.bos.size(), "<|im_start|>system\n" + function_list_block(c.tools).substr(1) +
                                 "<|im_end|>" + (c.messages.empty() ? "" : "\n"));
  }
  if (o.add_generation_prompt) {
    if (!c.messages.empty()) out += '\n';
    out += "<|im_start|>assistant\n";
  } else if (c.messages.empty() || c.messages.back().end != end_token::unterminated) {
    out += o.eos;  // an unterminated last message leaves the sequence open
  }
  return out;
}

}  // namespace ocml::detail::ocml01
