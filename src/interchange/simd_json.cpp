// SPDX-License-Identifier: Apache-2.0
#include "interchange/simd_json.hpp"

#include <simdjson.h>
#include <algorithm>

#include <charconv>

#include "interchange/json_escape.hpp"
#include "interchange/key_set.hpp"
#include "interchange/pyjson.hpp"
#include "ocml/json.hpp"

namespace ocml::detail {

namespace {

simdjson::dom::parser& thread_parser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

// A second parser for JSON nested in strings (tool arguments), so parsing them does not
// invalidate the document being read.
simdjson::dom::parser& nested_parser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

json to_nlohmann(simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT: {
      json o = json::object();
      auto& members = o.get_ref<json::object_t&>();
      // Appended in place (operator[] would insert a null and assign over it); a key given
      // twice keeps its first place and takes its last value, as operator[] does.
      auto& in_order = static_cast<json::object_t::Container&>(members);
      const simdjson::dom::object obj(e);
      in_order.reserve(obj.size());
      for (auto field : obj) {
        const std::string_view key = field.key;
        const auto same = std::find_if(in_order.begin(), in_order.end(),
                                       [key](const auto& kv) { return kv.first == key; });
        if (same != in_order.end()) {
          same->second = to_nlohmann(field.value);
        } else {
          in_order.emplace_back(std::string(key), to_nlohmann(field.value));
        }
      }
      return o;
    }
    case simdjson::dom::element_type::ARRAY: {
      json a = json::array();
      auto& items = a.get_ref<json::array_t&>();
      const simdjson::dom::array arr(e);
      items.reserve(arr.size());
      for (auto v : arr) items.push_back(to_nlohmann(v));
      return a;
    }
    case simdjson::dom::element_type::STRING:
      return std::string(std::string_view(e));
    case simdjson::dom::element_type::INT64:
      return std::int64_t(e);
    case simdjson::dom::element_type::UINT64:
      return std::uint64_t(e);
    case simdjson::dom::element_type::DOUBLE:
      return double(e);
    case simdjson::dom::element_type::BOOL:
      return bool(e);
    default:
      return nullptr;
  }
}

}  // namespace

namespace {

// Where py_dumps writes: JSON text as is, or escaped as the inside of a JSON string.
struct plain_writer {
  std::string& out;
  void put(std::string_view s) const { out += s; }
  void put(char c) const { out.push_back(c); }
  void quoted(std::string_view s) const { append_json_string(out, s, true); }
  [[nodiscard]] std::size_t size() const { return out.size(); }
  void truncate(std::size_t n) const { out.resize(n); }
};
struct escaped_writer {
  escaped_buffer& out;
  void put(std::string_view s) const { out.raw(s); }  // structure and numbers: no escapes
  void put(char c) const { out.raw(c); }
  void quoted(std::string_view s) const {
    out.raw("\\\"");
    out.escape_twice(s);
    out.raw("\\\"");
  }
  [[nodiscard]] std::size_t size() const { return out.size(); }
  void truncate(std::size_t n) const { out.truncate(n); }
};

template <typename Writer>
void py_dumps_to(simdjson::dom::element e, const Writer& w);

// Python's json.loads keeps a key given twice once: where it first appears, with the value
// it last had. The plain loop notes keys as it writes; on a repeat (rare) it takes the
// object back and writes it the slow way.
template <typename Writer>
void py_dumps_object(simdjson::dom::element e, const Writer& w) {
  const simdjson::dom::object o(e);
  const std::size_t start = w.size();
  w.put('{');
  key_set seen;
  bool repeats = false;
  bool first = true;
  for (auto field : o) {
    if (!seen.insert(field.key)) {
      repeats = true;
      break;
    }
    if (!first) w.put(", ");
    first = false;
    w.quoted(field.key);
    w.put(": ");
    py_dumps_to(field.value, w);
  }
  if (repeats) {
    w.truncate(start);
    w.put('{');
    first = true;
    std::size_t index = 0;
    for (auto field : o) {
      simdjson::dom::element value = field.value;
      bool earlier = false;
      std::size_t j = 0;
      for (auto other : o) {
        if (j < index && other.key == field.key) earlier = true;
        if (j > index && other.key == field.key) value = other.value;
        ++j;
      }
      ++index;
      if (earlier) continue;
      if (!first) w.put(", ");
      first = false;
      w.quoted(field.key);
      w.put(": ");
      py_dumps_to(value, w);
    }
  }
  w.put('}');
}

template <typename Writer>
void py_dumps_to(simdjson::dom::element e, const Writer& w) {
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT:
      py_dumps_object(e, w);
      break;
    case simdjson::dom::element_type::ARRAY: {
      w.put('[');
      bool first = true;
      for (auto v : simdjson::dom::array(e)) {
        if (!first) w.put(", ");
        first = false;
        py_dumps_to(v, w);
      }
      w.put(']');
      break;
    }
    case simdjson::dom::element_type::STRING:
      w.quoted(std::string_view(e));
      break;
    case simdjson::dom::element_type::INT64:
    case simdjson::dom::element_type::UINT64: {
      char digits[24];
      const auto r = e.type() == simdjson::dom::element_type::INT64
                         ? std::to_chars(digits, digits + sizeof digits, std::int64_t(e))
                         : std::to_chars(digits, digits + sizeof digits, std::uint64_t(e));
      w.put(std::string_view(digits, static_cast<std::size_t>(r.ptr - digits)));
      break;
    }
    case simdjson::dom::element_type::DOUBLE:
      w.put(python_float_repr(double(e)));
      break;
    case simdjson::dom::element_type::BOOL:
      w.put(bool(e) ? "true" : "false");
      break;
    default:
      w.put("null");
      break;
  }
}

}  // namespace

void py_dumps(simdjson::dom::element e, std::string& out) {
  py_dumps_to(e, plain_writer{out});
}

void py_dumps_escaped(simdjson::dom::element e, escaped_buffer& out) {
  py_dumps_to(e, escaped_writer{out});
}

namespace {

// Text of a content value: a string, or a list of text parts.
bool content_of(simdjson::dom::element v, std::string& out) {
  if (v.is_null()) return true;
  if (v.is_string()) {
    out = std::string(std::string_view(v));
    return true;
  }
  if (!v.is_array()) return false;
  for (auto part : simdjson::dom::array(v)) {
    if (part.is_string()) {
      out += std::string_view(part);
    } else {
      std::string_view t;
      if (part["text"].get(t) != simdjson::SUCCESS) return false;
      out += t;
    }
  }
  return true;
}

// The string at `key` ("" when absent or null); false when the key holds anything else
// (the general reader decides what that means).
bool str(simdjson::dom::element obj, const char* key, std::string& out) {
  simdjson::dom::element v;
  if (obj[key].get(v) != simdjson::SUCCESS || v.is_null()) {
    out.clear();
    return true;
  }
  if (!v.is_string()) return false;
  out = std::string_view(v);
  return true;
}

}  // namespace

simdjson::dom::parser& document_parser() {
  return thread_parser();
}

namespace {
// Copies `text` into a reused buffer with simdjson's padding (no allocation per parse once
// the buffer has grown) and parses it with `p`.
simdjson::simdjson_result<simdjson::dom::element> parse_padded(simdjson::dom::parser& p,
                                                               std::string& buffer,
                                                               std::string_view text) {
  buffer.assign(text);
  buffer.append(simdjson::SIMDJSON_PADDING, '\0');
  return p.parse(buffer.data(), text.size(), false);
}
}  // namespace

simdjson::simdjson_result<simdjson::dom::element> parse_document(std::string_view text) {
  thread_local std::string buffer;
  return parse_padded(thread_parser(), buffer, text);
}

result<conversation> read_openai_text(std::string_view text) {
  const auto fail = [] {
    return make_error(error_code::invalid_json, "not handled by the fast path");
  };
  simdjson::dom::element doc;
  if (parse_document(text).get(doc) != simdjson::SUCCESS) return fail();
  simdjson::dom::array msgs;
  if (doc.is_array()) {
    msgs = simdjson::dom::array(doc);
  } else if (doc["messages"].get(msgs) != simdjson::SUCCESS) {
    return fail();
  }
  if (!unique_keys(doc)) return fail();
  conversation c;
  simdjson::dom::array tools;
  simdjson::dom::element tools_value;
  if (doc.is_object() && doc["tools"].get(tools_value) == simdjson::SUCCESS &&
      !tools_value.is_null() && !tools_value.is_array()) {
    return fail();  // the general path reports it
  }
  if (doc.is_object() && doc["tools"].get(tools) == simdjson::SUCCESS) {
    for (auto t : tools) {
      simdjson::dom::element f = t;
      simdjson::dom::element inner;
      const bool nested = t["function"].get(inner) == simdjson::SUCCESS;
      if (nested) f = inner;
      if (!unique_keys(t) || !unique_keys(f)) return fail();
      tool x;
      if (!str(f, "name", x.name) || !str(f, "description", x.description)) return fail();
      x.source = to_nlohmann(t);
      if (f["parameters"].error() == simdjson::SUCCESS) {
        // A copy of the tree source holds (cheaper than converting the schema again).
        const json& fn = nested ? x.source.at("function") : x.source;
        x.parameters = fn.at("parameters");
      }
      if (x.name.empty()) return fail();
      c.tools.push_back(std::move(x));
    }
  }
  for (auto m : msgs) {
    if (!m.is_object()) return fail();
    // Anything beyond the plain OpenAI keys, or a key given twice, goes the general way.
    unsigned seen = 0;
    for (auto field : simdjson::dom::object(m)) {
      const std::string_view k = field.key;
      static constexpr std::string_view kKeys[] = {
          "role", "content", "name", "tool_calls", "tool_call_id", "reasoning_content"};
      unsigned bit = 0;
      for (unsigned b = 0; b < 6; ++b) {
        if (k == kKeys[b]) bit = 1u << b;
      }
      if (bit == 0 || (seen & bit) != 0) return fail();
      seen |= bit;
    }
    message x;
    std::string role_name;
    if (!str(m, "role", role_name)) return fail();
    const auto r = parse_role(role_name);
    if (!r) return fail();
    x.role = *r;
    simdjson::dom::element content;
    if (m["content"].get(content) == simdjson::SUCCESS && !content_of(content, x.content))
      return fail();
    if (!str(m, "name", x.name)) return fail();
    if (x.role == role::tool && !str(m, "tool_call_id", x.call_id)) return fail();
    if (x.role == role::assistant) {
      x.channel = "final";  // as the general reader does (read_openai_grouped)
      if (!str(m, "reasoning_content", x.reasoning)) return fail();
      simdjson::dom::array calls;
      simdjson::dom::element calls_value;
      if (m["tool_calls"].get(calls_value) == simdjson::SUCCESS && !calls_value.is_null() &&
          !calls_value.is_array()) {
        return fail();  // the general reader's error to report
      }
      if (m["tool_calls"].get(calls) == simdjson::SUCCESS) {
        for (auto tc : calls) {
          simdjson::dom::element f;
          if (tc["function"].get(f) != simdjson::SUCCESS) return fail();
          if (!unique_keys(tc) || !unique_keys(f)) return fail();
          tool_call y;
          if (!str(tc, "id", y.id) || !str(f, "name", y.name)) return fail();
          simdjson::dom::element args;
          if (f["arguments"].get(args) == simdjson::SUCCESS) {
            if (args.is_string()) {
              y.arguments = std::string(std::string_view(args));
            } else {
              y.arguments = simdjson::minify(args);
            }
          }
          x.tool_calls.push_back(std::move(y));
        }
      }
    }
    c.messages.push_back(std::move(x));
  }
  return c;
}

simdjson::simdjson_result<simdjson::dom::element> parse_nested(std::string_view text) {
  thread_local std::string buffer;
  return parse_padded(nested_parser(), buffer, text);
}

bool json_text_valid(std::string_view text) {
  // simdjson accepts a subset of what nlohmann::json::accept does, save lone UTF-16
  // surrogates written as \u escapes: text with an escape, or that simdjson refuses (a
  // number out of its range, say), is nlohmann's to judge.
  if (text.find("\\u") == std::string_view::npos) {
    thread_local simdjson::dom::parser parser;  // its own: no other parse's elements die
    thread_local std::string buffer;
    simdjson::dom::element e;
    if (parse_padded(parser, buffer, text).get(e) == simdjson::SUCCESS) return true;
  }
  return json::accept(text);
}

bool python_dumps_text(std::string_view text, std::string& out) {
  simdjson::dom::element doc;
  if (parse_nested(text).get(doc) != simdjson::SUCCESS) return false;
  py_dumps(doc, out);
  return true;
}

bool python_dumps_text(std::string_view text, escaped_buffer& out) {
  simdjson::dom::element doc;
  if (parse_nested(text).get(doc) != simdjson::SUCCESS) return false;
  py_dumps_escaped(doc, out);
  return true;
}

bool unique_keys(simdjson::dom::element e) {
  if (!e.is_object()) return true;
  key_set seen;
  for (auto field : simdjson::dom::object(e)) {
    if (!seen.insert(field.key)) return false;
  }
  return true;
}

}  // namespace ocml::detail

namespace ocml {

void append_json_quoted(std::string& out, std::string_view s) {
  detail::append_json_string(out, s);
}

}  // namespace ocml
