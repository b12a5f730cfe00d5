// SPDX-License-Identifier: Apache-2.0
// What the two one-pass ChatML renderers (OpenAI JSON straight to ChatML, without the
// conversation model) share: the template's fixed texts, each with its JSON-escaped form
// computed once; the content check; what a reader gathers; and the template writer.
// Their readers are independent (fast_render.cpp on a simdjson document, line_render.cpp
// on json_reader), so tests and the json fuzzer can hold them to each other.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/forge.hpp"
#include "dialects/chatml/chatml.hpp"
#include "interchange/json_escape.hpp"
#include "interchange/json_reader.hpp"

namespace ocml::detail::chatml {

struct piece {
  explicit piece(std::string_view text) : raw(text) {
    escaped_buffer b;
    b.escape(text);
    escaped = b.view();
  }
  std::string_view raw;
  std::string escaped;
};

inline const piece kSystemHead{"<|im_start|>system\n"};
inline const piece kDefaultSystemText{kDefaultSystem};
inline const piece kToolsHeadText{kToolsHead};
inline const piece kToolsTailText{kToolsTail};
inline const piece kNewline{"\n"};
inline const piece kImEnd{"<|im_end|>\n"};
inline const piece kImStart{"<|im_start|>"};
inline const piece kUserHead{"<|im_start|>user"};
inline const piece kResponseOpen{"\n<tool_response>\n"};
inline const piece kResponseClose{"\n</tool_response>"};
inline const piece kAssistantHead{"<|im_start|>assistant"};
inline const piece kCallOpen{"\n<tool_call>\n{\"name\": \""};
inline const piece kCallArguments{"\", \"arguments\": "};
inline const piece kEmptyArguments{"{}"};
inline const piece kCallClose{"}\n</tool_call>"};
inline const piece kGenerationPrompt{"<|im_start|>assistant\n"};

/// True when content of a `role` message spells a token the template cannot hold there
/// (the general path reports it). Works on the value and on its canonical JSON escaping
/// alike: no token holds a byte that escaping changes.
[[nodiscard]] bool contains_banned(std::string_view content, std::string_view role);

/// Text of the input: the value itself, or (`escaped`) its canonical JSON escaping.
struct text_ref {
  std::string_view text;
  bool escaped = false;
};

struct call_ref {
  std::string_view name;                              ///< no byte that needs escaping
  std::size_t arguments_at = std::string_view::npos;  ///< in the side text; npos: none
  std::size_t arguments_size = 0;
};

/// A byte offset the reader did not record (the simdjson reader records none): the caller
/// finds the warning's place by its path.
inline constexpr std::size_t kUnplaced = std::string_view::npos;

struct message_ref {
  std::string_view role;  ///< one of system, user, assistant, tool, developer
  text_ref content;
  /// Where the values of "role", "name" and "reasoning_content" begin in the input, for
  /// warnings about them (kUnplaced: not recorded).
  std::size_t role_at = kUnplaced;
  std::size_t name_at = kUnplaced;
  std::size_t reasoning_at = kUnplaced;
  std::size_t calls_begin = 0;  ///< in gathered::calls
  std::size_t calls_end = 0;
  /// The reasoning_content when it is a string (`reasoning_text`); Qwen3 writes it.
  text_ref reasoning;
  bool reasoning_text = false;
  bool has_name = false;
  bool has_reasoning = false;
  [[nodiscard]] bool has_calls() const { return calls_end > calls_begin; }
};

/// What a reader gathers before anything is written (the template looks ahead and back,
/// and "tools" may follow "messages"). Tool and argument dumps live in a side text, in the
/// output's form.
struct gathered {
  std::vector<message_ref> messages;
  std::vector<call_ref> calls;
  std::size_t tools_at = 0;  ///< the tools' dumps, each after a newline, in the side text
  std::size_t tools_size = 0;

  void clear() {
    messages.clear();
    calls.clear();
    tools_size = 0;
  }
  /// The checks on a message both readers make once it is read: false to decline.
  [[nodiscard]] bool accept(const message_ref& m) {
    if (m.role != "system" && m.role != "user" && m.role != "assistant" && m.role != "tool" &&
        m.role != "developer") {
      return false;
    }
    if (m.has_calls() && m.role != "assistant") return false;
    if (contains_banned(m.content.text, m.role)) return false;  // the general path reports it
    const std::string_view tail = m.content.escaped ? kToolsTailText.escaped : kToolsTailText.raw;
    if (m.role == "system" && m.content.text.ends_with(tail)) return false;
    // Calls followed straight by another assistant message with calls (no tool replies in
    // between, which the OpenAI API refuses): the model's split form cannot keep the two
    // apart, so the general path (which merges them) answers for both.
    if (m.has_calls() && !messages.empty() && messages.back().role == "assistant" &&
        messages.back().has_calls()) {
      return false;
    }
    // Likewise an assistant message with only reasoning, straight before another assistant
    // message: the split form holds it as an analysis message that joins the next turn.
    if (m.role == "assistant" && !messages.empty()) {
      const message_ref& prev = messages.back();
      if (prev.role == "assistant" && prev.has_reasoning && prev.content.text.empty() &&
          !prev.has_calls()) {
        return false;
      }
    }
    messages.push_back(m);
    return true;
  }
};

/// True when a call's name, its arguments or a tool spells a turn token: the one-pass
/// paths decline it and the general path refuses it, naming the field.
[[nodiscard]] inline bool spells_turn_token(const gathered& g, std::string_view side) {
  if (!spelled_token(side, kTurnTokens).empty()) return true;
  for (const auto& c : g.calls) {
    if (!spelled_token(c.name, kTurnTokens).empty()) return true;
    // A control byte in a name is refused by the general path (the template's JSON).
    for (const char ch : c.name) {
      if (static_cast<unsigned char>(ch) < 0x20) return true;
    }
  }
  return false;
}

/// The batch reader (line_render.cpp) over `text`: what it gathered and its side text
/// (valid until the thread's next call), or null when it declines the request; `options`
/// (when given) receives where the request's own options stand.
[[nodiscard]] const gathered* read_openai_request(std::string_view text, std::string_view& side,
                                                  request_option_values* options = nullptr);

/// A writer into a batch line: text escaped as the inside of a JSON string.
struct escaped_out {
  escaped_buffer& out;
  void put(const piece& p) const { out.raw(p.escaped); }
  void put(const text_ref& t) const {
    if (t.escaped) {
      out.raw(t.text);  // the canonical escaping is what the line needs
    } else {
      out.escape(t.text);
    }
  }
  void raw(std::string_view s) const { out.raw(s); }
};

/// A writer of the text itself: every escaped fragment (the template's pieces, canonical
/// input strings, the side text's dumps) unescaped as it is appended.
struct text_out {
  std::string& out;
  void put(const piece& p) const { out += p.raw; }
  void put(const text_ref& t) const {
    if (t.escaped) {
      raw(t.text);
    } else {
      out += t.text;
    }
  }
  void raw(std::string_view escaped) const {
    const std::size_t at = out.size();
    out.resize(at + escaped.size());
    char* const end = unescape_into(escaped, out.data() + at);
    out.resize(static_cast<std::size_t>(end - out.data()));
  }
};

/// One tool call as the ChatML-family templates write it: `open` (the template's own
/// opening: Qwen2.5's begins with a newline, Qwen3's leaves it to the caller), the name,
/// the arguments (`{}` when the call has none), the closing.
template <typename Out>
void write_call(const piece& open, const call_ref& call, std::string_view side, Out& out) {
  out.put(open);
  out.raw(call.name);
  out.put(kCallArguments);
  if (call.arguments_at == std::string_view::npos) {
    out.put(kEmptyArguments);
  } else {
    out.raw(side.substr(call.arguments_at, call.arguments_size));
  }
  out.put(kCallClose);
}

/// Writes `g` as the Qwen2.5 template does. `out` has put(const piece&),
/// put(const text_ref&) and raw(std::string_view) (text already in the output's form);
/// `side` is the side text of `g`.
template <typename Out>
void write_template(const gathered& g, std::string_view side, bool add_generation_prompt, Out& out,
                    std::vector<diagnostic>& warnings) {
  const auto& ms = g.messages;
  const bool first_system = !ms.empty() && ms[0].role == "system";
  out.put(kSystemHead);
  if (first_system) {
    out.put(ms[0].content);
  } else {
    out.put(kDefaultSystemText);
  }
  if (g.tools_size > 0) {
    out.put(kToolsHeadText);
    out.raw(side.substr(g.tools_at, g.tools_size));
    out.put(kToolsTailText);
  }
  out.put(kImEnd);
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const message_ref& m = ms[i];
    // A warning is placed at the offset the reader recorded (no search by path after).
    if (m.has_reasoning && m.role == "assistant") {
      warnings.push_back(dropped(i, "reasoning_content", "reasoning"));
      warnings.back().offset = m.reasoning_at;
    }
    if (m.has_name && m.role != "tool") {
      warnings.push_back(dropped(i, "name", "a name"));
      warnings.back().offset = m.name_at;
    }
    if (i == 0 && first_system) continue;
    if (m.role == "developer") {
      warnings.push_back(dropped_developer(i));
      warnings.back().offset = m.role_at;
      continue;
    }
    if (m.role == "tool") {
      if (i == 0 || ms[i - 1].role != "tool") out.put(kUserHead);
      out.put(kResponseOpen);
      out.put(m.content);
      out.put(kResponseClose);
      if (i + 1 == ms.size() || ms[i + 1].role != "tool") out.put(kImEnd);
      continue;
    }
    if (m.role == "assistant" && m.has_calls()) {
      out.put(kAssistantHead);
      if (!m.content.text.empty()) {
        out.put(kNewline);
        out.put(m.content);
      }
      for (std::size_t c = m.calls_begin; c < m.calls_end; ++c) {
        write_call(kCallOpen, g.calls[c], side, out);
      }
      out.put(kImEnd);
      continue;
    }
    out.put(kImStart);
    out.raw(m.role);
    out.put(kNewline);
    out.put(m.content);
    out.put(kImEnd);
  }
  if (add_generation_prompt) out.put(kGenerationPrompt);
}

}  // namespace ocml::detail::chatml

namespace ocml::detail {

/// What a one-pass batch reader over ChatML's reader gathered (core/codec.hpp's opaque
/// request): the gathered request and its side text.
struct one_pass_request {
  const chatml::gathered* gathered = nullptr;
  std::string_view side;
};

}  // namespace ocml::detail
