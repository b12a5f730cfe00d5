// OpenAI JSON text -> the escaped ChatML text of a batch output line, in one pass over the
// input with json_reader (the batch hot path; measured: simdjson's DOM build, the walk over
// it and unescaping then re-escaping every string were 60% of `ocml render --jsonl`).
//
// A string whose escapes are already canonical is copied as it stands: its raw text is the
// value escaped exactly as the output line needs it. Everything unusual declines, and the
// caller takes the general path; tests and the json fuzzer hold this renderer, the simdjson
// one-pass renderer (fast_render.cpp) and the library path to the same bytes.
#include <string>
#include <vector>

#include <simdjson.h>

#include "dialects/chatml/chatml.hpp"
#include "dialects/chatml/one_pass.hpp"
#include "interchange/json_reader.hpp"
#include "interchange/key_set.hpp"

namespace ocml::detail::chatml {

namespace {

// What reading a line gathers, with its arena and its side text (Python dumps of tools
// and arguments, escaped).
struct line_state : gathered {
  json_arena arena;
  escaped_buffer side;

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

bool read_function(json_reader& r, line_state& st, call_ref& call) {
  bool empty = false;
  if (!r.begin('{', empty)) return false;
  key_set seen;
  bool named = false;
  call.arguments_at = std::string_view::npos;
  if (!empty) {
    do {
      json_string k;
      std::string_view key;
      if (!r.key(k, key) || !seen.insert(key)) return false;
      if (key == "name") {
        json_string name;
        if (!r.string(name) || name.escaped) return false;  // '"', '\\', controls: general path
        call.name = name.raw;
        named = true;
      } else if (key == "arguments") {
        if (!read_arguments(r, st, call)) return false;
      } else if (!r.skip()) {
        return false;
      }
    } while (r.more('}'));
  }
  return !r.failed() && named;
}

bool read_calls(json_reader& r, line_state& st) {
  bool empty = false;
  if (!r.begin('[', empty)) return false;
  if (empty) return true;
  do {
    bool none = false;
    if (!r.begin('{', none) || none) return false;
    key_set seen;
    call_ref call;
    bool has_function = false;
    do {
      json_string k;
      std::string_view key;
      if (!r.key(k, key) || !seen.insert(key)) return false;
      if (key == "function") {
        if (!read_function(r, st, call)) return false;
        has_function = true;
      } else if (key == "id" && r.peek() == '"') {
        json_string id;
        if (!r.string(id)) return false;
        if (!id.raw.empty()) st.dropped_ids = true;
      } else if (!r.skip()) {
        return false;
      }
    } while (r.more('}'));
    if (r.failed() || !has_function) return false;
    st.calls.push_back(call);
  } while (r.more(']'));
  return !r.failed();
}

bool read_message(json_reader& r, line_state& st) {
  bool empty = false;
  if (!r.begin('{', empty)) return false;
  message_ref m;
  m.calls_begin = m.calls_end = st.calls.size();
  unsigned seen = 0;
  static constexpr std::string_view kKeys[] = {"role", "content",           "tool_calls",
                                               "name", "reasoning_content", "tool_call_id"};
  if (!empty) {
    do {
      json_string k;
      std::string_view key;
      if (!r.key(k, key)) return false;
      unsigned which = 0;
      while (which < 6 && kKeys[which] != key) ++which;
      if (which == 6 || (seen & (1u << which)) != 0) return false;
      seen |= 1u << which;
      const char next = r.peek();
      bool ok = true;
      switch (which) {
        case 0: {
          json_string role;
          ok = r.string(role) && !role.escaped;
          m.role = role.raw;
          break;
        }
        case 1:
          if (next == 'n') {
            std::string_view word;
            ok = r.literal(word) && word == "null";
          } else {
            ok = next == '"' && read_text(r, m.content);  // content parts: general path
          }
          break;
        case 2:
          if (next == 'n') {
            std::string_view word;
            ok = r.literal(word) && word == "null";
          } else {
            ok = read_calls(r, st);
            m.calls_end = st.calls.size();
          }
          break;
        case 3:
        case 4: {
          // A name counts when it is a non-empty string; reasoning when it is anything but
          // null or "".
          bool present = false;
          if (next == '"') {
            json_string s;
            ok = r.string(s);
            present = !s.raw.empty();
          } else {
            present = which == 4 && next != 'n';
            ok = r.skip();
          }
          (which == 3 ? m.has_name : m.has_reasoning) = present;
          break;
        }
        default:
          ok = r.skip();
          break;
      }
      if (!ok) return false;
    } while (r.more('}'));
    if (r.failed()) return false;
  }
  return st.accept(m);
}

bool read_messages(json_reader& r, line_state& st) {
  bool empty = false;
  if (!r.begin('[', empty)) return false;
  if (empty) return true;
  do {
    if (!read_message(r, st)) return false;
  } while (r.more(']'));
  return !r.failed();
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
  if (r.peek() == 'n') {
    std::string_view word;
    return r.literal(word) && word == "null";
  }
  bool empty = false;
  if (!r.begin('[', empty)) return false;
  st.tools_at = st.side.size();
  if (!empty) {
    do {
      st.side.raw(kNewline.escaped);
      if (!read_tool(r, st)) return false;
    } while (r.more(']'));
    if (r.failed()) return false;
  }
  st.tools_size = st.side.size() - st.tools_at;
  return true;
}

bool read_line(std::string_view text, line_state& st) {
  if (!simdjson::validate_utf8(text.data(), text.size())) return false;
  json_reader r(text, st.arena);
  if (r.peek() == '[') return read_messages(r, st) && r.at_end();
  bool empty = false;
  if (!r.begin('{', empty) || empty) return false;
  key_set seen;
  bool has_messages = false;
  do {
    json_string k;
    std::string_view key;
    if (!r.key(k, key) || !seen.insert(key)) return false;
    bool ok = true;
    if (key == "messages") {
      ok = read_messages(r, st);
      has_messages = true;
    } else if (key == "tools") {
      ok = read_tools(r, st);
    } else {
      ok = r.skip();
    }
    if (!ok) return false;
  } while (r.more('}'));
  return !r.failed() && has_messages && r.at_end();
}

// The batch line: text escaped as the inside of a JSON string.
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

}  // namespace

bool render_openai_json_text(std::string_view text, bool add_generation_prompt, escaped_buffer& out,
                             std::vector<diagnostic>& warnings) {
  thread_local line_state st;  // reused: no allocation per line once warm
  st.reset(text.size());
  if (!read_line(text, st)) return false;
  escaped_out w{out};
  write_template(st, st.side.view(), add_generation_prompt, w, warnings);
  return true;
}

}  // namespace ocml::detail::chatml
