// OpenAI JSON text -> ChatML text in one pass over a simdjson document, without building
// the conversation model (the batch hot path). Anything unusual declines, and the caller
// takes the general path; tests hold both paths to the same bytes.
#include <algorithm>
#include <array>
#include <vector>

#include "dialects/chatml/chatml.hpp"
#include "interchange/pyjson.hpp"
#include "interchange/simd_json.hpp"

namespace ocml::detail::chatml {

namespace {

using simdjson::dom::element;

struct msg_view {
  std::string_view role;
  std::string_view content;
  bool has_content = false;  // a string (null/absent: false)
  element calls;             // the tool_calls array, or null
  bool has_calls = false;
  bool has_name = false;
  bool has_reasoning = false;
};

bool contains_banned(std::string_view c, std::string_view role) {
  const bool assistant = role == "assistant";
  const bool responses = !assistant && role != "system";
  for (std::size_t p = c.find('<'); p != std::string_view::npos; p = c.find('<', p + 1)) {
    const std::string_view rest = c.substr(p);
    // Every token goes on with '|', 't' or '/': most '<' in text (code, HTML) stop here.
    if (rest.size() < 2 || (rest[1] != '|' && rest[1] != 't' && rest[1] != '/')) continue;
    for (std::size_t k = 0; k < kTokens.size(); ++k) {
      const bool banned = k <= im_end || (assistant && (k == call_open || k == call_close)) ||
                          (responses && (k == resp_open || k == resp_close));
      if (banned && rest.starts_with(kTokens[k])) return true;
    }
  }
  return false;
}

// A fixed piece of the template, with its JSON-escaped form computed once.
struct piece {
  explicit piece(std::string_view text) : raw(text) {
    escaped_buffer b;
    b.escape(text);
    escaped = b.view();
  }
  std::string_view raw;
  std::string escaped;
};

const piece kSystemHead{"<|im_start|>system\n"};
const piece kDefaultSystemText{kDefaultSystem};
const piece kToolsHeadText{kToolsHead};
const piece kToolsTailText{kToolsTail};
const piece kNewline{"\n"};
const piece kImEnd{"<|im_end|>\n"};
const piece kImStart{"<|im_start|>"};
const piece kUserHead{"<|im_start|>user"};
const piece kResponseOpen{"\n<tool_response>\n"};
const piece kResponseClose{"\n</tool_response>"};
const piece kAssistantHead{"<|im_start|>assistant"};
const piece kCallOpen{"\n<tool_call>\n{\"name\": \""};
const piece kCallArguments{"\", \"arguments\": "};
const piece kEmptyArguments{"{}"};
const piece kCallClose{"}\n</tool_call>"};
const piece kGenerationPrompt{"<|im_start|>assistant\n"};

// Where the renderer writes: ChatML text as is, or escaped as the inside of a JSON string
// (the batch output line), so the text is never copied and scanned a second time.
struct text_writer {
  std::string& out;
  void operator()(std::string_view s) const { out += s; }
  void operator()(const piece& p) const { out += p.raw; }
  void plain(std::string_view s) const { out += s; }
  void dumps(element e) const { py_dumps(e, out); }
  [[nodiscard]] bool dumps_text(std::string_view s) const { return python_dumps_text(s, out); }
  [[nodiscard]] std::size_t size() const { return out.size(); }
  void truncate(std::size_t n) const { out.resize(n); }
};
struct json_writer {
  escaped_buffer& out;
  void operator()(std::string_view s) const { out.escape(s); }
  void operator()(const piece& p) const { out.raw(p.escaped); }
  void plain(std::string_view s) const { out.raw(s); }  // text known to need no escaping
  void dumps(element e) const { py_dumps_escaped(e, out); }
  [[nodiscard]] bool dumps_text(std::string_view s) const { return python_dumps_text(s, out); }
  [[nodiscard]] std::size_t size() const { return out.size(); }
  void truncate(std::size_t n) const { out.truncate(n); }
};

template <typename Writer>
bool render_openai(json_input text, bool add_generation_prompt, const Writer& w,
                   std::vector<diagnostic>& warnings) {
  element doc;
  if (parse_document(text).get(doc) != simdjson::SUCCESS) return false;
  simdjson::dom::array messages;
  if (doc.is_array()) {
    messages = simdjson::dom::array(doc);
  } else if (doc["messages"].get(messages) != simdjson::SUCCESS) {
    return false;
  }
  if (!unique_keys(doc)) return false;
  thread_local std::vector<msg_view> ms;  // reused: no allocation per line
  ms.clear();
  for (element m : messages) {
    if (!m.is_object()) return false;
    msg_view v;
    std::array<std::string_view, 6> keys;  // a key given twice goes the general way
    std::size_t nkeys = 0;
    for (auto field : simdjson::dom::object(m)) {
      const std::string_view k = field.key;
      if (nkeys == keys.size() ||
          std::find(keys.begin(), keys.begin() + nkeys, k) != keys.begin() + nkeys) {
        return false;
      }
      keys[nkeys++] = k;
      if (k == "role") {
        if (field.value.get(v.role) != simdjson::SUCCESS) return false;
      } else if (k == "content") {
        if (field.value.is_string()) {
          v.content = std::string_view(field.value);
          v.has_content = true;
        } else if (!field.value.is_null()) {
          return false;  // content parts: general path
        }
      } else if (k == "tool_calls") {
        v.calls = field.value;
        v.has_calls = field.value.is_array() && simdjson::dom::array(field.value).size() > 0;
        if (!field.value.is_array() && !field.value.is_null()) return false;
      } else if (k == "name") {
        v.has_name = field.value.is_string() && !std::string_view(field.value).empty();
      } else if (k == "reasoning_content") {
        v.has_reasoning = !field.value.is_null() &&
                          !(field.value.is_string() && std::string_view(field.value).empty());
      } else if (k != "tool_call_id") {
        return false;
      }
    }
    if (v.role != "system" && v.role != "user" && v.role != "assistant" && v.role != "tool" &&
        v.role != "developer") {
      return false;
    }
    if (v.has_calls && v.role != "assistant") return false;
    if (contains_banned(v.content, v.role)) return false;  // the general path reports it
    if (v.role == "system" && v.content.ends_with(kToolsTail)) return false;
    // Calls followed straight by another assistant message with calls (no tool replies in
    // between, which the OpenAI API refuses): the model's split form cannot keep the two
    // apart, so the general path (which merges them) answers for both.
    if (v.has_calls && !ms.empty() && ms.back().role == "assistant" && ms.back().has_calls)
      return false;
    ms.push_back(v);
  }
  const std::size_t start = w.size();
  const auto decline = [&w, start] {
    w.truncate(start);
    return false;
  };
  const bool first_system = !ms.empty() && ms[0].role == "system";
  w(kSystemHead);
  if (first_system) {
    w(ms[0].content);
  } else {
    w(kDefaultSystemText);
  }
  simdjson::dom::array tools;
  bool has_tools = false;
  element tools_value;
  if (doc.is_object() && doc["tools"].get(tools_value) == simdjson::SUCCESS &&
      !tools_value.is_null()) {
    if (tools_value.get(tools) != simdjson::SUCCESS) return false;  // not an array
    has_tools = true;
  }
  const auto tools_ok = [&tools]() {
    for (element t : tools) {
      // The general path's checks (read_tools): an object with a named function.
      if (!t.is_object()) return false;
      element f = t;
      element inner;
      if (t["function"].get(inner) == simdjson::SUCCESS) {
        if (!inner.is_object()) return false;
        f = inner;
      }
      if (!unique_keys(t) || !unique_keys(f)) return false;
      std::string_view name;
      if (f["name"].get(name) != simdjson::SUCCESS || name.empty()) return false;
      element desc;
      if (f["description"].get(desc) == simdjson::SUCCESS && !desc.is_string() && !desc.is_null())
        return false;
    }
    return true;
  };
  if (has_tools && !tools_ok()) return false;
  if (has_tools && tools.size() > 0) {
    w(kToolsHeadText);
    for (element t : tools) {
      w(kNewline);
      w.dumps(t);
    }
    w(kToolsTailText);
  }
  w(kImEnd);
  bool dropped_ids = false;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const msg_view& m = ms[i];
    if (m.has_reasoning && m.role == "assistant") warnings.push_back(dropped(i, "reasoning"));
    if (m.has_name && m.role != "tool") warnings.push_back(dropped(i, "a name"));
    if (i == 0 && first_system) continue;
    if (m.role == "developer") {
      warnings.push_back(dropped_developer(i));
      continue;
    }
    if (m.role == "tool") {
      if (i == 0 || ms[i - 1].role != "tool") w(kUserHead);
      w(kResponseOpen);
      w(m.content);
      w(kResponseClose);
      if (i + 1 == ms.size() || ms[i + 1].role != "tool") w(kImEnd);
      continue;
    }
    if (m.role == "assistant" && m.has_calls) {
      w(kAssistantHead);
      if (!m.content.empty()) {
        w(kNewline);
        w(m.content);
      }
      for (element call : simdjson::dom::array(m.calls)) {
        element f;
        std::string_view name;
        // A key given twice goes the general way (readers disagree on which one counts).
        if (!unique_keys(call) || call["function"].get(f) != simdjson::SUCCESS || !unique_keys(f) ||
            f["name"].get(name) != simdjson::SUCCESS ||
            name.find_first_of("\"\\") != std::string_view::npos) {
          return decline();
        }
        std::string_view id;
        if (call["id"].get(id) == simdjson::SUCCESS && !id.empty()) dropped_ids = true;
        w(kCallOpen);
        w(name);
        w(kCallArguments);
        element args;
        if (f["arguments"].get(args) != simdjson::SUCCESS) {
          w(kEmptyArguments);
        } else if (args.is_string()) {
          if (!w.dumps_text(std::string_view(args))) return decline();
        } else {
          w.dumps(args);
        }
        w(kCallClose);
      }
      w(kImEnd);
      continue;
    }
    w(kImStart);
    w.plain(m.role);  // one of the five roles checked above
    w(kNewline);
    w(m.content);
    w(kImEnd);
  }
  if (dropped_ids) warnings.push_back(dropped_ids_warning());
  if (add_generation_prompt) w(kGenerationPrompt);
  return true;
}

}  // namespace

bool render_openai_text(std::string_view text, bool add_generation_prompt, std::string& out,
                        std::vector<diagnostic>& warnings) {
  return render_openai({.text = text}, add_generation_prompt, text_writer{out}, warnings);
}

bool render_openai_json_text(json_input text, bool add_generation_prompt, escaped_buffer& out,
                             std::vector<diagnostic>& warnings) {
  return render_openai(text, add_generation_prompt, json_writer{out}, warnings);
}

}  // namespace ocml::detail::chatml
