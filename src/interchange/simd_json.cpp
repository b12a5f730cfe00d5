#include "interchange/simd_json.hpp"

#include <simdjson.h>

#include <cstdio>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
      for (auto field : simdjson::dom::object(e))
        o[std::string(field.key)] = to_nlohmann(field.value);
      return o;
    }
    case simdjson::dom::element_type::ARRAY: {
      json a = json::array();
      for (auto v : simdjson::dom::array(e)) a.push_back(to_nlohmann(v));
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

void py_dumps(simdjson::dom::element e, std::string& out) {
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT: {
      out.push_back('{');
      bool first = true;
      for (auto field : simdjson::dom::object(e)) {
        if (!first) out += ", ";
        first = false;
        python_json_string(field.key, out);
        out += ": ";
        py_dumps(field.value, out);
      }
      out.push_back('}');
      break;
    }
    case simdjson::dom::element_type::ARRAY: {
      out.push_back('[');
      bool first = true;
      for (auto v : simdjson::dom::array(e)) {
        if (!first) out += ", ";
        first = false;
        py_dumps(v, out);
      }
      out.push_back(']');
      break;
    }
    case simdjson::dom::element_type::STRING:
      python_json_string(std::string_view(e), out);
      break;
    case simdjson::dom::element_type::INT64:
      out += std::to_string(std::int64_t(e));
      break;
    case simdjson::dom::element_type::UINT64:
      out += std::to_string(std::uint64_t(e));
      break;
    case simdjson::dom::element_type::DOUBLE:
      out += python_float_repr(double(e));
      break;
    case simdjson::dom::element_type::BOOL:
      out += bool(e) ? "true" : "false";
      break;
    default:
      out += "null";
      break;
  }
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

std::string str(simdjson::dom::element obj, const char* key) {
  std::string_view v;
  if (obj[key].get(v) == simdjson::SUCCESS) return std::string(v);
  return {};
}

}  // namespace

simdjson::dom::parser& document_parser() {
  return thread_parser();
}

result<conversation> read_openai_text(std::string_view text) {
  const auto fail = [] {
    return make_error(error_code::invalid_json, "not handled by the fast path");
  };
  simdjson::dom::element doc;
  if (thread_parser().parse(text.data(), text.size(), true).get(doc) != simdjson::SUCCESS)
    return fail();
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
      if (t["function"].get(inner) == simdjson::SUCCESS) f = inner;
      if (!unique_keys(t) || !unique_keys(f)) return fail();
      tool x;
      x.name = str(f, "name");
      x.description = str(f, "description");
      simdjson::dom::element params;
      if (f["parameters"].get(params) == simdjson::SUCCESS) x.parameters = to_nlohmann(params);
      x.source = to_nlohmann(t);
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
    const auto r = parse_role(str(m, "role"));
    if (!r) return fail();
    x.role = *r;
    simdjson::dom::element content;
    if (m["content"].get(content) == simdjson::SUCCESS && !content_of(content, x.content))
      return fail();
    x.name = str(m, "name");
    if (x.role == role::tool) x.call_id = str(m, "tool_call_id");
    if (x.role == role::assistant) {
      x.reasoning = str(m, "reasoning_content");
      simdjson::dom::array calls;
      if (m["tool_calls"].get(calls) == simdjson::SUCCESS) {
        for (auto tc : calls) {
          simdjson::dom::element f;
          if (tc["function"].get(f) != simdjson::SUCCESS) return fail();
          if (!unique_keys(tc) || !unique_keys(f)) return fail();
          tool_call y;
          y.id = str(tc, "id");
          y.name = str(f, "name");
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

bool python_dumps_text(std::string_view text, std::string& out) {
  simdjson::dom::element doc;
  if (nested_parser().parse(text.data(), text.size(), true).get(doc) != simdjson::SUCCESS)
    return false;
  py_dumps(doc, out);
  return true;
}

void append_json_string(std::string& out, std::string_view s, bool known_valid_utf8) {
  if (!known_valid_utf8 && !simdjson::validate_utf8(s.data(), s.size())) {
    out += dump_json(json(std::string(s)));
    return;
  }
  out.reserve(out.size() + s.size() + s.size() / 16 + 2);
  out.push_back('"');
  const char* p = s.data();
  const char* end = s.data() + s.size();
  const char* done = p;
  while (p < end) {
#if defined(__SSE2__)
    // 16 bytes a step: stop at a control byte, '"' or '\\'.
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i slash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    while (end - p >= 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      // bytes < 0x20 (unsigned): min(v, 0x1f) == v
      const __m128i ctrl = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
      const __m128i hit =
          _mm_or_si128(ctrl, _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash)));
      const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(hit));
      if (mask != 0) {
        p += __builtin_ctz(mask);
        break;
      }
      p += 16;
    }
    (void)space;
#endif
    while (p < end) {
      const auto c = static_cast<unsigned char>(*p);
      if (c < 0x20 || c == '"' || c == '\\') break;
      ++p;
    }
    if (p == end) break;
    out.append(done, p);
    const auto c = static_cast<unsigned char>(*p);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default: {
        char b[8];
        std::snprintf(b, sizeof b, "\\u%04x", c);
        out += b;
      }
    }
    done = ++p;
  }
  out.append(done, end);
  out.push_back('"');
}

bool unique_keys(simdjson::dom::element e) {
  if (!e.is_object()) return true;
  std::vector<std::string_view> keys;
  for (auto field : simdjson::dom::object(e)) {
    for (auto k : keys) {
      if (k == field.key) return false;
    }
    keys.push_back(field.key);
  }
  return true;
}

}  // namespace ocml::detail
