// SPDX-License-Identifier: Apache-2.0
// ChatML renderer: byte-identical to Qwen2.5-Instruct's chat template as transformers
// renders it (tool arguments as objects, JSON as Python's json.dumps(ensure_ascii=False)).
#include <algorithm>
#include <charconv>
#include <optional>
#include <string>

#include "core/forge.hpp"
#include "core/render_memo.hpp"
#include "dialects/chatml/chatml.hpp"
#include "interchange/pyjson.hpp"
#include "interchange/simd_json.hpp"
#include "ocml/convert.hpp"

namespace ocml::detail::chatml {

void write_tool(const tool& t, std::string& out) {
  if (!t.source.is_null()) {  // as given (no copy of the tree)
    python_json_dumps(t.source, out);
    return;
  }
  json f = json::object();
  f["name"] = t.name;
  if (!t.description.empty()) f["description"] = t.description;
  if (!t.parameters.is_null()) f["parameters"] = t.parameters;
  python_json_dumps(json{{"type", "function"}, {"function", f}}, out);
}

std::optional<diagnostic> write_tools(const std::vector<tool>& tools, std::string& out) {
  if (const std::string* m = memo_find(tools, memo_kind::chatml_tools)) {
    out += *m;
    return std::nullopt;
  }
  const std::size_t block = out.size();
  for (std::size_t k = 0; k < tools.size(); ++k) {
    out += '\n';
    const std::size_t start = out.size();
    write_tool(tools[k], out);
    if (const auto tok = spelled_token(std::string_view(out).substr(start), kTurnTokens);
        !tok.empty()) {
      return make_error(error_code::unrepresentable,
                        forged_field("tools[" + std::to_string(k) + "]", tok, "ChatML"));
    }
  }
  memo_put(tools, memo_kind::chatml_tools, std::string_view(out).substr(block));
  return std::nullopt;
}

// ChatML has no escape: content that spells its markup cannot be written. One pass over
// the '<' bytes of the content.
std::string forged(const message& m, std::size_t i) {
  const bool tool_tags = m.role == role::assistant;
  const bool response_tags = m.role != role::assistant && m.role != role::system;
  std::string_view c(m.content);
  for (std::size_t p = c.find('<'); p != std::string_view::npos; p = c.find('<', p + 1)) {
    const std::string_view rest = c.substr(p);
    for (std::size_t k = 0; k < kTokens.size(); ++k) {
      const bool banned = k <= im_end || (tool_tags && (k == call_open || k == call_close)) ||
                          (response_tags && (k == resp_open || k == resp_close));
      if (banned && rest.starts_with(kTokens[k])) {
        return message_path(i, "content") + ": content contains '" + kTokens[k] +
               "', which ChatML cannot escape";
      }
    }
  }
  if (m.role == role::system && m.content.ends_with(kToolsTail)) {
    return message_path(i, "content") + ": system content ends with the tools block";
  }
  return {};
}

namespace {

void warn(std::vector<diagnostic>* w, diagnostic d) {
  if (w != nullptr) w->push_back(std::move(d));
}

diagnostic warning(std::string text) {
  diagnostic d = make_error(error_code::unrepresentable, std::move(text));
  d.level = severity::warning;
  return d;
}

}  // namespace

diagnostic dropped(std::size_t message, std::string_view field, std::string_view what,
                   std::string_view who) {
  std::string text = message_path(message, field);
  text += ": ";
  text += who;
  text += " cannot hold ";
  text += what;
  text += " (dropped)";
  return warning(std::move(text));
}
diagnostic dropped_developer(std::size_t message, std::string_view who) {
  return warning(message_path(message, "role") + ": " + std::string(who) +
                 " has no developer role (dropped, as its template does)");
}

std::optional<diagnostic> write_call(const tool_call& tc, std::size_t i, std::size_t j,
                                     std::string& out, std::vector<diagnostic>* warnings) {
  // The template writes the name between quotes as it stands: a byte JSON escapes breaks it.
  if (std::any_of(tc.name.begin(), tc.name.end(), [](char ch) {
        return ch == '"' || ch == '\\' || static_cast<unsigned char>(ch) < 0x20;
      })) {
    return make_error(
        error_code::unrepresentable,
        call_path(i, j, "name") + ": tool name '" + tc.name + "' would break the template's JSON");
  }
  const std::size_t start = out.size();
  out += "<tool_call>\n{\"name\": \"";
  out += tc.name;
  out += "\", \"arguments\": ";
  if (tc.arguments.empty()) {
    out += "{}";  // a call without arguments (as the one-pass path writes it)
  } else if (!python_dumps_text(tc.arguments, out)) {
    warn(warnings, warning(call_path(i, j, "arguments") + ": arguments of '" + tc.name +
                           "' are not JSON (written as a JSON string)"));
    python_json_dumps(json(tc.arguments), out);
  }
  out += "}\n</tool_call>";
  if (const auto tok = spelled_token(std::string_view(out).substr(start), kTurnTokens);
      !tok.empty()) {
    return make_error(
        error_code::unrepresentable,
        forged_field(call_path(i, j) + ": the call to '" + tc.name + "' (name or arguments)", tok,
                     "ChatML"));
  }
  return std::nullopt;
}

conversation read_default_system(const conversation& c) {
  if (c.messages.empty() || c.messages[0].role != role::system ||
      c.messages[0].content != kDefaultSystem) {
    return c;
  }
  conversation out = c;
  out.messages.erase(out.messages.begin());
  return out;
}

void write_reply(const std::vector<message>& ms, std::size_t i, std::string& out) {
  if (i == 0 || ms[i - 1].role != role::tool) out += "<|im_start|>user";
  out += "\n<tool_response>\n";
  out += ms[i].content;
  out += "\n</tool_response>";
  if (i + 1 == ms.size() || ms[i + 1].role != role::tool) out += "<|im_end|>\n";
}

result<std::string> render(const conversation& c0, const render_options& o,
                           std::vector<diagnostic>* warnings) {
  conversation storage;
  const conversation& c = as_grouped(c0, storage);
  const auto& ms = c.messages;
  std::string out;
  const bool first_system = !ms.empty() && ms[0].role == role::system;
  out += "<|im_start|>system\n";
  out += first_system ? std::string_view(ms[0].content) : kDefaultSystem;
  if (!c.tools.empty()) {
    out += kToolsHead;
    if (auto err = write_tools(c.tools, out)) return *err;
    out += kToolsTail;
  }
  out += "<|im_end|>\n";
  // Tool call ids are not written: the template answers calls by order (issue 14: a loss
  // the format defines away is not a warning).
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const message& m = ms[i];
    if (std::string err = forged(m, i); !err.empty()) {
      return make_error(error_code::unrepresentable, err);
    }
    if (!m.reasoning.empty()) warn(warnings, dropped(i, "reasoning", "reasoning"));
    if (!m.name.empty() && m.role != role::tool) warn(warnings, dropped(i, "name", "a name"));
    if (i == 0 && first_system) continue;
    if (m.role == role::developer) {
      // Qwen2.5's template has no developer turn: Jinja prints nothing for it.
      warn(warnings, dropped_developer(i));
      continue;
    }
    switch (m.role) {
      case role::tool:
        write_reply(ms, i, out);
        break;
      case role::assistant:
        if (!m.tool_calls.empty()) {
          out += "<|im_start|>assistant";
          if (!m.content.empty()) {
            out += '\n';
            out += m.content;
          }
          for (std::size_t j = 0; j < m.tool_calls.size(); ++j) {
            out += '\n';
            if (auto err = write_call(m.tool_calls[j], i, j, out, warnings)) return *err;
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
  if (o.add_generation_prompt) out += "<|im_start|>assistant\n";
  return out;
}

}  // namespace ocml::detail::chatml
