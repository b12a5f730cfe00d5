// OpenChatML 0.1 renderer.
#include "dialects/ocml01/ocml01.hpp"
#include "interchange/json_util.hpp"
#include "interchange/pyjson.hpp"
#include "ocml/convert.hpp"

namespace ocml::detail::ocml01 {

std::string function_list_block(const std::vector<tool>& tools) {
  std::string out = "\n<|function_list|>";
  for (const auto& t : tools) {
    json o = t.source;
    if (o.is_null()) {
      json f = json::object();
      f["name"] = t.name;
      if (!t.description.empty()) f["description"] = t.description;
      if (!t.parameters.is_null()) f["parameters"] = t.parameters;
      o = json{{"type", "function"}, {"function", f}};
    }
    out += "\n" + python_json_dumps(o);
  }
  out += "\n<|function_list|>";
  return out;
}

namespace {

std::string forged(std::string_view text, std::size_t i, std::string_view what,
                   const render_options& o) {
  for (const auto& t : kFixedTokens) {
    if (text.find(t) != std::string_view::npos) {
      return "message " + std::to_string(i) + ": " + std::string(what) + " contains '" + t +
             "', which OpenChatML 0.1 cannot escape";
    }
  }
  for (const std::string& t : {o.bos, o.eos}) {
    if (!t.empty() && text.find(t) != std::string_view::npos) {
      return "message " + std::to_string(i) + ": " + std::string(what) + " contains '" + t + "'";
    }
  }
  return {};
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
      if (auto err = forged(t, i, "document part", o); !err.empty()) {
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
  bool tools_pending = !c.tools.empty();
  const auto has_list = [](const message& m) {
    return m.content.find("<|function_list|>") != std::string::npos;
  };
  for (const auto& m : c.messages) {
    if (m.role == role::system && has_list(m)) tools_pending = false;  // written verbatim
  }
  for (std::size_t i = 0; i < c.messages.size(); ++i) {
    const message& m = c.messages[i];
    role r = m.role;
    if (r == role::developer) {
      r = role::system;
      if (warnings != nullptr) {
        diagnostic d = make_error(error_code::unrepresentable,
                                  "message " + std::to_string(i) +
                                      ": OpenChatML 0.1 has no developer role (written as system)");
        d.level = severity::warning;
        warnings->push_back(std::move(d));
      }
    }
    // System content may hold a function list (and its instructions) verbatim.
    if (r != role::system) {
      if (auto err = forged(m.content, i, "content", o); !err.empty()) {
        return make_error(error_code::unrepresentable, err);
      }
    }
    for (std::string_view t : {std::string_view(m.reasoning), std::string_view(m.reflection),
                               std::string_view(m.introspection)}) {
      if (auto err = forged(t, i, "a thought block", o); !err.empty()) {
        return make_error(error_code::unrepresentable, err);
      }
    }
    if (!m.name.empty() && m.name.find_first_of(" \t\r\n") != std::string::npos) {
      return make_error(error_code::unrepresentable, "message " + std::to_string(i) + ": name '" +
                                                         m.name + "' contains whitespace");
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
          return make_error(error_code::unrepresentable,
                            "message " + std::to_string(i) + ": flag '" + f +
                                "' is not reflect, introspect or reason");
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
