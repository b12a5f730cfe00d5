// SPDX-License-Identifier: Apache-2.0
// OpenAI JSON text -> Qwen3's chat template, in one pass, through ChatML's batch reader
// (dialects/chatml/one_pass.hpp): what it gathers is written with Qwen3's template rules
// (render.cpp is the general path; tests hold the two to the same bytes). Text stays in
// the form the reader found it (the value, or its canonical JSON escaping), so stripping
// newlines and finding think tags work on both forms; anything the general path would
// refuse declines, and the general path answers (and reports) then.
#include <string>
#include <vector>

#include "dialects/chatml/one_pass.hpp"
#include "dialects/qwen3/qwen3.hpp"

namespace ocml::detail::qwen3 {

// Named, not anonymous: render.cpp's file-local names (turn, read_turn, …) share a unity
// unit with these.
namespace line_form {

using chatml::gathered;
using chatml::message_ref;
using chatml::piece;
using chatml::text_ref;

const piece kSystemOpen{"<|im_start|>system\n"};
const piece kBlankLine{"\n\n"};
const piece kToolsHeadText{kToolsHead};
const piece kAssistantOpen{"<|im_start|>assistant\n"};
const piece kThinkOpen{"<think>\n"};
const piece kThinkClose{"\n</think>\n\n"};
const piece kEmptyThink{"<think>\n\n</think>\n\n"};
const piece kCallOpen{"<tool_call>\n{\"name\": \""};  // Qwen2.5's, without its newline

// A newline at the start of `t` (the value's '\n', or the escaping's "\n").
std::size_t newline_size(const text_ref& t) {
  return t.escaped ? 2 : 1;
}

text_ref strip_left(text_ref t) {
  const std::string_view nl = t.escaped ? "\\n" : "\n";
  while (t.text.starts_with(nl)) t.text.remove_prefix(nl.size());
  return t;
}

// In the escaped form a final "\n" is a newline only when the backslash before the 'n' is
// not itself the second half of an escaped backslash ("\\n" is a backslash and an n).
bool ends_with_newline(const text_ref& t) {
  if (!t.escaped) return t.text.ends_with('\n');
  if (!t.text.ends_with("\\n")) return false;
  std::size_t backslashes = 0;
  for (std::size_t k = t.text.size() - 1; k-- > 0 && t.text[k] == '\\';) ++backslashes;
  return backslashes % 2 == 1;
}

text_ref strip_right(text_ref t) {
  while (ends_with_newline(t)) t.text.remove_suffix(newline_size(t));
  return t;
}

text_ref sub(const text_ref& t, std::size_t from, std::size_t n = std::string_view::npos) {
  return {t.text.substr(from, n), t.escaped};
}

bool holds(const text_ref& t, std::string_view tag) {
  return t.text.find(tag) != std::string_view::npos;  // tags hold nothing escaping changes
}

bool is_tool_response(const text_ref& c) {
  return c.text.starts_with("<tool_response>") && c.text.ends_with("</tool_response>");
}

// The template's reading of an assistant turn (render.cpp's read_turn): reasoning as
// given, else the think block written inline in the content.
struct turn {
  text_ref content;
  text_ref reasoning;
};
turn read_turn(const message_ref& m) {
  turn t{m.content, m.reasoning};
  if (!m.reasoning.text.empty()) return t;
  t.reasoning = {};
  const auto close = m.content.text.find("</think>");
  if (close == std::string_view::npos) return t;
  t.content = strip_left(sub(m.content, m.content.text.rfind("</think>") + 8));
  text_ref r = strip_right(sub(m.content, 0, close));
  if (const auto open = r.text.rfind("<think>"); open != std::string_view::npos) {
    r.text.remove_prefix(open + 7);
  }
  t.reasoning = strip_left(r);
  return t;
}

// Whether the template can write `g`: the general path refuses (or reads otherwise) the rest.
bool writable(const gathered& g) {
  for (const message_ref& m : g.messages) {
    if (m.has_reasoning && (!m.reasoning_text || m.role != "assistant")) return false;
    if (m.role != "assistant") continue;
    const turn t = read_turn(m);
    if (holds(t.content, "<think>") || holds(t.content, "</think>")) return false;
    for (const std::string_view bad : {"<|im_start|>", "<|im_end|>", "</think>"}) {
      if (holds(t.reasoning, bad)) return false;  // refused where it is written
    }
  }
  return true;
}

template <typename Out>
void write(const gathered& g, std::string_view side, const render_options& o, Out& out,
           std::vector<diagnostic>& warnings) {
  const auto& ms = g.messages;
  const bool first_system = !ms.empty() && ms[0].role == "system";
  if (g.tools_size > 0) {
    out.put(kSystemOpen);
    if (first_system) {
      out.put(ms[0].content);
      out.put(kBlankLine);
    }
    out.put(kToolsHeadText);
    out.raw(side.substr(g.tools_at, g.tools_size));
    out.put(chatml::kToolsTailText);
    out.put(chatml::kImEnd);
  } else if (first_system) {
    out.put(kSystemOpen);
    out.put(ms[0].content);
    out.put(chatml::kImEnd);
  }
  // The last user query: reasoning is kept only for the assistant turns after it.
  std::size_t last_query = ms.empty() ? 0 : ms.size() - 1;
  for (std::size_t k = ms.size(); k-- > 0;) {
    if (ms[k].role == "user" && !is_tool_response(ms[k].content)) {
      last_query = k;
      break;
    }
  }
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const message_ref& m = ms[i];
    if (m.has_name && m.role != "tool") {
      warnings.push_back(chatml::dropped(i, "name", "a name", "Qwen3"));
      warnings.back().offset = m.name_at;
    }
    if (m.role == "system" && i == 0) continue;  // written above
    if (m.role == "developer") {
      warnings.push_back(chatml::dropped_developer(i, "Qwen3"));
      warnings.back().offset = m.role_at;
      continue;
    }
    if (m.role == "tool") {
      if (i == 0 || ms[i - 1].role != "tool") out.put(chatml::kUserHead);
      out.put(chatml::kResponseOpen);
      out.put(m.content);
      out.put(chatml::kResponseClose);
      if (i + 1 == ms.size() || ms[i + 1].role != "tool") out.put(chatml::kImEnd);
      continue;
    }
    if (m.role != "assistant") {  // user, or a system message after the first
      out.put(chatml::kImStart);
      out.raw(m.role);
      out.put(chatml::kNewline);
      out.put(m.content);
      out.put(chatml::kImEnd);
      continue;
    }
    const turn t = read_turn(m);
    out.put(kAssistantOpen);
    if (o.keep_reasoning || (i > last_query && (i + 1 == ms.size() || !t.reasoning.text.empty()))) {
      out.put(kThinkOpen);
      out.put(strip_right(strip_left(t.reasoning)));
      out.put(kThinkClose);
      out.put(strip_left(t.content));
    } else {
      out.put(t.content);
    }
    for (std::size_t c = m.calls_begin; c < m.calls_end; ++c) {
      if (c > m.calls_begin || !t.content.text.empty()) out.put(chatml::kNewline);
      chatml::write_call(kCallOpen, g.calls[c], side, out);
    }
    out.put(chatml::kImEnd);
  }
  if (o.add_generation_prompt) {
    out.put(kAssistantOpen);
    if (!o.enable_thinking) out.put(kEmptyThink);
  }
}

const gathered* read(std::string_view json, std::string_view& side,
                     request_option_values* options = nullptr) {
  const gathered* g = chatml::read_openai_request(json, side, options);
  return g != nullptr && writable(*g) ? g : nullptr;
}

}  // namespace line_form

bool render_openai_text(std::string_view json, const render_options& o, std::string& out,
                        std::vector<diagnostic>& warnings) {
  std::string_view side;
  const chatml::gathered* g = line_form::read(json, side);
  if (g == nullptr) return false;
  out.reserve(out.size() + json.size() + 256);
  chatml::text_out w{out};
  line_form::write(*g, side, o, w, warnings);
  return true;
}

bool render_openai_json_text(std::string_view json, const render_options& o, text_buffer& out,
                             std::vector<diagnostic>& warnings) {
  std::string_view side;
  const chatml::gathered* g = line_form::read(json, side);
  if (g == nullptr) return false;
  chatml::escaped_out w{out};
  line_form::write(*g, side, o, w, warnings);
  return true;
}

const one_pass_request* read_batch_request(std::string_view json, request_option_values& options) {
  thread_local one_pass_request request;
  request.gathered = line_form::read(json, request.side, &options);
  return request.gathered != nullptr ? &request : nullptr;
}

void write_batch_text(const one_pass_request& request, const render_options& o, std::string& out,
                      std::vector<diagnostic>& warnings) {
  out.reserve(out.size() + request.side.size() + 256);
  chatml::text_out w{out};
  line_form::write(*request.gathered, request.side, o, w, warnings);
}

void write_batch_line(const one_pass_request& request, const render_options& o, text_buffer& out,
                      std::vector<diagnostic>& warnings) {
  chatml::escaped_out w{out};
  line_form::write(*request.gathered, request.side, o, w, warnings);
}

}  // namespace ocml::detail::qwen3
