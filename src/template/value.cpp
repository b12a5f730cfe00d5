// SPDX-License-Identifier: Apache-2.0
// Python's semantics for template values: truth, equality, order, str(), repr(), json.dumps.
#include "template/value.hpp"

#include "core/utf8.hpp"

#include <unicode/uchar.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "interchange/pyjson.hpp"
#include "ocml/text_buffer.hpp"
#include "template/bigint.hpp"
#include "template/interpreter.hpp"

namespace ocml::tmpl {

// value::copy_meta moves the flags and depth as one block laid out as value::meta.
static_assert(std::is_standard_layout_v<value>);
static_assert(offsetof(value, tuple) == offsetof(value, safe) + 1 &&
              offsetof(value, group) == offsetof(value, safe) + 2 &&
              offsetof(value, depth) == offsetof(value, safe) + 4 &&
              sizeof(value) == offsetof(value, safe) + 8);

value value::borrow(const value& owner) {
  value x = owner;
  if (owner.is_string() || owner.is_object() || owner.is_undefined()) x.v = owner.v.uncounted();
  return x;
}

std::int64_t value::as_int() const {
  if (is_bool()) return v.b() ? 1 : 0;
  if (is_int()) return v.i();
  // Where Python wants an index (split's maxsplit, a width…) and gets something else.
  type_error("'" + std::string(type_name(*this)) + "' object cannot be interpreted as an integer");
}

double value::as_double() const {
  if (is_float()) return v.d();
  if (!is_int() && !is_bool()) {
    type_error("must be real number, not " + std::string(type_name(*this)));
  }
  return static_cast<double>(as_int());
}

const value* dict::find(const value& key) const {
  if (key.is_string()) return find(std::string_view(key.str()));
  for (const auto& [k, val] : entries) {
    if (equal(k, key)) return &val;
  }
  return nullptr;
}

std::size_t dict::slot(std::string_view key) const {
  if (!index_.empty()) {
    const auto it = index_.find(key);
    return it == index_.end() ? kNone : it->second;
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].first.is_string()) continue;
    const std::string& k = entries[i].first.str();
    if (k.size() == key.size() && same_bytes(k.data(), key.data(), key.size())) return i;
  }
  return kNone;
}

const value* dict::find(std::string_view key) const {
  const std::size_t i = slot(key);
  return i == kNone ? nullptr : &entries[i].second;
}

void dict::set(value key, value v) {
  if (key.is_string()) {
    if (const std::size_t i = slot(key.str()); i != kNone) {
      entries[i].second = std::move(v);
      return;
    }
    entries.emplace_back(std::move(key), std::move(v));
    if (!index_.empty()) {
      index_.emplace(entries.back().first.str(), entries.size() - 1);
    } else if (entries.size() >= kIndexFrom) {
      for (std::size_t i = 0; i < entries.size(); ++i) {
        if (entries[i].first.is_string()) index_.emplace(entries[i].first.str(), i);
      }
    }
    return;
  }
  for (auto& [k, val] : entries) {
    if (equal(k, key)) {
      val = std::move(v);
      return;
    }
  }
  entries.emplace_back(std::move(key), std::move(v));
}

void fail(error_code code, std::string message) {
  throw template_error{code, std::move(message)};
}

void type_error(std::string message) {
  fail(error_code::template_type, std::move(message));
}

const value* call_args::kw(std::string_view name) const {
  for (const auto& [k, v] : keyword) {
    if (k == name) return &v;
  }
  return nullptr;
}

const value* call_args::arg(std::size_t i, std::string_view name) const {
  if (i < positional.size()) return &positional[i];
  return kw(name);
}

value object::attr(std::string_view name) const {
  return value::undefined(std::string(name));
}

void object::set_attr(std::string_view name, const value& /*v*/) {
  fail(error_code::template_security,
       "cannot assign attribute '" + std::string(name) + "' on a " + std::string(type_name()));
}

value object::call(interpreter& /*in*/, call_args& /*args*/) {
  type_error("'" + std::string(type_name()) + "' object is not callable");
}

value namespace_object::attr(std::string_view name) const {
  if (const value* v = attrs.find(name)) return *v;
  return value::undefined(std::string(name));
}

void namespace_object::set_attr(std::string_view name, const value& v) {
  put(value(name), v);
}

void namespace_object::put(value key, const value& v) {
  check_depth(v.depth + 1);
  depth = std::max(depth, v.depth + 1);
  attrs.set(std::move(key), v);
}

void check_depth(std::uint32_t depth) {
  if (depth > kMaxValueDepth) {
    fail(error_code::limit_exceeded, "a value nested deeper than " +
                                         std::to_string(kMaxValueDepth) +
                                         " levels (lists, dicts, namespaces, generators)");
  }
}

void value::measure() {
  std::uint32_t d = 0;
  switch (v.index()) {
    case 6:
      for (const auto& x : items()) d = std::max(d, x.depth);
      break;
    case 7:
      for (const auto& [k, x] : map().entries) d = std::max({d, k.depth, x.depth});
      break;
    case 8:  // an object counts its own level (namespace_object::set_attr, make_generator)
      if (obj() != nullptr) depth = obj()->depth;
      return;
    default:
      return;
  }
  check_depth(d + 1);
  depth = d + 1;
}

std::string_view type_name(const value& x) {
  switch (x.v.index()) {
    case 0:
      return "Undefined";
    case 1:
      return "NoneType";
    case 2:
      return "bool";
    case 3:
      return "int";
    case 4:
      return "float";
    case 5:
      return "str";
    case 6:
      return "list";
    case 7:
      return "dict";
    default:
      return x.obj()->type_name();
  }
}

bool truthy(const value& x) {
  switch (x.v.index()) {
    case 0:
    case 1:
      return false;
    case 2:
      return x.v.b();
    case 3:
      return x.v.i() != 0;
    case 4:
      return x.v.d() != 0.0;
    case 5:
      return !x.str().empty();
    case 6:
      return !x.items().empty();
    case 7:
      return !x.map().entries.empty();
    default:
      return true;
  }
}

namespace {

// Python's comparison of an int beyond 64 bits with another number: -1, 0, 1, or 2 when
// one of them is NaN (unordered).
int compare_big(const value& x, const value& y) {
  if (!x.is_float() && !y.is_float()) return int_compare(x, y);
  const bool flip = x.is_float();
  const value& i = flip ? y : x;
  const double d = flip ? x.as_double() : y.as_double();
  if (std::isnan(d)) return 2;
  const int c = int_compare_float(i, d);
  return flip ? -c : c;
}

}  // namespace

bool equal(const value& x, const value& y) {
  if (x.is_string() && y.is_string()) {  // the usual case (`message.role == 'user'`) first
    const std::string& a = x.str();
    const std::string& b = y.str();
    return a.size() == b.size() && same_bytes(a.data(), b.data(), a.size());
  }
  if ((is_bigint(x) || is_bigint(y)) && (x.is_number() || is_bigint(x)) &&
      (y.is_number() || is_bigint(y))) {
    return compare_big(x, y) == 0;
  }
  if (x.is_number() && y.is_number()) {
    if (x.is_float() || y.is_float()) return x.as_double() == y.as_double();
    return x.as_int() == y.as_int();
  }
  if (x.v.index() != y.v.index()) return false;
  switch (x.v.index()) {
    case 0:
    case 1:
      return true;
    case 5:
      return x.str() == y.str();
    case 6: {
      // Identity first, as Python's list and dict comparison: the same list is equal to
      // itself (NaN items included) without a walk, so a list that shares itself at every
      // level compares in time linear in its text, not exponential.
      if (x.v.same(y.v) && x.tuple == y.tuple) return true;
      const auto& a = x.items();
      const auto& b = y.items();
      if (a.size() != b.size() || x.tuple != y.tuple) return false;  // (1,) != [1]
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!equal(a[i], b[i])) return false;
      }
      return true;
    }
    case 7: {
      if (x.v.same(y.v)) return true;
      const auto& a = x.map().entries;
      const auto& b = y.map();
      if (a.size() != b.entries.size()) return false;
      for (const auto& [k, v] : a) {
        const value* o = b.find(k);
        if (o == nullptr || !equal(v, *o)) return false;
      }
      return true;
    }
    default:
      return x.obj() == y.obj();
  }
}

bool less(const value& x, const value& y) {
  // Undefined's __lt__ raises UndefinedError (sorting or grouping by a missing attribute).
  if (x.is_undefined()) check_defined(x);
  if (y.is_undefined()) check_defined(y);
  if ((is_bigint(x) || is_bigint(y)) && (x.is_number() || is_bigint(x)) &&
      (y.is_number() || is_bigint(y))) {
    return compare_big(x, y) == -1;
  }
  if (x.is_number() && y.is_number()) {
    if (x.is_float() || y.is_float()) return x.as_double() < y.as_double();
    return x.as_int() < y.as_int();
  }
  if (x.is_string() && y.is_string()) return x.str() < y.str();  // UTF-8 order is code point order
  if (x.is_list() && y.is_list()) {
    const auto& a = x.items();
    const auto& b = y.items();
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
      if (!equal(a[i], b[i])) return less(a[i], b[i]);
    }
    return a.size() < b.size();
  }
  type_error("'<' not supported between instances of '" + std::string(type_name(x)) + "' and '" +
             std::string(type_name(y)) + "'");
}

namespace {

std::string float_str(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  return detail::python_float_repr(d);
}

// Decodes the code point at s[i] (valid UTF-8 assumed; a bad byte is taken as itself).
constexpr auto next_cp = detail::decode_utf8;

// Python's str.isprintable for one character.
bool printable(char32_t c) {
  if (c == ' ') return true;
  switch (u_charType(static_cast<UChar32>(c))) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:
    case U_SURROGATE:
    case U_PRIVATE_USE_CHAR:
    case U_UNASSIGNED:
    case U_LINE_SEPARATOR:
    case U_PARAGRAPH_SEPARATOR:
    case U_SPACE_SEPARATOR:
      return false;
    default:
      return true;
  }
}

void repr_string(std::string_view s, std::string& out) {
  const bool dq = s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos;
  const char q = dq ? '"' : '\'';
  out.push_back(q);
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t at = i;
    const char32_t c = next_cp(s, i);
    char buf[16];
    if (c == static_cast<char32_t>(q) || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7F) {
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
      out += buf;
    } else if (c < 0x7F || printable(c)) {
      out.append(s.substr(at, i - at));
    } else {
      std::snprintf(buf, sizeof buf,
                    c <= 0xFF     ? "\\x%02x"
                    : c <= 0xFFFF ? "\\u%04x"
                                  : "\\U%08x",
                    static_cast<unsigned>(c));
      out += buf;
    }
  }
  out.push_back(q);
}

}  // namespace

void append_int(std::int64_t i, std::string& out) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, i).ptr);
}

void append_repr(const value& x, std::string& out) {
  switch (x.v.index()) {
    case 0:
      out += "Undefined";  // repr(Undefined), as a list prints an undefined item
      return;
    case 1:
      out += "None";
      return;
    case 2:
      out += x.v.b() ? "True" : "False";
      return;
    case 3:
      append_int(x.v.i(), out);
      return;
    case 4:
      out += float_str(x.v.d());
      return;
    case 5:
      repr_string(x.str(), out);
      return;
    case 6: {
      out.push_back(x.tuple ? '(' : '[');
      bool first = true;
      for (const auto& e : x.items()) {
        if (!first) out += ", ";
        first = false;
        append_repr(e, out);
      }
      if (x.tuple && x.items().size() == 1) out.push_back(',');
      out.push_back(x.tuple ? ')' : ']');
      return;
    }
    case 7: {
      out.push_back('{');
      bool first = true;
      for (const auto& [k, v] : x.map().entries) {
        if (!first) out += ", ";
        first = false;
        append_repr(k, out);
        out += ": ";
        append_repr(v, out);
      }
      out.push_back('}');
      return;
    }
    default:
      if (is_bigint(x)) {
        out += int_text(x);
        return;
      }
      if (const generator_object* g = as_generator(x)) {
        char at[32];
        std::snprintf(at, sizeof at, "%p", static_cast<const void*>(g));
        out += "<generator object " + g->name + " at " + at + ">";
        return;
      }
      out += "<";
      out += x.obj()->type_name();
      out += " object>";
  }
}

void append_str(const value& x, std::string& out) {
  if (x.is_string()) {
    out += x.str();
  } else if (!x.is_undefined()) {
    append_repr(x, out);
  }
}

std::string to_str(const value& x) {
  std::string s;
  append_str(x, s);
  return s;
}

void dumps_newline(const dumps_options& o, std::size_t level, text_buffer& out) {
  out.raw('\n');
  for (std::size_t i = 0; i < level; ++i) {
    if (o.has_indent_text) {
      out.raw(o.indent_text);
    } else {
      for (std::int64_t k = 0; k < o.indent; ++k) out.raw(' ');
    }
  }
}

void dumps_int(std::int64_t i, text_buffer& out) {
  char buf[24];
  const char* end = std::to_chars(buf, buf + sizeof buf, i).ptr;
  out.raw(std::string_view(buf, static_cast<std::size_t>(end - buf)));
}

// A JSON string as json.dumps writes it; with ensure_ascii every character outside
// ' '..'~' as \uXXXX (a surrogate pair above U+FFFF).
void dumps_string(std::string_view s, bool ensure_ascii, text_buffer& out) {
  out.raw('"');
  if (!ensure_ascii) {  // json.dumps(ensure_ascii=False) escapes what a compact writer does
    out.escape(s);
    out.raw('"');
    return;
  }
  char buf[16];
  for (std::size_t i = 0; i < s.size();) {
    const char32_t c = next_cp(s, i);
    switch (c) {
      case '"':
        out.raw("\\\"");
        continue;
      case '\\':
        out.raw("\\\\");
        continue;
      case '\n':
        out.raw("\\n");
        continue;
      case '\r':
        out.raw("\\r");
        continue;
      case '\t':
        out.raw("\\t");
        continue;
      case '\b':
        out.raw("\\b");
        continue;
      case '\f':
        out.raw("\\f");
        continue;
      default:
        break;
    }
    if (c >= 0x20 && c <= 0x7E) {
      out.raw(static_cast<char>(c));
    } else if (c < 0x10000) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out.raw(std::string_view(buf));
    } else {
      const char32_t v = c - 0x10000;
      std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", static_cast<unsigned>(0xD800 + (v >> 10)),
                    static_cast<unsigned>(0xDC00 + (v & 0x3FF)));
      out.raw(std::string_view(buf));
    }
  }
  out.raw('"');
}

namespace {

void dumps_at(const value& x, const dumps_options& o, std::size_t level, text_buffer& out) {
  const bool pretty = o.indent >= 0 || o.has_indent_text;
  switch (x.v.index()) {
    case 1:
      out.raw("null");
      return;
    case 2:
      out.raw(x.v.b() ? std::string_view("true") : std::string_view("false"));
      return;
    case 3:
      dumps_int(x.v.i(), out);
      return;
    case 4:
      out.raw(detail::python_float_repr(x.v.d()));
      return;
    case 5:
      dumps_string(x.str(), o.ensure_ascii, out);
      return;
    case 6: {
      const auto& l = x.items();
      if (l.empty()) {
        out.raw("[]");
        return;
      }
      out.raw('[');
      for (std::size_t i = 0; i < l.size(); ++i) {
        if (i > 0) out.raw(o.item_sep);
        if (pretty) dumps_newline(o, level + 1, out);
        dumps_at(l[i], o, level + 1, out);
      }
      if (pretty) dumps_newline(o, level, out);
      out.raw(']');
      return;
    }
    case 7: {
      // A request's object not built yet is written from its JSON where it can be.
      if (x.v.from_request() && dumps_json_object(x, o, level, out)) return;
      const auto& entries = x.map().entries;
      if (entries.empty()) {
        out.raw("{}");
        return;
      }
      // The entries in order, or sorted by key (pointers to them: only when sorting).
      std::vector<const std::pair<value, value>*> sorted;
      if (o.sort_keys) {
        for (const auto& e : entries) sorted.push_back(&e);
        std::stable_sort(sorted.begin(), sorted.end(),
                         [](const auto* a, const auto* b) { return less(a->first, b->first); });
      }
      out.raw('{');
      for (std::size_t i = 0; i < entries.size(); ++i) {
        const auto& e = o.sort_keys ? *sorted[i] : entries[i];
        if (i > 0) out.raw(o.item_sep);
        if (pretty) dumps_newline(o, level + 1, out);
        const value& k = e.first;
        if (k.is_string()) {
          dumps_string(k.str(), o.ensure_ascii, out);
        } else if (k.is_bool() || k.is_none()) {
          out.raw('"');
          dumps_at(k, o, level, out);
          out.raw('"');
        } else if (k.is_number() || is_bigint(k)) {
          out.raw('"');
          out.raw(to_str(k));
          out.raw('"');
        } else {
          type_error("keys must be str, int, float, bool or None, not " +
                     std::string(type_name(k)));
        }
        out.raw(o.key_sep);
        dumps_at(e.second, o, level + 1, out);
      }
      if (pretty) dumps_newline(o, level, out);
      out.raw('}');
      return;
    }
    default:
      if (is_bigint(x)) {
        out.raw(int_text(x));
        return;
      }
      type_error("Object of type " + std::string(type_name(x)) + " is not JSON serializable");
  }
}

}  // namespace

void dumps(const value& x, const dumps_options& o, std::string& out) {
  // Written through one buffer per thread (no std::string call per piece), then appended
  // once. Nothing dumps calls renders or dumps again, so the buffer is never in use twice.
  thread_local text_buffer buf;
  buf.clear();
  dumps_at(x, o, 0, buf);
  out.append(buf.view());
  constexpr std::size_t kKeep = std::size_t{1} << 20;
  if (buf.size() > kKeep) buf = text_buffer();  // a huge value's buffer is not kept
}

value from_json(const json& j) {
  switch (j.type()) {
    case json::value_t::null:
      return value(none_t{});
    case json::value_t::boolean:
      return value(j.get<bool>());
    case json::value_t::number_integer:
      return value(j.get<std::int64_t>());
    case json::value_t::number_unsigned: {
      const auto u = j.get<std::uint64_t>();
      if (u <= static_cast<std::uint64_t>(INT64_MAX)) return value(static_cast<std::int64_t>(u));
      return value(static_cast<double>(u));
    }
    case json::value_t::number_float:
      return value(j.get<double>());
    case json::value_t::string:
      return value(j.get_ref<const std::string&>());
    case json::value_t::array: {
      list l;
      l.reserve(j.size());
      for (const auto& e : j) l.push_back(from_json(e));
      return value(std::move(l));
    }
    case json::value_t::object: {
      auto d = make_rc<dict>();
      d->entries.reserve(j.size());
      for (const auto& [k, v] : j.items()) d->set(value(k), from_json(v));
      return value(dict_ptr(std::move(d)));
    }
    default:
      return value(none_t{});
  }
}

std::optional<value> generator_object::next() {
  if (!pull) return std::nullopt;
  std::optional<value> v = pull();
  if (!v) pull = nullptr;  // finished: its state (and what it holds) is let go
  return v;
}

value make_generator(std::string name, std::function<std::optional<value>()> pull,
                     const value& source) {
  check_depth(source.depth + 1);
  auto g = make_rc<generator_object>();
  g->name = std::move(name);
  g->pull = std::move(pull);
  g->depth = source.depth + 1;
  return value(object_ptr(std::move(g)));
}

generator_object* as_generator(const value& v) {
  return v.is_object() ? dynamic_cast<generator_object*>(v.obj()) : nullptr;
}

std::int64_t float_to_int(double d) {
  if (std::isnan(d)) fail(error_code::template_type, "cannot convert float NaN to integer");
  if (std::isinf(d)) fail(error_code::template_type, "cannot convert float infinity to integer");
  if (d >= 9.2233720368547758e18) return INT64_MAX;
  if (d <= -9.2233720368547758e18) return INT64_MIN;
  return static_cast<std::int64_t>(d);
}

value make_tuple(list items) {
  value v(std::move(items));
  v.tuple = true;
  return v;
}

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&#34;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::size_t code_points(std::string_view s) {
  std::size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::size_t code_point_offset(std::string_view s, std::size_t k) {
  std::size_t i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (k == 0) return i;
      --k;
    }
  }
  return s.size();
}

std::vector<std::string_view> code_point_pieces(std::string_view s) {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t at = i;
    (void)next_cp(s, i);
    out.push_back(s.substr(at, i - at));
  }
  return out;
}

}  // namespace ocml::tmpl
