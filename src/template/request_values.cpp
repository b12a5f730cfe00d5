// SPDX-License-Identifier: Apache-2.0
// The request as template values (request_values.hpp). simdjson parses the request into
// its tape (docs: simdjson's tape.md: one 64-bit word per element, its type in the top
// byte; an object or array word holds the index past its end; a string's holds its offset
// in the string buffer, where a 32-bit length precedes the bytes). Arrays, strings and
// numbers become values when the object holding them is built; an object stays a reference
// to its place on the tape (value_data::json_object) until the template looks into it, and
// is then built once for the rest of the render.
#include "template/request_values.hpp"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "interchange/pyjson.hpp"
#include "interchange/simd_json.hpp"
#include "ocml/json.hpp"
#include "template/bigint.hpp"
#include "template/python_json.hpp"

namespace ocml::tmpl {

namespace {

// Where a JSON object stands in a request: the tool calls of its messages get their
// arguments parsed as they are built (transformers' callers do it before rendering).
enum class place : unsigned char { other, request, messages, message, tool_calls, call, function };

// The thread's request document: simdjson's tape of the request being rendered, and the
// dicts of its objects built so far, by tape index (open addressing; index 0, the root
// word, is never an object's and marks a free slot).
struct request_doc {
  simdjson::dom::parser parser;
  std::string padded;
  const std::uint64_t* tape = nullptr;
  const std::uint8_t* strings = nullptr;
  mutable std::vector<std::pair<std::uint32_t, const dict*>> table;
  mutable std::size_t used = 0;
  mutable std::vector<dict_ptr> built;

  void reset() {
    constexpr std::size_t kKeep = 1024;  // a table grown for one huge request is not kept
    if (table.size() > kKeep && used * 8 < table.size()) {
      table = {};
    } else if (used > 0) {
      std::fill(table.begin(), table.end(), std::pair<std::uint32_t, const dict*>{});
    }
    used = 0;
    built.clear();
  }
  [[nodiscard]] std::size_t home(std::uint32_t i) const {
    return (static_cast<std::size_t>(i) * 2654435761U) & (table.size() - 1);
  }
  [[nodiscard]] const dict* find(std::uint32_t i) const {
    if (table.empty()) return nullptr;
    for (std::size_t h = home(i);; h = (h + 1) & (table.size() - 1)) {
      if (table[h].first == i) return table[h].second;
      if (table[h].first == 0) return nullptr;
    }
  }
  void insert(std::uint32_t i, const dict* d) const {
    std::size_t h = home(i);
    while (table[h].first != 0) h = (h + 1) & (table.size() - 1);
    table[h] = {i, d};
  }
  void put(std::uint32_t i, dict_ptr d) const {
    if ((used + 1) * 2 > table.size()) {
      auto old = std::move(table);
      table.assign(std::max<std::size_t>(64, old.size() * 2), {});
      for (const auto& e : old) {
        if (e.first != 0) insert(e.first, e.second);
      }
    }
    insert(i, d.get());
    built.push_back(std::move(d));
    ++used;
  }

  // The tape, read.
  [[nodiscard]] char type(std::size_t i) const { return static_cast<char>(tape[i] >> 56); }
  // The index past the object or array opening at `i` (past its closing word).
  [[nodiscard]] std::size_t end(std::size_t i) const { return static_cast<std::uint32_t>(tape[i]); }
  [[nodiscard]] std::size_t count(std::size_t i) const {
    return static_cast<std::size_t>((tape[i] >> 32) & simdjson::internal::JSON_COUNT_MASK);
  }
  [[nodiscard]] std::size_t after(std::size_t i) const {
    switch (type(i)) {
      case '[':
      case '{':
        return end(i);
      case 'l':
      case 'u':
      case 'd':
        return i + 2;
      default:
        return i + 1;
    }
  }
  [[nodiscard]] std::string_view string(std::size_t i) const {
    const std::size_t at = tape[i] & simdjson::internal::JSON_VALUE_MASK;
    std::uint32_t n = 0;
    std::memcpy(&n, strings + at, sizeof n);
    return {reinterpret_cast<const char*>(strings + at + sizeof n), n};  // NOLINT
  }
  template <class T>
  [[nodiscard]] T next(std::size_t i) const {
    T x;
    std::memcpy(&x, &tape[i + 1], sizeof x);
    return x;
  }
};

request_doc& thread_doc() {
  thread_local request_doc d;
  return d;
}

value from_element(simdjson::dom::element e);
std::optional<value> loads(std::string_view text);

// A dict key's value: the short keys every request repeats ("role", "content", "type"…)
// share a string, kept in a small direct-mapped table per thread, rather than each
// allocating its own.
value key_value(std::string_view k) {
  constexpr std::size_t kMaxKey = 24;
  constexpr std::size_t kSlots = 256;
  if (k.empty() || k.size() > kMaxKey) return value(k);
  thread_local std::array<str_ptr, kSlots> slots;
  const auto c = [&k](std::size_t i) {
    return static_cast<std::size_t>(static_cast<unsigned char>(k[i]));
  };
  str_ptr& slot =
      slots[(k.size() * 31 + c(0) * 7 + c(k.size() / 2) * 13 + c(k.size() - 1) * 131) % kSlots];
  if (slot == nullptr || !is_text(*slot, k)) {
    slot = make_rc<std::string>(k);  // (non-const: see value_data::sole)
  }
  value x;
  x.v = slot;
  return x;
}

// A tool call's (or its function's) `arguments` parsed when they are JSON text; kept as
// the string they are otherwise.
void parse_arguments(dict& d) {
  const value* args = d.find("arguments");
  if (args == nullptr || !args->is_string()) return;
  std::optional<value> parsed;
  try {
    parsed = loads(args->str());
  } catch (const template_error&) {  // json.loads's ValueError (4300 digits): kept too
  }
  if (parsed) d.set(key_value("arguments"), std::move(*parsed));
}

// The place of a key's value in an object at `at`.
place inner_place(place at, std::string_view k) {
  if (at == place::request && k == "messages") return place::messages;
  if (at == place::message && k == "tool_calls") return place::tool_calls;
  if (at == place::call && k == "function") return place::function;
  return place::other;
}

// `tc.get("function", tc)`: a call's function holds the arguments, or the call itself.
void finish_object(dict& d, place at) {
  if (at == place::function || (at == place::call && d.find("function") == nullptr)) {
    parse_arguments(d);
  }
}

// ---- the request document's elements ----------------------------------------------------

// The value of the element at tape index `i`: an object stays on the tape.
value convert(const request_doc& d, std::size_t i, place at) {
  switch (d.type(i)) {
    case '{': {
      // `messages` as an object, or a message's `tool_calls` as one, is nothing special.
      const place p = at == place::messages || at == place::tool_calls ? place::other : at;
      // It nests at most one level per two words of its own (each level opens and closes).
      const auto levels = static_cast<std::uint32_t>(
          std::min<std::size_t>((d.end(i) - i) / 2, default_max_json_depth));
      return value::json_object(&d, i | (static_cast<std::uint64_t>(p) << 32), levels);
    }
    case '[': {
      // The items of the request's messages are messages; of a message's tool_calls, calls.
      const place item = at == place::messages     ? place::message
                         : at == place::tool_calls ? place::call
                                                   : place::other;
      list l;
      l.reserve(d.count(i));
      const std::size_t close = d.end(i) - 1;
      for (std::size_t j = i + 1; j < close; j = d.after(j)) l.push_back(convert(d, j, item));
      return value(std::move(l));
    }
    case '"':
      return value(d.string(i));
    case 'l':
      return value(d.next<std::int64_t>(i));
    case 'u':
      return int_from_text(std::to_string(d.next<std::uint64_t>(i)));
    case 'd':
      return value(d.next<double>(i));
    case 't':
      return value(true);
    case 'f':
      return value(false);
    default:
      return value(none_t{});
  }
}

// json.dumps of the element at `i`, as dumps writes its value; false where the built value
// is needed (a key twice in an object: Python keeps its first place and last value).
bool write_json(const request_doc& d, std::size_t i, const dumps_options& o, std::size_t level,
                text_buffer& out) {
  const bool pretty = o.indent >= 0 || o.has_indent_text;
  switch (d.type(i)) {
    case '{': {
      const std::size_t close = d.end(i) - 1;
      if (i + 1 == close) {
        out.raw("{}");
        return true;
      }
      std::array<std::string_view, 16> keys;
      std::size_t n = 0;
      for (std::size_t j = i + 1; j < close; j = d.after(j + 1)) {
        if (n == keys.size()) return false;
        const std::string_view k = d.string(j);
        for (std::size_t m = 0; m < n; ++m) {
          if (keys[m] == k) return false;
        }
        keys[n++] = k;
      }
      out.raw('{');
      for (std::size_t j = i + 1, m = 0; j < close; j = d.after(j + 1), ++m) {
        if (m > 0) out.raw(o.item_sep);
        if (pretty) dumps_newline(o, level + 1, out);
        dumps_string(keys[m], o.ensure_ascii, out);
        out.raw(o.key_sep);
        if (!write_json(d, j + 1, o, level + 1, out)) return false;
      }
      if (pretty) dumps_newline(o, level, out);
      out.raw('}');
      return true;
    }
    case '[': {
      const std::size_t close = d.end(i) - 1;
      if (i + 1 == close) {
        out.raw("[]");
        return true;
      }
      out.raw('[');
      for (std::size_t j = i + 1; j < close; j = d.after(j)) {
        if (j > i + 1) out.raw(o.item_sep);
        if (pretty) dumps_newline(o, level + 1, out);
        if (!write_json(d, j, o, level + 1, out)) return false;
      }
      if (pretty) dumps_newline(o, level, out);
      out.raw(']');
      return true;
    }
    case '"':
      dumps_string(d.string(i), o.ensure_ascii, out);
      return true;
    case 'l':
      dumps_int(d.next<std::int64_t>(i), out);
      return true;
    case 'u':
      out.raw(std::to_string(d.next<std::uint64_t>(i)));
      return true;
    case 'd':
      out.raw(detail::python_float_repr(d.next<double>(i)));
      return true;
    case 't':
      out.raw("true");
      return true;
    case 'f':
      out.raw("false");
      return true;
    default:
      out.raw("null");
      return true;
  }
}

// ---- JSON nested in the request (tool-call arguments: built whole), the Python reader ----

value from_object(simdjson::dom::object o) {
  auto d = make_rc<dict>();
  d->entries.reserve(o.size());
  for (const auto field : o) {
    d->set(key_value(field.key), from_element(field.value));  // a repeated key: the last wins
  }
  return value(dict_ptr(std::move(d)));
}

value from_element(simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: {
      list l;
      // (A named array: a range-for over value_unsafe() of a temporary would dangle.)
      const simdjson::dom::array a = e.get_array().value_unsafe();
      l.reserve(a.size());
      for (const auto x : a) l.push_back(from_element(x));
      return value(std::move(l));
    }
    case simdjson::dom::element_type::OBJECT:
      return from_object(e.get_object().value_unsafe());
    case simdjson::dom::element_type::INT64:
      return value(static_cast<std::int64_t>(e.get_int64().value_unsafe()));
    case simdjson::dom::element_type::UINT64:
      return int_from_text(std::to_string(e.get_uint64().value_unsafe()));
    case simdjson::dom::element_type::DOUBLE:
      return value(e.get_double().value_unsafe());
    case simdjson::dom::element_type::STRING:
      return value(e.get_string().value_unsafe());
    case simdjson::dom::element_type::BOOL:
      return value(e.get_bool().value_unsafe());
    default:
      return value(none_t{});
  }
}

// Tool-call arguments as json.loads reads them: simdjson when it takes the text (its
// 1024-level depth bound holds for from_element's recursion), else the Python reader (NaN,
// Infinity, integers beyond 64 bits). nullopt: not JSON to Python either. Read with the
// nested parser, and built whole (its document is the next call's).
std::optional<value> loads(std::string_view text) {
  simdjson::dom::element doc;
  if (detail::parse_nested(text).get(doc) == simdjson::SUCCESS) return from_element(doc);
  return python_json_loads(text, default_max_json_depth);
}

// For the Python reader's request: a tool call with its function's arguments (or, without a
// function, its own) parsed, as transformers' callers do it (`tc.get("function", tc)`).
value with_parsed_arguments(const value& call) {
  if (!call.is_dict()) return call;
  auto d = make_rc<dict>(call.map());
  const value* fn = d->find("function");
  if (fn == nullptr) {
    parse_arguments(*d);
  } else if (fn->is_dict()) {
    auto f = make_rc<dict>(fn->map());
    parse_arguments(*f);
    d->set(key_value("function"), value(dict_ptr(std::move(f))));
  }
  return value(dict_ptr(std::move(d)));
}

// The messages, with each tool call's arguments parsed.
value messages_of(const value& messages) {
  list out;
  out.reserve(messages.items().size());
  for (const auto& m : messages.items()) {
    const value* calls = m.is_dict() ? m.map().find("tool_calls") : nullptr;
    if (calls == nullptr || !calls->is_list()) {
      out.push_back(m);
      continue;
    }
    list parsed;
    for (const auto& c : calls->items()) parsed.push_back(with_parsed_arguments(c));
    auto d = make_rc<dict>(m.map());
    d->set(value("tool_calls"), value(std::move(parsed)));
    out.push_back(value(dict_ptr(std::move(d))));
  }
  return value(std::move(out));
}

}  // namespace

const dict& view_map(const value_data& v) {
  const auto& d = *static_cast<const request_doc*>(v.raw());
  const auto i = static_cast<std::uint32_t>(v.where());
  if (const dict* built = d.find(i)) return *built;
  const auto at = static_cast<place>(v.where() >> 32);
  auto m = make_rc<dict>();
  m->entries.reserve(d.count(i));
  const std::size_t close = d.end(i) - 1;
  for (std::size_t j = i + 1; j < close; j = d.after(j + 1)) {
    const std::string_view k = d.string(j);
    m->set(key_value(k), convert(d, j + 1, inner_place(at, k)));  // a repeated key: the last wins
  }
  finish_object(*m, at);
  const dict& out = *m;
  d.put(i, std::move(m));
  return out;
}

const dict& value_data::built_map() const {
  const dict& m = view_map(*this);
  p_ = rc<const void>(rc<const void>(), &m);  // the document's `built` keeps it
  t_.view = false;
  t_.built = true;
  return m;
}

bool dumps_json_object(const value& x, const dumps_options& o, std::size_t level,
                       text_buffer& out) {
  // The request's own objects, messages and tool calls are built: arguments are parsed.
  if (!x.v.from_request() || static_cast<place>(x.v.where() >> 32) != place::other || o.sort_keys) {
    return false;
  }
  const request_doc& d = thread_doc();  // (every view is of the thread's document)
  const std::size_t mark = out.size();
  if (write_json(d, static_cast<std::uint32_t>(x.v.where()), o, level, out)) return true;
  out.truncate(mark);
  return false;
}

request_scope::~request_scope() {
  request_doc& d = thread_doc();
  d.reset();
  // A thread keeps its parser's buffers for the next request, unless the last was large:
  // a server thread that once read an 8 MB request does not hold ~10× that for good.
  constexpr std::size_t kKeepBytes = std::size_t{1} << 20;
  if (d.padded.capacity() > kKeepBytes) {
    d.padded = std::string();
    d.parser = simdjson::dom::parser();
    d.tape = nullptr;
    d.strings = nullptr;
  }
}

std::optional<value> read_request(std::string_view text) {
  request_doc& d = thread_doc();
  d.reset();
  // A padded copy (simdjson reads past the end), reused: no allocation once warm.
  d.padded.assign(text);
  d.padded.append(simdjson::SIMDJSON_PADDING, '\0');
  simdjson::dom::element root;
  if (d.parser.parse(d.padded.data(), text.size(), false).get(root) == simdjson::SUCCESS) {
    d.tape = d.parser.doc.tape.get();
    d.strings = d.parser.doc.string_buf.get();
    return convert(d, 1, place::request);  // (the root element follows the root word)
  }
  // The Python reader (NaN, Infinity, integers beyond 64 bits), its tool calls then parsed.
  std::optional<value> v = python_json_loads(text, default_max_json_depth);
  if (!v || !v->is_dict()) return v;
  const value* msgs = v->map().find("messages");
  if (msgs == nullptr || !msgs->is_list()) return v;
  auto req = make_rc<dict>(v->map());
  req->set(value("messages"), messages_of(*msgs));
  return value(dict_ptr(std::move(req)));
}

}  // namespace ocml::tmpl
