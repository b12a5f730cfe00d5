// ChatML renderer: byte-identical to Qwen2.5-Instruct's chat template as transformers
// renders it (tool arguments as objects, JSON as Python's json.dumps(ensure_ascii=False)).
#include <string>

#include "dialects/chatml/chatml.hpp"
#include "interchange/pyjson.hpp"
#include "ocml/convert.hpp"

namespace ocml::detail::chatml {

namespace {

json tool_object(const tool& t) {
  if (!t.source.is_null()) return t.source;
  json f = json::object();
  f["name"] = t.name;
  if (!t.description.empty()) f["description"] = t.description;
  if (!t.parameters.is_null()) f["parameters"] = t.parameters;
  return json{{"type", "function"}, {"function", f}};
}

// ChatML has no escape: content that spells its markup cannot be written.
std::string forged(const message& m, std::size_t i) {
  std::vector<std::string_view> banned = {"<|im_start|>", "<|im_end|>"};
  if (m.role == role::assistant) {
    banned.insert(banned.end(), {"<tool_call>", "</tool_call>"});
  } else if (m.role != role::system) {
    banned.insert(banned.end(), {"<tool_response>", "</tool_response>"});
  }
  for (auto b : banned) {
    if (m.content.find(b) != std::string::npos) {
      return "message " + std::to_string(i) + ": content contains '" + std::string(b) +
             "', which ChatML cannot escape";
    }
  }
  if (m.role == role::system && m.content.ends_with(kToolsTail)) {
    return "message " + std::to_string(i) + ": system content ends with the tools block";
  }
  return {};
}

void warn(std::vector<diagnostic>* w, std::string text) {
  if (w == nullptr) return;
  diagnostic d = make_error(error_code::unrepresentable, std::move(text));
  d.level = severity::warning;
  w->push_back(std::move(d));
}

}  // namespace

result<std::string> render(const conversation& c0, const render_options& o,
                           std::vector<diagnostic>* warnings) {
  const conversation c = grouped_form(c0);
  const auto& ms = c.messages;
  std::string out;
  const bool first_system = !ms.empty() && ms[0].role == role::system;
  out += "<|im_start|>system\n";
  out += first_system ? std::string_view(ms[0].content) : kDefaultSystem;
  if (!c.tools.empty()) {
    out += kToolsHead;
    for (const auto& t : c.tools) {
      out += '\n';
      python_json_dumps(tool_object(t), out);
    }
    out += kToolsTail;
  }
  out += "<|im_end|>\n";
  bool dropped_ids = false;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const message& m = ms[i];
    if (std::string err = forged(m, i); !err.empty()) {
      return make_error(error_code::unrepresentable, err);
    }
    if (!m.reasoning.empty())
      warn(warnings,
           "message " + std::to_string(i) + ": ChatML (Qwen2.5) cannot hold reasoning (dropped)");
    if (!m.name.empty() && m.role != role::tool)
      warn(warnings, "message " + std::to_string(i) + ": ChatML cannot hold a name (dropped)");
    if (i == 0 && first_system) continue;
    if (m.role == role::developer) {
      // Qwen2.5's template has no developer turn: Jinja prints nothing for it.
      warn(warnings,
           "message " + std::to_string(i) +
               ": ChatML (Qwen2.5) has no developer role (dropped, as its template does)");
      continue;
    }
    switch (m.role) {
      case role::tool: {
        if (!m.call_id.empty()) dropped_ids = true;
        if (i == 0 || ms[i - 1].role != role::tool) out += "<|im_start|>user";
        out += "\n<tool_response>\n";
        out += m.content;
        out += "\n</tool_response>";
        if (i + 1 == ms.size() || ms[i + 1].role != role::tool) out += "<|im_end|>\n";
        break;
      }
      case role::assistant:
        if (!m.tool_calls.empty()) {
          out += "<|im_start|>assistant";
          if (!m.content.empty()) {
            out += '\n';
            out += m.content;
          }
          for (const auto& tc : m.tool_calls) {
            if (!tc.id.empty()) dropped_ids = true;
            if (tc.name.find('"') != std::string::npos || tc.name.find('\\') != std::string::npos) {
              return make_error(error_code::unrepresentable,
                                "message " + std::to_string(i) + ": tool name '" + tc.name +
                                    "' would break the template's JSON");
            }
            out += "\n<tool_call>\n{\"name\": \"";
            out += tc.name;
            out += "\", \"arguments\": ";
            if (json::accept(tc.arguments)) {
              python_json_dumps(json::parse(tc.arguments), out);
            } else {
              warn(warnings, "message " + std::to_string(i) + ": arguments of '" + tc.name +
                                 "' are not JSON (written as a JSON string)");
              python_json_dumps(json(tc.arguments), out);
            }
            out += "}\n</tool_call>";
          }
          out += "<|im_end|>\n";
          break;
        }
        [[fallthrough]];
      default:
        out += "<|im_start|>";
        out += role_name(m.role);
        out += '\n';
        out += m.content;
        out += "<|im_end|>\n";
    }
  }
  if (dropped_ids) warn(warnings, "ChatML cannot hold tool call ids (dropped)");
  if (o.add_generation_prompt) out += "<|im_start|>assistant\n";
  return out;
}

}  // namespace ocml::detail::chatml
