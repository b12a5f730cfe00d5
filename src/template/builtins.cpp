// SPDX-License-Identifier: Apache-2.0
// Filters, tests, globals and methods, each with the behaviour of Jinja2 3.1 and Python 3.
#include "template/builtins.hpp"

#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <random>

#include "core/utf8.hpp"
#include "template/bigint.hpp"
#include "template/format_spec.hpp"
#include "template/interpreter.hpp"
#include "template/text_filters.hpp"
#include "template/unicode_case.hpp"

namespace ocml::tmpl {

namespace {

// ---- helpers ------------------------------------------------------------------------------

// The items of a value pulled one at a time: a generator's as it makes them, anything
// else's from a snapshot taken at the first pull (where Jinja2's generator body would
// iterate it, and raise when it cannot).
struct source {
  value v;
  list items;
  std::size_t i = 0;
  bool started = false;
  std::optional<value> next() {
    if (generator_object* g = as_generator(v)) return g->next();
    if (!started) {
      items = iterate(v);
      started = true;
    }
    if (i >= items.size()) return std::nullopt;
    return items[i++];
  }
};

value fn(std::string name, std::function<value(interpreter&, call_args&)> f) {
  return value(object_ptr(std::make_shared<function_object>(std::move(name), std::move(f))));
}

const value& need(const call_args& a, std::size_t i, std::string_view name, std::string_view who) {
  const value* v = a.arg(i, name);
  if (v == nullptr) {
    type_error(std::string(who) + "() missing required argument: '" + std::string(name) + "'");
  }
  return *v;
}

value opt(const call_args& a, std::size_t i, std::string_view name, const value& def) {
  const value* v = a.arg(i, name);
  return v != nullptr ? *v : def;
}

const std::string& need_str(const value& v, std::string_view what) {
  if (!v.is_string()) {
    type_error(std::string(what) + " must be str, not " + std::string(type_name(v)));
  }
  return v.str();
}

using detail::decode_utf8;
using detail::py_isspace;
constexpr auto decode = decode_utf8;
constexpr auto py_space = py_isspace;

// strip/lstrip/rstrip: `chars` none means white space. Only the stripped ends are decoded.
std::string py_strip(std::string_view s, const value* chars, bool left, bool right) {
  if (chars == nullptr || chars->is_none()) return std::string(detail::py_strip_ws(s, left, right));
  std::vector<char32_t> set;
  const std::string& c = need_str(*chars, "strip arg");
  for (std::size_t i = 0; i < c.size();) set.push_back(decode(c, i));
  const auto strip_it = [&](char32_t c) {
    return std::find(set.begin(), set.end(), c) != set.end();
  };
  std::size_t b = 0;
  std::size_t e = s.size();
  while (left && b < e) {
    std::size_t i = b;
    if (!strip_it(decode(s, i))) break;
    b = i;
  }
  while (right && e > b) {
    std::size_t k = e - 1;
    while (k > b && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
    std::size_t i = k;
    if (!strip_it(decode(s, i))) break;
    e = k;
  }
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> py_split(const std::string& s, const value* sep, std::int64_t maxsplit,
                                  bool from_right) {
  std::vector<std::string> out;
  if (sep == nullptr || sep->is_none()) {
    // Runs of white space; no empty strings.
    std::vector<std::pair<std::size_t, std::size_t>> words;
    std::size_t i = 0;
    std::size_t start = std::string::npos;
    while (i < s.size()) {
      const std::size_t at = i;
      const char32_t c = decode(s, i);
      if (py_space(c)) {
        if (start != std::string::npos) words.emplace_back(start, at);
        start = std::string::npos;
      } else if (start == std::string::npos) {
        start = at;
      }
    }
    if (start != std::string::npos) words.emplace_back(start, s.size());
    if (maxsplit < 0 || static_cast<std::size_t>(maxsplit) >= words.size()) {
      for (const auto& [b, e] : words) out.push_back(s.substr(b, e - b));
      return out;
    }
    const auto m = static_cast<std::size_t>(maxsplit);
    if (!from_right) {
      for (std::size_t k = 0; k < m; ++k)
        out.push_back(s.substr(words[k].first, words[k].second - words[k].first));
      out.push_back(py_strip(std::string_view(s).substr(words[m].first), nullptr, false, true));
    } else {
      const std::size_t keep = words.size() - m;
      out.push_back(
          py_strip(std::string_view(s).substr(0, words[keep - 1].second), nullptr, true, false));
      for (std::size_t k = keep; k < words.size(); ++k)
        out.push_back(s.substr(words[k].first, words[k].second - words[k].first));
    }
    return out;
  }
  const std::string& d = need_str(*sep, "separator");
  if (d.empty()) fail(error_code::template_type, "empty separator");
  if (!from_right) {
    std::size_t b = 0;
    for (std::int64_t n = 0; maxsplit < 0 || n < maxsplit; ++n) {
      const std::size_t at = s.find(d, b);
      if (at == std::string::npos) break;
      out.push_back(s.substr(b, at - b));
      b = at + d.size();
    }
    out.push_back(s.substr(b));
    return out;
  }
  std::size_t e = s.size();
  std::vector<std::string> rev;
  for (std::int64_t n = 0; maxsplit < 0 || n < maxsplit; ++n) {
    if (e < d.size()) break;
    const std::size_t at = s.rfind(d, e - d.size());
    if (at == std::string::npos) break;
    rev.push_back(s.substr(at + d.size(), e - at - d.size()));
    e = at;
  }
  rev.push_back(s.substr(0, e));
  return {rev.rbegin(), rev.rend()};
}

value str_list(const std::vector<std::string>& v) {
  list l;
  l.reserve(v.size());
  for (const auto& s : v) l.emplace_back(s);
  return value(std::move(l));
}

bool affix(const std::string& s, const value& what, bool prefix) {
  const auto one = [&](const value& w) {
    const std::string& p = need_str(w, prefix ? "startswith arg" : "endswith arg");
    return prefix ? s.compare(0, p.size(), p) == 0 && s.size() >= p.size()
                  : s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
  };
  if (what.is_list()) {
    return std::any_of(what.items().begin(), what.items().end(), one);
  }
  return one(what);
}

std::string py_replace(const std::string& s, const std::string& old, const std::string& rep,
                       std::int64_t count) {
  std::string out;
  if (rep.size() > old.size()) {
    // Bounded before it is built: each replacement adds rep - old bytes (an empty `old`
    // matches at every character and both ends).
    std::size_t n = 0;
    if (old.empty()) {
      n = code_points(s) + 1;
    } else {
      for (std::size_t at = s.find(old); at != std::string::npos; at = s.find(old, at + old.size()))
        ++n;
    }
    if (count >= 0) n = std::min(n, static_cast<std::size_t>(count));
    check_size_product(n, rep.size() - old.size());
    check_size_sum(s.size(), n * (rep.size() - old.size()));
  }
  if (old.empty()) {
    std::int64_t n = 0;
    const auto cps = code_point_pieces(s);
    for (std::size_t k = 0; k <= cps.size(); ++k) {
      if (count < 0 || n < count) {
        out += rep;
        ++n;
      }
      if (k < cps.size()) out += cps[k];
    }
    return out;
  }
  std::size_t b = 0;
  for (std::int64_t n = 0; count < 0 || n < count; ++n) {
    const std::size_t at = s.find(old, b);
    if (at == std::string::npos) break;
    out.append(s, b, at - b);
    out += rep;
    b = at + old.size();
  }
  out.append(s, b, std::string::npos);
  return out;
}

std::int64_t cp_index(const std::string& s, std::size_t byte) {
  return static_cast<std::int64_t>(code_points(std::string_view(s).substr(0, byte)));
}

// str.format: "{}", "{0}", "{name}", "{{", "}}" (format specs and conversions left out).
// str.format as Jinja2's sandbox runs it: "{name!conv:spec}" fields, where the name is an
// index, a keyword or empty (automatic), followed by .attr (an attribute, else an item, as
// the sandbox's getattr) and [key] parts, and the spec may hold fields of its own.
class py_formatter {
 public:
  explicit py_formatter(const call_args& a) : a_(a) {}

  std::string run(std::string_view f, int depth) {
    if (depth > 2) fail(error_code::template_type, "Max string recursion exceeded");
    std::string out;
    for (std::size_t i = 0; i < f.size(); ++i) {
      const char c = f[i];
      if ((c == '{' || c == '}') && i + 1 < f.size() && f[i + 1] == c) {
        out.push_back(c);
        ++i;
      } else if (c == '}') {
        fail(error_code::template_type, "Single '}' encountered in format string");
      } else if (c == '{') {
        const std::size_t e = field_end(f, i);
        out += field(f.substr(i + 1, e - i - 1), depth);
        check_size(out.size());
        i = e;
      } else {
        out.push_back(c);
      }
    }
    return out;
  }

 private:
  // The '}' that closes the field opened at `i` (fields nest inside a spec).
  static std::size_t field_end(std::string_view f, std::size_t i) {
    std::size_t depth = 0;
    bool in_key = false;
    for (std::size_t j = i; j < f.size(); ++j) {
      if (in_key) {
        in_key = f[j] != ']';
      } else if (f[j] == '[' && depth == 1) {
        in_key = true;
      } else if (f[j] == '{') {
        ++depth;
      } else if (f[j] == '}' && --depth == 0) {
        return j;
      }
    }
    fail(error_code::template_type, "expected '}' before end of string");
  }

  std::string field(std::string_view body, int depth) {
    // The name runs to '!' or ':' outside brackets.
    std::size_t n = 0;
    for (bool in_key = false; n < body.size(); ++n) {
      if (in_key) {
        in_key = body[n] != ']';
      } else if (body[n] == '[') {
        in_key = true;
      } else if (body[n] == '!' || body[n] == ':') {
        break;
      }
    }
    const std::string_view name = body.substr(0, n);
    char conversion = 0;
    std::string_view spec;
    if (n < body.size() && body[n] == '!') {
      if (n + 1 >= body.size()) {
        fail(error_code::template_type, "end of string while looking for conversion specifier");
      }
      if (n + 2 < body.size() && body[n + 2] != ':') {
        fail(error_code::template_type, "expected ':' after conversion specifier");
      }
      conversion = body[n + 1];
      n += 2;
    }
    if (n < body.size() && body[n] == ':') spec = body.substr(n + 1);
    value v = lookup(name);
    if (conversion == 'r' || conversion == 'a') {
      std::string r;
      append_repr(v, r);
      v = value(std::move(r));
    } else if (conversion == 's') {
      v = value(to_str(v));
    } else if (conversion != 0) {
      fail(error_code::template_type, std::string("Unknown conversion specifier ") + conversion);
    }
    const std::string s =
        spec.find('{') == std::string_view::npos ? std::string(spec) : run(spec, depth + 1);
    return format_value(v, s);
  }

  value lookup(std::string_view name) {
    std::size_t i = 0;
    while (i < name.size() && name[i] != '.' && name[i] != '[') ++i;
    const std::string first(name.substr(0, i));
    const value* v = nullptr;
    if (first.empty()) {
      if (manual_) numbering_error(true);
      automatic_ = true;
      v = next_ < a_.positional.size() ? &a_.positional[next_] : nullptr;
      if (v == nullptr) index_error(std::to_string(next_));
      ++next_;
    } else if (std::all_of(first.begin(), first.end(),
                           [](char c) { return c >= '0' && c <= '9'; })) {
      if (automatic_) numbering_error(false);
      manual_ = true;
      const std::size_t k = first.size() > 18 ? SIZE_MAX : std::stoull(first);
      v = k < a_.positional.size() ? &a_.positional[k] : nullptr;
      if (v == nullptr) index_error(first);
    } else {
      v = a_.kw(first);
      if (v == nullptr) fail(error_code::template_type, "KeyError: '" + first + "'");
    }
    value cur = *v;
    while (i < name.size()) {
      if (name[i] == '.') {
        std::size_t e = i + 1;
        while (e < name.size() && name[e] != '.' && name[e] != '[') ++e;
        if (e == i + 1) fail(error_code::template_type, "Empty attribute in format string");
        cur = get_attr(cur, name.substr(i + 1, e - i - 1));
        i = e;
      } else if (name[i] == '[') {
        const std::size_t e = name.find(']', i);
        if (e == std::string_view::npos)
          fail(error_code::template_type, "Missing ']' in format string");
        const std::string_view key = name.substr(i + 1, e - i - 1);
        const bool digits =
            !key.empty() && key.size() < 19 &&
            std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
        cur = get_item(cur, digits ? value(static_cast<std::int64_t>(std::stoll(std::string(key))))
                                   : value(std::string(key)));
        i = e + 1;
      } else {
        fail(error_code::template_type, "Only '.' or '[' may follow ']' in format field specifier");
      }
    }
    return cur;
  }

  [[noreturn]] static void numbering_error(bool to_automatic) {
    fail(error_code::template_type,
         to_automatic
             ? "cannot switch from manual field specification to automatic field numbering"
             : "cannot switch from automatic field numbering to manual field specification");
  }
  [[noreturn]] static void index_error(const std::string& k) {
    fail(error_code::template_type,
         "Replacement index " + k + " out of range for positional args tuple");
  }

  const call_args& a_;
  std::size_t next_ = 0;
  bool automatic_ = false;
  bool manual_ = false;
};

std::string py_format(const std::string& f, const call_args& a) {
  return py_formatter(a).run(f, 0);
}

bool all_of_cps(const std::string& s, bool (*pred)(char32_t)) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size();) {
    if (!pred(decode(s, i))) return false;
  }
  return true;
}

value unsafe_method(std::string_view type, std::string_view name) {
  const std::string msg = "access to attribute '" + std::string(name) + "' of '" +
                          std::string(type) + "' object is unsafe.";
  return fn(std::string(name),
            [msg](interpreter&, call_args&) -> value { fail(error_code::template_security, msg); });
}

value string_method(const value& self, std::string_view name) {
  const std::string& s = self.str();
  const std::string n(name);
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    const bool l = name != "rstrip";
    const bool r = name != "lstrip";
    return fn(n, [s, l, r](interpreter&, call_args& a) {
      return value(py_strip(s, a.arg(0, "chars"), l, r));
    });
  }
  static const std::pair<std::string_view, py_case> cases[] = {
      {"upper", py_case::upper},       {"lower", py_case::lower},
      {"title", py_case::title},       {"capitalize", py_case::capitalize},
      {"swapcase", py_case::swapcase}, {"casefold", py_case::casefold},
  };
  for (const auto& [cn, how] : cases) {
    if (name == cn) {
      return fn(n, [s, how = how](interpreter&, call_args&) { return value(py_str_case(s, how)); });
    }
  }
  if (name == "split" || name == "rsplit") {
    const bool right = name == "rsplit";
    return fn(n, [s, right](interpreter&, call_args& a) {
      const value m = opt(a, 1, "maxsplit", value(-1));
      return str_list(py_split(s, a.arg(0, "sep"), m.as_int(), right));
    });
  }
  if (name == "splitlines") {
    return fn(n, [s](interpreter&, call_args& a) {
      return str_list(py_splitlines(s, truthy(opt(a, 0, "keepends", value(false)))));
    });
  }
  if (name == "startswith" || name == "endswith") {
    const bool pre = name == "startswith";
    return fn(n, [s, pre](interpreter&, call_args& a) {
      return value(affix(s, need(a, 0, "prefix", pre ? "startswith" : "endswith"), pre));
    });
  }
  if (name == "replace") {
    return fn(n, [s](interpreter&, call_args& a) {
      return value(py_replace(s, need_str(need(a, 0, "old", "replace"), "replace arg"),
                              need_str(need(a, 1, "new", "replace"), "replace arg"),
                              opt(a, 2, "count", value(-1)).as_int()));
    });
  }
  if (name == "find" || name == "rfind" || name == "index" || name == "rindex" || name == "count") {
    return fn(n, [s, n](interpreter&, call_args& a) -> value {
      const std::string& sub = need_str(need(a, 0, "sub", n), "argument");
      if (n == "count") {
        if (sub.empty()) return value(static_cast<std::int64_t>(code_points(s) + 1));
        std::int64_t c = 0;
        for (std::size_t at = s.find(sub); at != std::string::npos;
             at = s.find(sub, at + sub.size()))
          ++c;
        return value(c);
      }
      const std::size_t at = n[0] == 'r' ? s.rfind(sub) : s.find(sub);
      if (at == std::string::npos) {
        if (n == "index" || n == "rindex") fail(error_code::template_type, "substring not found");
        return value(-1);
      }
      return value(cp_index(s, at));
    });
  }
  if (name == "join") {
    return fn(n, [s](interpreter&, call_args& a) {
      std::string out;
      const list items = iterate(need(a, 0, "iterable", "join"));
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (!items[i].is_string()) {
          type_error("sequence item " + std::to_string(i) + ": expected str instance, " +
                     std::string(type_name(items[i])) + " found");
        }
        if (i > 0) out += s;
        out += items[i].str();
        check_size(out.size());
      }
      return value(std::move(out));
    });
  }
  if (name == "format") {
    return fn(n, [s](interpreter&, call_args& a) { return value(py_format(s, a)); });
  }
  if (name == "removeprefix" || name == "removesuffix") {
    const bool pre = name == "removeprefix";
    return fn(n, [s, pre](interpreter&, call_args& a) {
      const std::string& x = need_str(need(a, 0, "prefix", "removeprefix"), "argument");
      if (affix(s, value(x), pre)) {
        return value(pre ? s.substr(x.size()) : s.substr(0, s.size() - x.size()));
      }
      return value(s);
    });
  }
  static const std::pair<std::string_view, py_pred> preds[] = {
      {"isupper", py_pred::isupper},     {"islower", py_pred::islower},
      {"istitle", py_pred::istitle},     {"isalpha", py_pred::isalpha},
      {"isdigit", py_pred::isdigit},     {"isdecimal", py_pred::isdecimal},
      {"isnumeric", py_pred::isnumeric}, {"isalnum", py_pred::isalnum},
  };
  for (const auto& [pn, p] : preds) {
    if (name == pn) {
      return fn(n, [s, p = p](interpreter&, call_args&) { return value(py_str_is(s, p)); });
    }
  }
  if (name == "isspace") {
    return fn(n, [s](interpreter&, call_args&) {
      return value(all_of_cps(s, [](char32_t c) { return py_space(c); }));
    });
  }
  return value::undefined();
}

value dict_method(const value& self, std::string_view name) {
  const value& d = self;
  const std::string n(name);
  if (name == "items") {
    return fn(n, [d](interpreter&, call_args&) {
      list out;
      for (const auto& [k, v] : d.map().entries) out.push_back(make_tuple(list{k, v}));
      return value(std::move(out));
    });
  }
  if (name == "keys" || name == "values") {
    const bool keys = name == "keys";
    return fn(n, [d, keys](interpreter&, call_args&) {
      list out;
      for (const auto& [k, v] : d.map().entries) out.push_back(keys ? k : v);
      return value(std::move(out));
    });
  }
  if (name == "get") {
    return fn(n, [d](interpreter&, call_args& a) {
      const value* v = d.map().find(need(a, 0, "key", "get"));
      return v != nullptr ? *v : opt(a, 1, "default", value(none_t{}));
    });
  }
  if (name == "copy") {
    return fn(n, [d](interpreter&, call_args&) {
      value copy = d;
      return copy;
    });
  }
  for (const std::string_view u : {"pop", "popitem", "update", "setdefault", "clear"}) {
    if (name == u) return unsafe_method("dict", name);
  }
  return value::undefined();
}

value list_method(const value& self, std::string_view name) {
  const value& l = self;
  const std::string n(name);
  if (name == "index" || name == "count") {
    const bool idx = name == "index";
    return fn(n, [l, idx](interpreter&, call_args& a) -> value {
      const value& x = need(a, 0, "value", idx ? "index" : "count");
      std::int64_t c = 0;
      const auto& items = l.items();
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (!equal(items[i], x)) continue;
        if (idx) return value(static_cast<std::int64_t>(i));
        ++c;
      }
      if (idx) fail(error_code::template_type, to_str(x) + " is not in list");
      return value(c);
    });
  }
  for (const std::string_view u :
       {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"}) {
    if (name == u) return unsafe_method("list", name);
  }
  return value::undefined();
}

// ---- attribute paths (map, selectattr, sort…) ---------------------------------------------

value attribute_path(const value& item, const value& attr) {
  if (attr.is_int()) return get_item(item, attr);
  const std::string& path = need_str(attr, "attribute");
  value v = item;
  std::size_t b = 0;
  for (;;) {
    const std::size_t dot = path.find('.', b);
    const std::string part = path.substr(b, dot == std::string::npos ? std::string::npos : dot - b);
    if (v.is_undefined()) break;
    const bool digits = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
    v = get_item(v, digits
                        ? value(static_cast<std::int64_t>(std::strtoll(part.c_str(), nullptr, 10)))
                        : value(part));
    if (dot == std::string::npos) break;
    b = dot + 1;
  }
  return v;
}

// Jinja2's sort key: strings lowercased unless case_sensitive.
value sort_key(const value& v, bool case_sensitive) {
  if (!case_sensitive && v.is_string()) return value(py_str_case(v.str(), py_case::lower));
  return v;
}

// ---- filters ------------------------------------------------------------------------------

using call = call_args;

value f_default(interpreter&, const value& v, call& a) {
  value def = opt(a, 0, "default_value", value(""));
  const bool boolean = truthy(opt(a, 1, "boolean", value(false)));
  if (v.is_undefined() || (boolean && !truthy(v))) return def;
  return v;
}

value f_length(interpreter&, const value& v, call&) {
  return value(static_cast<std::int64_t>(length(v)));
}

value f_first(interpreter&, const value& v, call&) {
  if (generator_object* g = as_generator(v)) {  // one item taken, the rest left
    auto x = g->next();
    return x ? *x : value::undefined_hint("No first item, sequence was empty.");
  }
  const list l = iterate(v);
  return l.empty() ? value::undefined_hint("No first item, sequence was empty.") : l.front();
}

value f_last(interpreter&, const value& v, call&) {
  if (as_generator(v) != nullptr) type_error("'generator' object is not reversible");
  const list l = iterate(v);
  return l.empty() ? value::undefined_hint("No last item, sequence was empty.") : l.back();
}

value f_join(interpreter&, const value& v, call& a) {
  const value sep = opt(a, 0, "d", value(""));
  const value* attr = a.arg(1, "attribute");
  std::string out;
  bool first = true;
  for (const auto& item : iterate(v)) {
    if (!first) append_str(sep, out);
    first = false;
    append_str(attr != nullptr && !attr->is_none() ? attribute_path(item, *attr) : item, out);
    check_size(out.size());
  }
  return value(std::move(out));
}

value f_upper(interpreter&, const value& v, call&) {
  return value(py_str_case(to_str(v), py_case::upper));
}
value f_lower(interpreter&, const value& v, call&) {
  return value(py_str_case(to_str(v), py_case::lower));
}
value f_capitalize(interpreter&, const value& v, call&) {
  return value(py_str_case(to_str(v), py_case::capitalize));
}
value f_title(interpreter&, const value& v, call&) {
  return value(jinja_title(to_str(v)));
}
value f_trim(interpreter&, const value& v, call& a) {
  return value(py_strip(to_str(v), a.arg(0, "chars"), true, true));
}
value f_string(interpreter&, const value& v, call&) {
  return value(to_str(v));
}
value f_safe(interpreter&, const value& v, call&) {
  value out = v.is_string() ? v : value(to_str(v));
  out.safe = true;
  return out;
}
value f_forceescape(interpreter&, const value& v, call&) {
  value out(html_escape(to_str(v)));
  out.safe = true;
  return out;
}
value f_escape(interpreter& in, const value& v, call& a) {
  return v.safe ? v : f_forceescape(in, v, a);  // Markup is already escaped
}
value f_replace(interpreter&, const value& v, call& a) {
  const value count = opt(a, 2, "count", value(none_t{}));
  return value(py_replace(to_str(v), to_str(need(a, 0, "old", "replace")),
                          to_str(need(a, 1, "new", "replace")),
                          count.is_none() ? -1 : count.as_int()));
}
value f_list(interpreter&, const value& v, call&) {
  return value(iterate(v));
}
value f_items(interpreter&, const value& v, call&) {
  // Jinja2's do_items, a generator: nothing for undefined, TypeError (when consumed) for
  // what is not a mapping.
  return make_generator(
      "do_items",
      [v, i = std::size_t{0}]() mutable -> std::optional<value> {
        if (v.is_undefined()) return std::nullopt;
        if (!v.is_dict()) type_error("Can only get item pairs from a mapping.");
        const auto& es = v.map().entries;
        if (i >= es.size()) return std::nullopt;
        const auto& [k, x] = es[i++];
        return make_tuple(list{k, x});
      },
      v);
}
value f_reverse(interpreter&, const value& v, call&) {
  if (v.is_string()) {
    auto cps = code_point_pieces(v.str());
    std::string out;
    for (auto it = cps.rbegin(); it != cps.rend(); ++it) out += *it;
    return value(std::move(out));
  }
  list l = iterate(v);
  std::reverse(l.begin(), l.end());
  return value(std::move(l));
}
value f_tojson(interpreter&, const value& v, call& a) {
  dumps_options o;
  const value indent = opt(a, 1, "indent", value(none_t{}));
  if (indent.is_string()) {
    o.has_indent_text = true;
    o.indent_text = indent.str();
  } else if (!indent.is_none()) {
    o.indent = std::max<std::int64_t>(0, indent.as_int());
  }
  if (o.indent >= 0 || o.has_indent_text) o.item_sep = ",";
  const value seps = opt(a, 2, "separators", value(none_t{}));
  if (seps.is_list() && seps.items().size() == 2) {
    o.item_sep = to_str(seps.items()[0]);
    o.key_sep = to_str(seps.items()[1]);
  }
  o.sort_keys = truthy(opt(a, 3, "sort_keys", value(false)));
  o.ensure_ascii = truthy(opt(a, 0, "ensure_ascii", value(false)));
  std::string out;
  dumps(v, o, out);
  return value(std::move(out));
}
value f_int(interpreter&, const value& v, call& a) {
  value def = opt(a, 0, "default", value(0));
  if (v.is_int() || v.is_bool()) return value(v.as_int());
  if (is_bigint(v)) return v;
  if (v.is_float()) return int_from_float(v.as_double());
  if (v.is_string()) {
    const std::string s = py_strip(v.str(), nullptr, true, true);
    // Python's int(str): an optional sign and decimal digits, any number of them.
    const std::size_t sign = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (s.size() > sign && s.find_first_not_of("0123456789", sign) == std::string::npos) {
      return int_from_text(std::string_view(s).substr(s[0] == '+' ? 1 : 0));
    }
    try {
      std::size_t used = 0;
      const double d = std::stod(s, &used);
      if (used == s.size()) return value(float_to_int(d));
    } catch (...) {  // NOLINT(bugprone-empty-catch): not a number: the default
    }
  }
  return def;
}
value f_float(interpreter&, const value& v, call& a) {
  value def = opt(a, 0, "default", value(0.0));
  if (v.is_number()) return value(v.as_double());
  if (is_bigint(v)) return value(int_to_double(v));
  if (v.is_string()) {
    try {
      std::size_t used = 0;
      const std::string s = py_strip(v.str(), nullptr, true, true);
      const double d = std::stod(s, &used);
      if (used == s.size()) return value(d);
    } catch (...) {  // NOLINT(bugprone-empty-catch): not a number: the default
    }
  }
  return def;
}
value f_abs(interpreter&, const value& v, call&) {
  if (v.is_float()) return value(std::fabs(v.as_double()));
  if (v.is_int() || v.is_bool() || is_bigint(v)) return int_abs(v);
  type_error("bad operand type for abs(): '" + std::string(type_name(v)) + "'");
}
value f_round(interpreter&, const value& v, call& a) {
  // Jinja2's do_round: `common` is Python's round() (half to even, on the float's exact
  // value; an int stays an int), `ceil` and `floor` are math's, divided back as floats.
  const std::int64_t precision = opt(a, 0, "precision", value(0)).as_int();
  const std::string method = to_str(opt(a, 1, "method", value("common")));
  if (method != "common" && method != "ceil" && method != "floor") {
    type_error("method must be common, ceil or floor");
  }
  if (method == "common" && (v.is_int() || v.is_bool() || is_bigint(v))) {
    if (precision >= 0) return v.is_bool() ? value(v.as_int()) : v;
    const value unit = int_arith("**", value(10), value(-precision));
    const value half = int_arith("//", unit, value(2));
    value q = int_arith("//", v, unit);
    const value r = int_arith("-", v, int_arith("*", q, unit));
    const int c = int_compare(r, half);
    const bool odd = int_compare(int_arith("%", q, value(2)), value(0)) != 0;
    if (c > 0 || (c == 0 && odd && int_compare(int_arith("%", unit, value(2)), value(0)) == 0)) {
      q = int_arith("+", q, value(1));
    }
    return int_arith("*", q, unit);
  }
  const double x = v.is_float() ? v.as_double() : int_to_double(v);
  if (method == "common") {
    if (!std::isfinite(x)) return value(x);
    if (precision >= 0 && precision <= 340) {
      // printf rounds the exact binary value, ties to even: Python's round().
      char buf[512];
      std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(precision), x);
      return value(std::strtod(buf, nullptr));
    }
    if (precision > 340) return value(x);
    const double m = std::pow(10.0, static_cast<double>(-precision));
    const double y = x / m;
    double r = std::nearbyint(y);  // ties to even (the default rounding mode)
    return value(r * m);
  }
  const double m = std::pow(10.0, static_cast<double>(precision));
  const double r = method == "ceil" ? std::ceil(x * m) : std::floor(x * m);
  return value(r / m);
}
value f_indent(interpreter&, const value& v, call& a) {
  // Jinja2's do_indent: the text plus a newline, split as str.splitlines splits (so \r\n,
  // \r, U+2028… end lines too), joined with "\n"; every line but the first (and, unless
  // `blank`, but the empty ones) indented.
  const value w = opt(a, 0, "width", value(4));
  const bool first = truthy(opt(a, 1, "first", value(false)));
  const bool blank = truthy(opt(a, 2, "blank", value(false)));
  const std::string s = to_str(v) + "\n";
  const std::vector<std::string> lines = py_splitlines(s, false);
  std::size_t pad_len = 0;
  if (w.is_string()) {
    pad_len = w.str().size();
  } else {
    pad_len = static_cast<std::size_t>(std::max<std::int64_t>(0, w.as_int()));
  }
  check_size_product(pad_len, lines.size() + 1);
  check_size_sum(s.size(), pad_len * (lines.size() + 1));
  const std::string pad = w.is_string() ? w.str() : std::string(pad_len, ' ');
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out.push_back('\n');
    if (i > 0 && (blank || !lines[i].empty())) out += pad;
    out += lines[i];
  }
  if (first) out.insert(0, pad);
  return value(std::move(out));
}
value f_wordcount(interpreter&, const value& v, call&) {
  return value(static_cast<std::int64_t>(py_split(to_str(v), nullptr, -1, false).size()));
}
value f_wordwrap(interpreter&, const value& v, call& a) {
  check_defined(v);
  if (!v.is_string()) {
    type_error("'" + std::string(type_name(v)) + "' object has no attribute 'splitlines'");
  }
  wordwrap_options o;
  o.width = opt(a, 0, "width", value(79)).as_int();
  o.break_long_words = truthy(opt(a, 1, "break_long_words", value(true)));
  const value wrap = opt(a, 2, "wrapstring", value(none_t{}));
  if (!wrap.is_none()) o.wrapstring = need_str(wrap, "wrapstring");
  o.break_on_hyphens = truthy(opt(a, 3, "break_on_hyphens", value(true)));
  return value(py_wordwrap(v.str(), o));
}
value f_urlize(interpreter&, const value& v, call& a) {
  // Jinja2's do_urlize with transformers' environment: rel gets its "noopener" policy.
  urlize_options o;
  const value trim = opt(a, 0, "trim_url_limit", value(none_t{}));
  if (!trim.is_none()) o.trim_url_limit = trim.as_int();
  std::vector<std::string> rel = py_split(to_str(opt(a, 3, "rel", value(""))), nullptr, -1, false);
  if (truthy(opt(a, 1, "nofollow", value(false)))) rel.emplace_back("nofollow");
  rel.emplace_back("noopener");
  std::sort(rel.begin(), rel.end());
  rel.erase(std::unique(rel.begin(), rel.end()), rel.end());
  for (const auto& r : rel) o.rel += (o.rel.empty() ? "" : " ") + r;
  const value target = opt(a, 2, "target", value(none_t{}));
  if (!target.is_none()) o.target = to_str(target);
  const value schemes = opt(a, 4, "extra_schemes", value(none_t{}));
  if (!schemes.is_none()) {
    for (const value& x : iterate(schemes)) {
      const std::string& scheme = need_str(x, "extra_schemes item");
      const std::size_t colon = scheme.find(':');
      const bool valid =
          colon != std::string::npos && colon >= 2 &&
          scheme.find_first_not_of('/', colon + 1) == std::string::npos &&
          scheme.size() - colon - 1 <= 2 &&
          std::all_of(
              scheme.begin(), scheme.begin() + static_cast<std::ptrdiff_t>(colon), [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' ||
                       c == '+' || c == '-' || static_cast<unsigned char>(c) >= 0x80;
              });
      if (!valid) {
        std::string r;
        append_repr(x, r);
        type_error(r + " is not a valid URI scheme prefix.");
      }
      o.extra_schemes.push_back(scheme);
    }
  }
  return value(jinja_urlize(to_str(v), o));
}
value f_pprint(interpreter&, const value& v, call&) {
  return value(py_pformat(v));
}
value f_random(interpreter&, const value& v, call&) {
  // random.choice: an item of a list or a character of a string; none of an empty one.
  thread_local std::mt19937_64 rng{std::random_device{}()};
  check_defined(v);
  if (!v.is_string() && !v.is_list()) {
    type_error("object of type '" + std::string(type_name(v)) + "' has no len()");
  }
  const std::size_t n = v.is_string() ? code_points(v.str()) : v.items().size();
  if (n == 0) return value::undefined_hint("No random item, sequence was empty.");
  const std::size_t k = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  if (v.is_list()) return v.items()[k];
  const std::size_t at = code_point_offset(v.str(), k);
  return value(v.str().substr(at, code_point_offset(v.str(), k + 1) - at));
}
value f_groupby(interpreter&, const value& v, call& a) {
  // Jinja2's groupby: sorted by the attribute (case-insensitively unless asked), grouped by
  // equal keys; each group a (grouper, list) tuple whose grouper is the first item's value.
  const value attr = need(a, 0, "attribute", "groupby");
  const value def = opt(a, 1, "default", value(none_t{}));
  const bool cs = truthy(opt(a, 2, "case_sensitive", value(false)));
  const auto key_of = [&](const value& item) {
    value k = attribute_path(item, attr);
    if (k.is_undefined() && !def.is_none()) k = def;
    return k;
  };
  list items = iterate(v);
  std::vector<std::pair<value, std::size_t>> keyed;
  keyed.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i)
    keyed.emplace_back(sort_key(key_of(items[i]), cs), i);
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& x, const auto& y) { return less(x.first, y.first); });
  list groups;
  for (std::size_t i = 0; i < keyed.size();) {
    list members;
    std::size_t j = i;
    for (; j < keyed.size() && equal(keyed[j].first, keyed[i].first); ++j) {
      members.push_back(items[keyed[j].second]);
    }
    value group = make_tuple(list{key_of(members.front()), value(std::move(members))});
    group.group = true;
    groups.push_back(std::move(group));
    i = j;
  }
  return value(std::move(groups));
}
value f_center(interpreter&, const value& v, call& a) {
  const std::string s = to_str(v);
  const std::int64_t w = opt(a, 0, "width", value(80)).as_int();
  const std::size_t n = code_points(s);
  if (w <= 0 || static_cast<std::size_t>(w) <= n) return value(s);
  const auto width = static_cast<std::size_t>(w);
  check_size_sum(s.size(), width - n);
  const std::size_t total = width - n;
  const std::size_t left = total / 2 + (total & width & 1);
  return value(std::string(left, ' ') + s + std::string(total - left, ' '));
}
value f_format(interpreter&, const value& v, call& a) {
  // Jinja2's do_format: `value % (kwargs or args)`.
  if (!a.positional.empty() && !a.keyword.empty()) {
    type_error("can't handle positional and keyword arguments at the same time");
  }
  if (!a.keyword.empty()) {
    auto d = std::make_shared<dict>();
    for (const auto& [k, x] : a.keyword) d->set(value(k), x);
    return binary_op("%", v, value(dict_ptr(std::move(d))));
  }
  return binary_op("%", v, make_tuple(a.positional));
}
value f_unique(interpreter&, const value& v, call& a) {
  const bool cs = truthy(opt(a, 0, "case_sensitive", value(false)));
  const value* at = a.arg(1, "attribute");
  const value attr = at != nullptr ? *at : value(none_t{});
  return make_generator(
      "do_unique",
      [src = source{v}, cs, attr, keys = list()]() mutable -> std::optional<value> {
        while (auto item = src.next()) {
          const value k = sort_key(!attr.is_none() ? attribute_path(*item, attr) : *item, cs);
          if (std::none_of(keys.begin(), keys.end(), [&](const value& x) { return equal(x, k); })) {
            keys.push_back(k);
            return item;
          }
        }
        return std::nullopt;
      },
      v);
}
value f_sort(interpreter&, const value& v, call& a) {
  const bool rev = truthy(opt(a, 0, "reverse", value(false)));
  const bool cs = truthy(opt(a, 1, "case_sensitive", value(false)));
  const value* attr = a.arg(2, "attribute");
  list l = iterate(v);
  std::vector<std::pair<value, std::size_t>> keyed;
  for (std::size_t i = 0; i < l.size(); ++i) {
    keyed.emplace_back(
        sort_key(attr != nullptr && !attr->is_none() ? attribute_path(l[i], *attr) : l[i], cs), i);
  }
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    return rev ? less(y.first, x.first) : less(x.first, y.first);
  });
  list out;
  for (const auto& [k, i] : keyed) out.push_back(l[i]);
  return value(std::move(out));
}
value f_dictsort(interpreter&, const value& v, call& a) {
  const bool cs = truthy(opt(a, 0, "case_sensitive", value(false)));
  const std::string by = to_str(opt(a, 1, "by", value("key")));
  const bool rev = truthy(opt(a, 2, "reverse", value(false)));
  if (!v.is_dict()) type_error("dictsort: a mapping is required");
  list pairs;
  for (const auto& [k, x] : v.map().entries) pairs.push_back(make_tuple(list{k, x}));
  const std::size_t pos = by == "value" ? 1 : 0;
  std::stable_sort(pairs.begin(), pairs.end(), [&](const value& x, const value& y) {
    const value kx = sort_key(x.items()[pos], cs);
    const value ky = sort_key(y.items()[pos], cs);
    return rev ? less(ky, kx) : less(kx, ky);
  });
  return value(std::move(pairs));
}
value f_sum(interpreter&, const value& v, call& a) {
  const value* attr = a.arg(0, "attribute");
  value acc = opt(a, 1, "start", value(0));
  for (const auto& item : iterate(v)) {
    acc = binary_op("+", acc,
                    attr != nullptr && !attr->is_none() ? attribute_path(item, *attr) : item);
  }
  return acc;
}
value minmax(const value& v, call& a, bool want_max) {
  const bool cs = truthy(opt(a, 0, "case_sensitive", value(false)));
  const value* attr = a.arg(1, "attribute");
  const list l = iterate(v);
  if (l.empty()) return value::undefined_hint("No aggregated item, sequence was empty.");
  std::size_t best = 0;
  const auto key = [&](const value& x) {
    return sort_key(attr != nullptr && !attr->is_none() ? attribute_path(x, *attr) : x, cs);
  };
  for (std::size_t i = 1; i < l.size(); ++i) {
    if (want_max ? less(key(l[best]), key(l[i])) : less(key(l[i]), key(l[best]))) best = i;
  }
  return l[best];
}
value f_max(interpreter&, const value& v, call& a) {
  return minmax(v, a, true);
}
value f_min(interpreter&, const value& v, call& a) {
  return minmax(v, a, false);
}
value f_batch(interpreter&, const value& v, call& a) {
  // Jinja2's do_batch, a generator: lists of `linecount` items, the last one filled.
  const std::int64_t n = need(a, 0, "linecount", "batch").as_int();
  const value fill = opt(a, 1, "fill_with", value(none_t{}));
  return make_generator(
      "do_batch",
      [src = source{v}, n, fill, cur = list(), done = false]() mutable -> std::optional<value> {
        if (done) return std::nullopt;
        while (auto item = src.next()) {
          std::optional<value> out;
          if (static_cast<std::int64_t>(cur.size()) == n) out = value(std::exchange(cur, list()));
          cur.push_back(std::move(*item));
          if (out) return out;
        }
        done = true;
        if (cur.empty()) return std::nullopt;
        if (!fill.is_none() && static_cast<std::int64_t>(cur.size()) < n) {
          const auto missing = static_cast<std::size_t>(n) - cur.size();
          if (missing > (std::size_t{1} << 20)) {
            fail(error_code::limit_exceeded, "batch: more than 1048576 fill items");
          }
          cur.insert(cur.end(), missing, fill);
        }
        return value(std::move(cur));
      },
      v);
}
value f_slice(interpreter&, const value& v, call& a) {
  // Jinja2's sync_do_slice, a generator: `slices` lists, the first ones one longer, the
  // others filled when fill_with is given.
  const std::int64_t slices = need(a, 0, "slices", "slice").as_int();
  const value fill = opt(a, 1, "fill_with", value(none_t{}));
  return make_generator(
      "sync_do_slice",
      [src = source{v}, slices, fill, seq = list(), k = std::int64_t{0}, offset = std::int64_t{0},
       started = false]() mutable -> std::optional<value> {
        if (!started) {
          started = true;
          while (auto x = src.next()) seq.push_back(std::move(*x));
          if (slices <= 0 && !seq.empty()) {
            fail(error_code::template_type, "integer division or modulo by zero");
          }
        }
        if (k >= slices) return std::nullopt;
        const auto n = static_cast<std::int64_t>(seq.size());
        const std::int64_t per = n / slices;
        const std::int64_t extra = n % slices;
        const std::int64_t start = offset + k * per;
        if (k < extra) ++offset;
        const std::int64_t end = offset + (k + 1) * per;
        list tmp(seq.begin() + std::clamp<std::int64_t>(start, 0, n),
                 seq.begin() + std::clamp<std::int64_t>(std::max(start, end), 0, n));
        if (!fill.is_none() && k >= extra) tmp.push_back(fill);
        ++k;
        return value(std::move(tmp));
      },
      v);
}
value f_filesizeformat(interpreter&, const value& v, call& a) {
  const double bytes = v.is_string() ? std::stod(v.str()) : v.as_double();
  const bool binary = truthy(opt(a, 0, "binary", value(false)));
  const double base = binary ? 1024 : 1000;
  static const char* const dec[] = {"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
  static const char* const bin[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
  if (bytes == 1) return value("1 Byte");
  if (bytes < base) {
    return value(std::to_string(static_cast<long long>(bytes)) + " Bytes");
  }
  char buf[64] = {};
  for (int i = 0; i < 8; ++i) {
    const double unit = std::pow(base, i + 2);
    if (bytes < unit || i == 7) {
      std::snprintf(buf, sizeof buf, "%.1f %s", base * bytes / unit, binary ? bin[i] : dec[i]);
      break;
    }
  }
  return value(std::string(buf));
}
// urllib.parse.quote (UTF-8; letters, digits and _.-~ kept, and '/' unless for a query,
// where a space is '+').
std::string url_quote(const value& x, bool for_qs) {
  const std::string s = to_str(x);
  std::string out;
  char hex[4];
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
        c == '.' || c == '-' || c == '~' || (c == '/' && !for_qs)) {
      out.push_back(static_cast<char>(c));
    } else if (c == ' ' && for_qs) {
      out.push_back('+');
    } else {
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}
value f_urlencode(interpreter&, const value& v, call&) {
  if (v.is_string() || !(v.is_list() || v.is_dict() || as_generator(v) != nullptr)) {
    return value(url_quote(v, false));
  }
  std::string out;
  const auto pair = [&](const value& k, const value& x) {
    if (!out.empty()) out.push_back('&');
    out += url_quote(k, true) + "=" + url_quote(x, true);
  };
  if (v.is_dict()) {
    for (const auto& [k, x] : v.map().entries) pair(k, x);
  } else {
    for (const auto& item : iterate(v)) {
      if (!item.is_list() || item.items().size() != 2) {
        type_error("cannot unpack non-iterable " + std::string(type_name(item)) + " object");
      }
      pair(item.items()[0], item.items()[1]);
    }
  }
  return value(std::move(out));
}
value f_xmlattr(interpreter&, const value& v, call& a) {
  if (!v.is_dict())
    type_error("'" + std::string(type_name(v)) + "' object has no attribute 'items'");
  const bool autospace = truthy(opt(a, 0, "autospace", value(true)));
  std::string out;
  for (const auto& [k, x] : v.map().entries) {
    if (x.is_none() || x.is_undefined()) continue;
    const std::string key = to_str(k);
    if (key.find_first_of(" \t\n\f\r/>=") != std::string::npos) {
      std::string r = "Invalid character in attribute name: ";
      append_repr(k, r);
      type_error(std::move(r));
    }
    if (!out.empty()) out.push_back(' ');
    out += html_escape(key) + "=\"" + (x.safe ? to_str(x) : html_escape(to_str(x))) + "\"";
  }
  if (autospace && !out.empty()) out.insert(0, " ");
  return value(std::move(out));
}
value f_attr(interpreter&, const value& v, call& a) {
  return get_attr(v, to_str(need(a, 0, "name", "attr")));
}
value f_striptags(interpreter&, const value& v, call&) {
  std::string s = to_str(v);
  std::string out;
  bool in_tag = false;
  for (const char c : s) {
    if (c == '<') in_tag = true;
    if (!in_tag) out.push_back(c);
    if (c == '>') in_tag = false;
  }
  std::string joined;
  for (const auto& w : py_split(out, nullptr, -1, false)) joined += (joined.empty() ? "" : " ") + w;
  return value(joined);
}
value f_truncate(interpreter&, const value& v, call& a) {
  const std::string s = to_str(v);
  const auto len = static_cast<std::size_t>(opt(a, 0, "length", value(255)).as_int());
  const bool killwords = truthy(opt(a, 1, "killwords", value(false)));
  const std::string end = to_str(opt(a, 2, "end", value("...")));
  const auto leeway = static_cast<std::size_t>(opt(a, 3, "leeway", value(5)).as_int());
  const auto cps = code_point_pieces(s);
  if (cps.size() <= len + leeway) return value(s);
  const std::size_t keep = len >= code_points(end) ? len - code_points(end) : 0;
  std::string head;
  for (std::size_t i = 0; i < keep; ++i) head += cps[i];
  if (killwords) return value(head + end);
  const std::size_t sp = head.rfind(' ');
  return value((sp == std::string::npos ? head : head.substr(0, sp)) + end);
}

// map / select / reject / selectattr / rejectattr.
value apply_filter_by_name(interpreter& in, const std::string& name, const value& item,
                           const call& rest) {
  const filter_fn* f = find_filter(name);
  if (f == nullptr)
    fail(error_code::template_type,
         "No filter named '" + name + "'.");  // Jinja2: TemplateRuntimeError
  call args = rest;
  return f->fn(in, item, args);
}
bool apply_test_by_name(interpreter& in, const std::string& name, const value& item,
                        const call& rest) {
  const test_fn* t = find_test(name);
  if (t == nullptr)
    fail(error_code::template_type,
         "No test named '" + name + "'.");  // Jinja2: TemplateRuntimeError
  call args = rest;
  return t->fn(in, item, args);
}
call shifted(const call& a, std::size_t n) {
  call out;
  for (std::size_t i = n; i < a.positional.size(); ++i) out.positional.push_back(a.positional[i]);
  out.keyword = a.keyword;
  return out;
}
// Jinja2's sync_do_map: a generator; nothing over a false value; its function is made at
// the first pull, as the generator's body makes it.
value f_map(interpreter& in, const value& v, call& a) {
  std::function<value(const value&)> func;
  return make_generator(
      "sync_do_map",
      [&in, src = source{v}, a, func, started = false]() mutable -> std::optional<value> {
        if (!started) {
          started = true;
          if (!truthy(src.v)) return std::nullopt;
          if (a.positional.empty() && a.kw("attribute") != nullptr) {
            const value attr = *a.kw("attribute");
            const value def = a.kw("default") != nullptr ? *a.kw("default") : value(none_t{});
            for (const auto& [k, x] : a.keyword) {
              if (k != "attribute" && k != "default") {
                type_error("Unexpected keyword argument '" + k + "'");
              }
            }
            func = [attr, def](const value& item) {
              value x = attribute_path(item, attr);
              return x.is_undefined() && !def.is_none() ? def : x;
            };
          } else {
            if (a.positional.empty()) type_error("map requires a filter argument");
            const std::string name = to_str(a.positional[0]);
            const call rest = shifted(a, 1);
            func = [&in, name, rest](const value& item) {
              return apply_filter_by_name(in, name, item, rest);
            };
          }
        }
        if (!func) return std::nullopt;
        auto item = src.next();
        if (!item) return std::nullopt;
        return func(*item);
      },
      v);
}
// Jinja2's select_or_reject: a generator, as map.
value select_impl(interpreter& in, const value& v, const call& a, bool keep, bool by_attr) {
  return make_generator(
      "select_or_reject",
      [&in, src = source{v}, a, keep, by_attr, started = false, ok = false, attr = value(),
       has_test = false, test = std::string(), rest = call()]() mutable -> std::optional<value> {
        if (!started) {
          started = true;
          ok = truthy(src.v);
          if (!ok) return std::nullopt;
          std::size_t k = 0;
          if (by_attr) attr = need(a, k++, "attribute", "selectattr");
          has_test = a.positional.size() > k;
          test = has_test ? to_str(a.positional[k]) : std::string();
          rest = shifted(a, k + 1);
          rest.keyword.clear();
        }
        if (!ok) return std::nullopt;
        while (auto item = src.next()) {
          const value x = by_attr ? attribute_path(*item, attr) : *item;
          const bool pass = has_test ? apply_test_by_name(in, test, x, rest) : truthy(x);
          if (pass == keep) return item;
        }
        return std::nullopt;
      },
      v);
}
value f_select(interpreter& in, const value& v, call& a) {
  return select_impl(in, v, a, true, false);
}
value f_reject(interpreter& in, const value& v, call& a) {
  return select_impl(in, v, a, false, false);
}
value f_selectattr(interpreter& in, const value& v, call& a) {
  return select_impl(in, v, a, true, true);
}
value f_rejectattr(interpreter& in, const value& v, call& a) {
  return select_impl(in, v, a, false, true);
}

constexpr filter_fn kFilters[] = {
    {"abs", f_abs},
    {"attr", f_attr},
    {"batch", f_batch},
    {"capitalize", f_capitalize},
    {"center", f_center},
    {"count", f_length},
    {"d", f_default},
    {"default", f_default},
    {"dictsort", f_dictsort},
    {"e", f_escape},
    {"escape", f_escape},
    {"first", f_first},
    {"float", f_float},
    {"forceescape", f_forceescape},
    {"format", f_format},
    {"groupby", f_groupby},
    {"indent", f_indent},
    {"int", f_int},
    {"items", f_items},
    {"join", f_join},
    {"last", f_last},
    {"length", f_length},
    {"list", f_list},
    {"lower", f_lower},
    {"map", f_map},
    {"max", f_max},
    {"min", f_min},
    {"pprint", f_pprint},
    {"random", f_random},
    {"reject", f_reject},
    {"rejectattr", f_rejectattr},
    {"replace", f_replace},
    {"reverse", f_reverse},
    {"round", f_round},
    {"slice", f_slice},
    {"filesizeformat", f_filesizeformat},
    {"urlencode", f_urlencode},
    {"xmlattr", f_xmlattr},
    {"safe", f_safe},
    {"select", f_select},
    {"selectattr", f_selectattr},
    {"sort", f_sort},
    {"string", f_string},
    {"striptags", f_striptags},
    {"sum", f_sum},
    {"title", f_title},
    {"tojson", f_tojson},
    {"trim", f_trim},
    {"truncate", f_truncate},
    {"unique", f_unique},
    {"upper", f_upper},
    {"urlize", f_urlize},
    {"wordcount", f_wordcount},
    {"wordwrap", f_wordwrap},
};

// ---- tests --------------------------------------------------------------------------------

bool t_defined(interpreter&, const value& v, call&) {
  return !v.is_undefined();
}
bool t_undefined(interpreter&, const value& v, call&) {
  return v.is_undefined();
}
bool t_none(interpreter&, const value& v, call&) {
  return v.is_none();
}
bool t_boolean(interpreter&, const value& v, call&) {
  return v.is_bool();
}
bool t_true(interpreter&, const value& v, call&) {
  return v.is_bool() && std::get<bool>(v.v);
}
bool t_false(interpreter&, const value& v, call&) {
  return v.is_bool() && !std::get<bool>(v.v);
}
bool t_string(interpreter&, const value& v, call&) {
  return v.is_string();
}
bool t_number(interpreter&, const value& v, call&) {
  return v.is_number() || is_bigint(v);
}
bool t_integer(interpreter&, const value& v, call&) {
  return v.is_int() || is_bigint(v);
}
bool t_float(interpreter&, const value& v, call&) {
  return v.is_float();
}
bool t_mapping(interpreter&, const value& v, call&) {
  return v.is_dict();
}
bool t_iterable(interpreter&, const value& v, call&) {
  return v.is_string() || v.is_list() || v.is_dict() || v.is_undefined() ||
         as_generator(v) != nullptr;
}
bool t_sequence(interpreter&, const value& v, call&) {
  return v.is_string() || v.is_list() || v.is_dict() || v.is_undefined();
}
bool t_callable(interpreter&, const value& v, call&) {
  return v.is_object() && v.obj()->callable();
}
bool t_even(interpreter&, const value& v, call&) {
  return v.as_int() % 2 == 0;
}
bool t_odd(interpreter&, const value& v, call&) {
  return v.as_int() % 2 != 0;
}
bool t_divisibleby(interpreter&, const value& v, call& a) {
  const auto n = need(a, 0, "num", "divisibleby").as_int();
  if (n == 0) fail(error_code::template_type, "integer division or modulo by zero");
  return v.as_int() % n == 0;
}
bool t_eq(interpreter&, const value& v, call& a) {
  return equal(v, need(a, 0, "other", "eq"));
}
bool t_ne(interpreter&, const value& v, call& a) {
  return !equal(v, need(a, 0, "other", "ne"));
}
bool t_lt(interpreter&, const value& v, call& a) {
  return less(v, need(a, 0, "other", "lt"));
}
bool t_gt(interpreter&, const value& v, call& a) {
  return less(need(a, 0, "other", "gt"), v);
}
bool t_le(interpreter&, const value& v, call& a) {
  return !less(need(a, 0, "other", "le"), v);
}
bool t_ge(interpreter&, const value& v, call& a) {
  return !less(v, need(a, 0, "other", "ge"));
}
bool t_in(interpreter&, const value& v, call& a) {
  return contains(need(a, 0, "seq", "in"), v);
}
bool t_sameas(interpreter&, const value& v, call& a) {
  const value& o = need(a, 0, "other", "sameas");
  if (v.is_none() || v.is_bool() || o.is_none() || o.is_bool()) {
    return v.v.index() == o.v.index() && equal(v, o);
  }
  return equal(v, o) && v.v.index() == o.v.index() && (v.is_int() || v.is_object());
}
bool t_lower(interpreter&, const value& v, call&) {
  return py_str_is(to_str(v), py_pred::islower);
}
bool t_escaped(interpreter&, const value& v, call&) {
  return v.safe;  // has __html__: Markup
}
bool t_filter(interpreter&, const value& v, call&) {
  return v.is_string() && find_filter(v.str()) != nullptr;
}
bool t_test(interpreter&, const value& v, call&) {
  return v.is_string() && find_test(v.str()) != nullptr;
}
bool t_upper(interpreter&, const value& v, call&) {
  return py_str_is(to_str(v), py_pred::isupper);
}

constexpr test_fn kTests[] = {
    {"boolean", t_boolean},
    {"callable", t_callable},
    {"defined", t_defined},
    {"divisibleby", t_divisibleby},
    {"eq", t_eq},
    {"equalto", t_eq},
    {"==", t_eq},
    {"even", t_even},
    {"false", t_false},
    {"float", t_float},
    {"ge", t_ge},
    {">=", t_ge},
    {"gt", t_gt},
    {"greaterthan", t_gt},
    {">", t_gt},
    {"in", t_in},
    {"integer", t_integer},
    {"iterable", t_iterable},
    {"le", t_le},
    {"<=", t_le},
    {"lower", t_lower},
    {"lt", t_lt},
    {"lessthan", t_lt},
    {"<", t_lt},
    {"mapping", t_mapping},
    {"ne", t_ne},
    {"!=", t_ne},
    {"none", t_none},
    {"number", t_number},
    {"odd", t_odd},
    {"sameas", t_sameas},
    {"sequence", t_sequence},
    {"string", t_string},
    {"true", t_true},
    {"undefined", t_undefined},
    {"escaped", t_escaped},
    {"filter", t_filter},
    {"test", t_test},
    {"upper", t_upper},
};

}  // namespace

const filter_fn* find_filter(std::string_view name) {
  for (const auto& f : kFilters) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const test_fn* find_test(std::string_view name) {
  for (const auto& t : kTests) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

value method_of(const value& obj, std::string_view name) {
  if (obj.is_string()) return string_method(obj, name);
  if (obj.is_dict()) return dict_method(obj, name);
  if (obj.is_list()) return list_method(obj, name);
  return value::undefined();
}

value builtin_global(std::string_view name) {
  if (name == "range") {
    return fn("range", [](interpreter& in, call_args& a) {
      std::int64_t start = 0;
      std::int64_t stop = 0;
      std::int64_t step = 1;
      for (const auto& p : a.positional) {
        if (!p.is_int() && !p.is_bool()) {
          type_error("'" + std::string(type_name(p)) +
                     "' object cannot be interpreted as an integer");
        }
      }
      if (a.positional.size() == 1) {
        stop = a.positional[0].as_int();
      } else if (a.positional.size() >= 2) {
        start = a.positional[0].as_int();
        stop = a.positional[1].as_int();
        if (a.positional.size() > 2) step = a.positional[2].as_int();
      } else {
        type_error("range expected at least 1 argument, got 0");
      }
      if (step == 0) fail(error_code::template_type, "range() arg 3 must not be zero");
      // Jinja2's sandbox (transformers renders in one) refuses ranges of more than
      // MAX_RANGE items before making them.
      constexpr std::int64_t kMaxRange = 100000;
      const __int128 span =
          step > 0 ? static_cast<__int128>(stop) - start : static_cast<__int128>(start) - stop;
      const __int128 len = span <= 0
                               ? 0
                               : (span + (step > 0 ? step : -static_cast<__int128>(step)) - 1) /
                                     (step > 0 ? step : -static_cast<__int128>(step));
      if (len > kMaxRange) {
        fail(error_code::template_type,
             "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
      }
      list out;
      out.reserve(static_cast<std::size_t>(len));
      for (std::int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
        in.step();
        out.emplace_back(i);
      }
      return value(std::move(out));
    });
  }
  if (name == "namespace") {
    return fn("namespace", [](interpreter&, call_args& a) {
      auto ns = std::make_shared<namespace_object>();
      for (const auto& p : a.positional) {
        if (p.is_dict()) {
          for (const auto& [k, v] : p.map().entries) ns->put(k, v);
        }
      }
      for (const auto& [k, v] : a.keyword) ns->put(value(k), v);
      return value(object_ptr(std::move(ns)));
    });
  }
  if (name == "dict") {
    return fn("dict", [](interpreter&, call_args& a) {
      auto d = std::make_shared<dict>();
      for (const auto& p : a.positional) {
        if (p.is_dict()) *d = p.map();
      }
      for (const auto& [k, v] : a.keyword) d->set(value(k), v);
      return value(dict_ptr(std::move(d)));
    });
  }
  if (name == "raise_exception") {
    return fn("raise_exception", [](interpreter&, call_args& a) -> value {
      fail(error_code::template_raised, a.positional.empty() ? "" : to_str(a.positional[0]));
    });
  }
  if (name == "strftime_now") {
    return fn("strftime_now", [](interpreter& in, call_args& a) {
      const std::string f = to_str(need(a, 0, "format", "strftime_now"));
      // No conversion writes more than 64 bytes: a buffer of 64 per format byte holds any
      // result (it was 256 bytes, and a longer result came out as ''). Python formats a
      // NUL in the format as itself; strftime stops there, so each piece is done apart.
      std::string out;
      std::size_t b = 0;
      while (b <= f.size()) {
        const std::size_t e = std::min(f.find('\0', b), f.size());
        const std::string piece = f.substr(b, e - b);
        check_size_sum(out.size(), piece.size() * 64 + 1);
        std::string buf(piece.size() * 64 + 1, '\0');
        const std::size_t n = std::strftime(buf.data(), buf.size(), piece.c_str(), &in.now);
        out.append(buf.data(), n);
        if (e == f.size()) break;
        out.push_back('\0');
        b = e + 1;
      }
      return value(std::move(out));
    });
  }
  return value::undefined();
}

}  // namespace ocml::tmpl
