// SPDX-License-Identifier: Apache-2.0
// OpenAI JSON text -> the escaped ChatML text of a batch output line, in one pass over the
// input with json_reader (the batch hot path; measured: simdjson's DOM build, the walk over
// it and unescaping then re-escaping every string were 60% of `ocml render --jsonl`).
//
// A string whose escapes are already canonical is copied as it stands: its raw text is the
// value escaped exactly as the output line needs it. Everything unusual declines, and the
// caller takes the general path; tests and the json fuzzer hold this renderer, the simdjson
// one-pass renderer (fast_render.cpp) and the library path to the same bytes.
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include <simdjson.h>

#include "dialects/chatml/chatml.hpp"
#include "dialects/chatml/one_pass.hpp"
#include "interchange/json_reader.hpp"

namespace ocml::detail::chatml {

namespace {

// What reading a line gathers, with its arena and its side text (Python dumps of tools
// and arguments, escaped).
struct line_state : gathered {
  json_arena arena;
  escaped_buffer side;
  const char* base = nullptr;     ///< the line's first byte: offsets are counted from it
  request_option_values options;  ///< the request's own options, as raw JSON values

  void reset(std::size_t input_size) {
    clear();
    arena.reset(input_size);
    side.clear();
  }
};

bool read_text(json_reader& r, text_ref& out) {
  json_string s;
  if (!r.string(s)) return false;
  if (s.canonical) {
    out = {s.raw, true};
    return true;
  }
  out.escaped = false;
  return r.value_of(s, out.text);
}

// The arguments of a call, as Python's json.dumps writes them, into `st.side`.
bool read_arguments(json_reader& r, line_state& st, call_ref& call) {
  call.arguments_at = st.side.size();
  if (r.peek() == '"') {  // JSON text in a string: dumped as the object it holds
    json_string s;
    std::string_view text;
    if (!r.string(s) || !r.value_of(s, text)) return false;
    json_reader inner(text, st.arena);
    if (!python_dump(inner, st.side) || !inner.at_end()) return false;
  } else if (!python_dump(r, st.side)) {
    return false;
  }
  call.arguments_size = st.side.size() - call.arguments_at;
  return true;
}

// A list of text parts (strings, or objects with a string "text"), as one text: a single
// canonical part as it stands, else the parts joined in the arena. At most 8 parts; other
// lists, and parts of other kinds (the general path reports them), decline.
bool read_parts(json_reader& r, line_state& st, text_ref& out) {
  std::array<json_string, 8> parts;
  std::size_t n = 0;
  const bool ok = r.array([&] {
    if (n == parts.size()) return false;
    json_string& s = parts[n++];
    if (r.peek() == '"') return r.string(s);
    bool has_text = false;
    return r.object([&](std::string_view key, const json_string&) {
      if (key != "text") return r.skip();
      has_text = true;
      return r.peek() == '"' && r.string(s);
    }) && has_text;
  });
  if (!ok) return false;
  std::size_t total = 0;
  bool canonical = true;
  for (std::size_t i = 0; i < n; ++i) {
    total += parts[i].raw.size();
    canonical = canonical && parts[i].canonical;
  }
  if (n == 1 && canonical) {
    out = {parts[0].raw, true};
    return true;
  }
  char* const begin = st.arena.take(total);
  if (begin == nullptr) return false;
  char* p = begin;
  for (std::size_t i = 0; i < n; ++i) {
    // Canonical escapes joined are the joined text's canonical escapes; otherwise every
    // part is unescaped (a part without escapes is copied as it is).
    if (canonical) {
      std::memcpy(p, parts[i].raw.data(), parts[i].raw.size());
      p += parts[i].raw.size();
    } else {
      p = unescape_into(parts[i].raw, p);
    }
  }
  st.arena.give_back(total - static_cast<std::size_t>(p - begin));
  out = {std::string_view(begin, static_cast<std::size_t>(p - begin)), canonical};
  return true;
}

// `null`, which reads as absent (the next byte is 'n').
bool read_null(json_reader& r) {
  std::string_view word;
  return r.literal(word);  // at 'n' only "null" reads
}

bool read_function(json_reader& r, line_state& st, call_ref& call) {
  bool named = false;
  call.arguments_at = std::string_view::npos;
  const bool ok = r.object([&](std::string_view key, const json_string&) {
    if (key == "arguments") return read_arguments(r, st, call);
    if (key != "name") return r.skip();
    json_string name;
    if (!r.string(name) || name.escaped) return false;  // '"', '\\', controls: general path
    call.name = name.raw;
    named = true;
    return true;
  });
  return ok && named;
}

bool read_call(json_reader& r, line_state& st) {
  call_ref call;
  bool has_function = false;
  const bool ok = r.object([&](std::string_view key, const json_string&) {
    if (key == "function") {
      has_function = true;
      return read_function(r, st, call);
    }
    return r.skip();  // the id among them: ChatML answers calls by order
  });
  if (!ok || !has_function) return false;
  st.calls.push_back(call);
  return true;
}

// One member of a message, by its key (anything beyond the plain OpenAI keys declines).
bool read_message_member(json_reader& r, line_state& st, std::string_view key, message_ref& m) {
  const char next = r.peek();
  const auto at = static_cast<std::size_t>(r.position() - st.base);
  if (key == "role") {
    m.role_at = at;
    json_string role;
    if (!r.string(role) || role.escaped) return false;
    m.role = role.raw;
    return true;
  }
  if (key == "content") {
    if (next == 'n') return read_null(r);
    if (next == '[') return read_parts(r, st, m.content);
    return next == '"' && read_text(r, m.content);
  }
  if (key == "tool_calls") {
    if (next == 'n') return read_null(r);
    const bool ok = r.array([&] { return read_call(r, st); });
    m.calls_end = st.calls.size();
    return ok;
  }
  if (key == "name" || key == "reasoning_content") {
    // A name counts when it is a non-empty string; reasoning when it is anything but null
    // or "".
    const bool reasoning = key != "name";
    bool present = false;
    bool ok = true;
    if (next == '"') {
      json_string s;
      ok = r.string(s);
      present = !s.raw.empty();
      if (ok && reasoning) {
        m.reasoning_text = true;
        m.reasoning = {s.raw, s.canonical};
        if (!s.canonical) ok = r.value_of(s, m.reasoning.text);
      }
    } else {
      present = reasoning && next != 'n';
      ok = r.skip();
    }
    (reasoning ? m.has_reasoning : m.has_name) = present;
    (reasoning ? m.reasoning_at : m.name_at) = at;
    return ok;
  }
  return key == "tool_call_id" && r.skip();
}

bool read_message(json_reader& r, line_state& st) {
  message_ref m;
  m.calls_begin = m.calls_end = st.calls.size();
  const bool ok = r.object(
      [&](std::string_view key, const json_string&) { return read_message_member(r, st, key, m); });
  return ok && st.accept(m);
}

bool read_messages(json_reader& r, line_state& st) {
  return r.array([&] { return read_message(r, st); });
}

// One tool, dumped as Python writes it, with the general path's checks (read_tools): an
// object whose "function" (or itself) has a non-empty string name and a string or null
// description.
bool read_tool(json_reader& r, line_state& st) {
  struct named {
    bool name = false;
    bool bad_description = false;
  };
  named self;
  named function;
  bool has_function = false;
  const auto member = [&r, &st](std::string_view key, named& into) {
    if (key == "name" && r.peek() == '"') {
      json_string s;
      if (!r.string(s) || !python_dump_string(r, s, st.side)) return false;
      into.name = !s.raw.empty();
      return true;
    }
    if (key == "description" && r.peek() != '"' && r.peek() != 'n') into.bad_description = true;
    return python_dump(r, st.side, 2);
  };
  const bool ok = python_dump_object(r, st.side, [&](std::string_view key) {
    if (key != "function") return member(key, self);
    has_function = true;  // an object, else the tool goes the general way
    return python_dump_object(r, st.side,
                              [&](std::string_view inner) { return member(inner, function); });
  });
  if (!ok) return false;
  const named& f = has_function ? function : self;
  return f.name && !f.bad_description;
}

bool read_tools(json_reader& r, line_state& st) {
  if (r.peek() == 'n') return read_null(r);
  st.tools_at = st.side.size();
  const bool ok = r.array([&] {
    st.side.raw(kNewline.escaped);
    return read_tool(r, st);
  });
  st.tools_size = st.side.size() - st.tools_at;
  return ok;
}

bool read_line(std::string_view text, line_state& st) {
  if (!simdjson::validate_utf8(text.data(), text.size())) return false;
  json_reader r(text, st.arena);
  if (r.peek() == '[') return read_messages(r, st) && r.at_end();
  bool has_messages = false;
  const bool ok = r.object([&](std::string_view key, const json_string&) {
    if (key == "messages") {
      has_messages = true;
      return read_messages(r, st);
    }
    if (key == "header" || key == "document") return false;  // the native form's
    if (key == "tools") return read_tools(r, st);
    std::string_view* option = st.options.slot(key);
    const char* const at = r.position();
    if (!r.skip()) return false;
    if (option != nullptr)
      *option = std::string_view(at, static_cast<std::size_t>(r.position() - at));
    return true;
  });
  return ok && has_messages && r.at_end();
}

// Reads `text` into the thread's state and checks what the writers need: false declines.
line_state* read_request(std::string_view text) {
  thread_local line_state st;  // reused: no allocation per line once warm
  st.reset(text.size());
  st.base = text.data();
  st.options = {};
  if (!read_line(text, st)) return nullptr;
  if (spells_turn_token(st, st.side.view())) return nullptr;
  return &st;
}

}  // namespace

const gathered* read_openai_request(std::string_view text, std::string_view& side,
                                    request_option_values* options) {
  line_state* st = read_request(text);
  if (st == nullptr) return nullptr;
  side = st->side.view();
  if (options != nullptr) *options = st->options;
  return st;
}

const one_pass_request* read_batch_request(std::string_view json, request_option_values& options) {
  thread_local one_pass_request request;
  request.gathered = read_openai_request(json, request.side, &options);
  return request.gathered != nullptr ? &request : nullptr;
}

void write_batch_text(const one_pass_request& request, const render_options& o, std::string& out,
                      std::vector<diagnostic>& warnings) {
  // The output is about the input's size: one allocation instead of a doubling series.
  out.reserve(out.size() + request.side.size() + 256);
  text_out w{out};
  write_template(*request.gathered, request.side, o.add_generation_prompt, w, warnings);
}

void write_batch_line(const one_pass_request& request, const render_options& o, text_buffer& out,
                      std::vector<diagnostic>& warnings) {
  escaped_out w{out};
  write_template(*request.gathered, request.side, o.add_generation_prompt, w, warnings);
}

bool render_openai_line_text(std::string_view text, bool add_generation_prompt, std::string& out,
                             std::vector<diagnostic>& warnings) {
  line_state* st = read_request(text);
  if (st == nullptr) return false;
  // The output is about the input's size: one allocation instead of a doubling series.
  out.reserve(out.size() + text.size() + 256);
  text_out w{out};
  write_template(*st, st->side.view(), add_generation_prompt, w, warnings);
  return true;
}

bool render_openai_json_text(std::string_view text, bool add_generation_prompt, escaped_buffer& out,
                             std::vector<diagnostic>& warnings) {
  line_state* st = read_request(text);
  if (st == nullptr) return false;
  escaped_out w{out};
  write_template(*st, st->side.view(), add_generation_prompt, w, warnings);
  return true;
}

}  // namespace ocml::detail::chatml
