// SPDX-License-Identifier: Apache-2.0
// Qwen3 renderer: Qwen3's chat template (../shared/reference/templates/qwen3.jinja) as
// transformers renders it. Reasoning is written only for assistant turns after the last
// user query (the template's rule); `enable_thinking: false` closes an empty think block
// after the generation prompt.
#include <string>

#include "dialects/chatml/chatml.hpp"
#include "dialects/qwen3/qwen3.hpp"
#include "interchange/pyjson.hpp"
#include "ocml/convert.hpp"

namespace ocml::detail::qwen3 {

namespace {

std::string_view strip_newlines_left(std::string_view s) {
  while (!s.empty() && s.front() == '\n') s.remove_prefix(1);
  return s;
}
std::string_view strip_newlines_right(std::string_view s) {
  while (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  return s;
}

bool is_tool_response(std::string_view c) {
  return c.starts_with("<tool_response>") && c.ends_with("</tool_response>");
}

// The template's reading of an assistant turn: reasoning as given, else the think block
// written inline in the content ("<think>r</think>content").
struct turn {
  std::string_view content;
  std::string_view reasoning;
};
turn read_turn(const message& m) {
  turn t{m.content, m.reasoning};
  if (!m.reasoning.empty()) return t;
  const auto close = t.content.find("</think>");
  if (close == std::string_view::npos) return t;
  const std::string_view all = m.content;
  t.content = strip_newlines_left(all.substr(all.rfind("</think>") + 8));
  std::string_view r = strip_newlines_right(all.substr(0, close));
  if (const auto open = r.rfind("<think>"); open != std::string_view::npos) {
    r.remove_prefix(open + 7);
  }
  t.reasoning = strip_newlines_left(r);
  return t;
}

}  // namespace

result<std::string> render(const conversation& c0, const render_options& o,
                           std::vector<diagnostic>* warnings) {
  conversation storage;
  const conversation& c = as_grouped(c0, storage);
  const auto& ms = c.messages;
  std::string out;
  const bool first_system = !ms.empty() && ms[0].role == role::system;
  if (!c.tools.empty()) {
    out += "<|im_start|>system\n";
    if (first_system) {
      out += ms[0].content;
      out += "\n\n";
    }
    out += kToolsHead;
    if (auto err = chatml::write_tools(c.tools, out)) return *err;
    out += chatml::kToolsTail;
    out += "<|im_end|>\n";
  } else if (first_system) {
    out += "<|im_start|>system\n";
    out += ms[0].content;
    out += "<|im_end|>\n";
  }
  // The last user query: reasoning is kept only for the assistant turns after it.
  // (None: the template's default, the last index, which no turn comes after.)
  std::size_t last_query = ms.empty() ? 0 : ms.size() - 1;
  for (std::size_t k = ms.size(); k-- > 0;) {
    if (ms[k].role == role::user && !is_tool_response(ms[k].content)) {
      last_query = k;
      break;
    }
  }
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const message& m = ms[i];
    if (std::string err = chatml::forged(m, i); !err.empty()) {
      return make_error(error_code::unrepresentable, err);
    }
    if (!m.name.empty() && m.role != role::tool) {
      if (warnings != nullptr) warnings->push_back(chatml::dropped(i, "name", "a name", "Qwen3"));
    }
    switch (m.role) {
      case role::system:
        if (i == 0) break;  // written above
        [[fallthrough]];
      case role::user:
        out += "<|im_start|>";
        out += role_name(m.role);
        out += '\n';
        out += m.content;
        out += "<|im_end|>\n";
        break;
      case role::developer:
        if (warnings != nullptr) warnings->push_back(chatml::dropped_developer(i, "Qwen3"));
        break;
      case role::tool:
        chatml::write_reply(ms, i, out);
        break;
      case role::assistant: {
        const turn t = read_turn(m);
        // What is written as content must not read back as a think block.
        for (const std::string_view tag : {"<think>", "</think>"}) {
          if (t.content.find(tag) != std::string_view::npos) {
            return make_error(error_code::unrepresentable,
                              message_path(i, "content") + ": content holds '" + std::string(tag) +
                                  "', which Qwen3 reads as reasoning");
          }
        }
        const bool after_query = i > last_query;
        out += "<|im_start|>assistant\n";
        if (o.keep_reasoning || (after_query && (i + 1 == ms.size() || !t.reasoning.empty()))) {
          // Reasoning has no escape either: what would end the block or the turn is refused.
          for (const std::string_view bad : {"<|im_start|>", "<|im_end|>", "</think>"}) {
            if (t.reasoning.find(bad) != std::string_view::npos) {
              return make_error(error_code::unrepresentable,
                                message_path(i, "reasoning") + ": reasoning contains '" +
                                    std::string(bad) + "', which Qwen3 cannot escape");
            }
          }
          out += "<think>\n";
          out += strip_newlines_right(strip_newlines_left(t.reasoning));
          out += "\n</think>\n\n";
          out += strip_newlines_left(t.content);
        } else {
          out += t.content;
        }
        for (std::size_t k = 0; k < m.tool_calls.size(); ++k) {
          if (k > 0 || !t.content.empty()) out += '\n';
          if (auto err = chatml::write_call(m.tool_calls[k], i, k, out, warnings)) return *err;
        }
        out += "<|im_end|>\n";
        break;
      }
    }
  }
  if (o.add_generation_prompt) {
    out += "<|im_start|>assistant\n";
    if (!o.enable_thinking) out += "<think>\n\n</think>\n\n";
  }
  return out;
}

}  // namespace ocml::detail::qwen3
