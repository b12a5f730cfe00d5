// SPDX-License-Identifier: Apache-2.0
// OpenAI JSON text -> ChatML text in one pass over a simdjson document, without building
// the conversation model (`ocml render -d chatml` of OpenAI JSON). Anything unusual
// declines, and the caller takes the general path. The batch line writer
// (line_render.cpp) is a second, independent one-pass renderer; tests and the json fuzzer
// hold both and the library path to the same bytes.
#include <algorithm>
#include <array>
#include <vector>

#include "dialects/chatml/chatml.hpp"
#include "dialects/chatml/one_pass.hpp"
#include "interchange/pyjson.hpp"
#include "interchange/simd_json.hpp"

namespace ocml::detail::chatml {

namespace {

using simdjson::dom::element;

// The side text: Python dumps of tools and arguments, plain.
struct dom_state : gathered {
  std::string side;
};

// The calls of an assistant message, each with its arguments dumped into the side text.
bool read_calls(element calls, dom_state& st) {
  for (element call : simdjson::dom::array(calls)) {
    element f;
    call_ref c;
    // A key given twice goes the general way (readers disagree on which one counts).
    if (!unique_keys(call) || call["function"].get(f) != simdjson::SUCCESS || !unique_keys(f) ||
        f["name"].get(c.name) != simdjson::SUCCESS ||
        c.name.find_first_of("\"\\") != std::string_view::npos) {
      return false;
    }
    element args;
    if (f["arguments"].get(args) == simdjson::SUCCESS) {
      c.arguments_at = st.side.size();
      if (!args.is_string()) {
        py_dumps(args, st.side);
      } else if (!python_dumps_text(std::string_view(args), st.side)) {
        return false;
      }
      c.arguments_size = st.side.size() - c.arguments_at;
    }
    st.calls.push_back(c);
  }
  return true;
}

bool read_message(element m, dom_state& st) {
  if (!m.is_object()) return false;
  message_ref v;
  v.calls_begin = v.calls_end = st.calls.size();
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
        v.content.text = std::string_view(field.value);
      } else if (!field.value.is_null()) {
        return false;  // content parts: general path
      }
    } else if (k == "tool_calls") {
      if (field.value.is_array()) {
        if (!read_calls(field.value, st)) return false;
        v.calls_end = st.calls.size();
      } else if (!field.value.is_null()) {
        return false;
      }
    } else if (k == "name") {
      v.has_name = field.value.is_string() && !std::string_view(field.value).empty();
    } else if (k == "reasoning_content") {
      v.has_reasoning = !field.value.is_null() &&
                        !(field.value.is_string() && std::string_view(field.value).empty());
    } else if (k != "tool_call_id") {
      return false;
    }
  }
  return st.accept(v);
}

// The tools, each dumped into the side text after a newline, with the general path's checks
// (read_tools): an object with a named function.
bool read_tools(element doc, dom_state& st) {
  element value;
  if (!doc.is_object() || doc["tools"].get(value) != simdjson::SUCCESS || value.is_null()) {
    return true;
  }
  simdjson::dom::array tools;
  if (value.get(tools) != simdjson::SUCCESS) return false;  // not an array
  st.tools_at = st.side.size();
  for (element t : tools) {
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
    st.side += kNewline.raw;
    py_dumps(t, st.side);
  }
  st.tools_size = st.side.size() - st.tools_at;
  return true;
}

// Plain ChatML text.
struct plain_out {
  std::string& out;
  void put(const piece& p) const { out += p.raw; }
  void put(const text_ref& t) const { out += t.text; }
  void raw(std::string_view s) const { out += s; }
};

}  // namespace

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

bool render_openai_text(std::string_view text, bool add_generation_prompt, std::string& out,
                        std::vector<diagnostic>& warnings) {
  thread_local dom_state st;  // reused: no allocation per call once warm
  st.clear();
  st.side.clear();
  element doc;
  if (parse_document(text).get(doc) != simdjson::SUCCESS) return false;
  simdjson::dom::array messages;
  if (doc.is_array()) {
    messages = simdjson::dom::array(doc);
  } else if (doc["messages"].get(messages) != simdjson::SUCCESS) {
    return false;
  }
  if (!unique_keys(doc)) return false;
  for (element m : messages) {
    if (!read_message(m, st)) return false;
  }
  if (!read_tools(doc, st)) return false;
  if (spells_turn_token(st, st.side)) return false;
  plain_out w{out};
  write_template(st, st.side, add_generation_prompt, w, warnings);
  return true;
}

}  // namespace ocml::detail::chatml
