// SPDX-License-Identifier: Apache-2.0
// The methods of str, list and dict that chat templates call, with Python's behaviour.
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
#include "template/builtin_support.hpp"
#include "template/format_spec.hpp"
#include "template/interpreter.hpp"
#include "template/text_filters.hpp"
#include "template/unicode_case.hpp"

namespace ocml::tmpl {

namespace builtin {

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
  // Each method holds `self` (one more count), not a copy of its text.
  const std::string_view n = name;  // (no copy: most names asked for are no method)
  if (is_text(name, "strip") || is_text(name, "lstrip") || is_text(name, "rstrip")) {
    const bool l = !is_text(name, "rstrip");
    const bool r = !is_text(name, "lstrip");
    return fn(n, [self, l, r](interpreter&, call_args& a) {
      const std::string& s = self.str();
      return value(py_strip(s, a.arg(0, "chars"), l, r));
    });
  }
  static const std::pair<std::string_view, py_case> cases[] = {
      {"upper", py_case::upper},       {"lower", py_case::lower},
      {"title", py_case::title},       {"capitalize", py_case::capitalize},
      {"swapcase", py_case::swapcase}, {"casefold", py_case::casefold},
  };
  for (const auto& [cn, how] : cases) {
    if (is_text(name, cn)) {
      return fn(n, [self, how = how](interpreter&, call_args&) {
        const std::string& s = self.str();
        return value(py_str_case(s, how));
      });
    }
  }
  if (is_text(name, "split") || is_text(name, "rsplit")) {
    const bool right = is_text(name, "rsplit");
    return fn(n, [self, right](interpreter&, call_args& a) {
      const std::string& s = self.str();
      const value m = opt(a, 1, "maxsplit", value(-1));
      return str_list(py_split(s, a.arg(0, "sep"), m.as_int(), right));
    });
  }
  if (is_text(name, "splitlines")) {
    return fn(n, [self](interpreter&, call_args& a) {
      const std::string& s = self.str();
      return str_list(py_splitlines(s, truthy(opt(a, 0, "keepends", value(false)))));
    });
  }
  if (is_text(name, "startswith") || is_text(name, "endswith")) {
    const bool pre = is_text(name, "startswith");
    return fn(n, [self, pre](interpreter&, call_args& a) {
      const std::string& s = self.str();
      return value(affix(s, need(a, 0, "prefix", pre ? "startswith" : "endswith"), pre));
    });
  }
  if (is_text(name, "replace")) {
    return fn(n, [self](interpreter&, call_args& a) {
      const std::string& s = self.str();
      return value(py_replace(s, need_str(need(a, 0, "old", "replace"), "replace arg"),
                              need_str(need(a, 1, "new", "replace"), "replace arg"),
                              opt(a, 2, "count", value(-1)).as_int()));
    });
  }
  if (is_text(name, "find") || is_text(name, "rfind") || is_text(name, "index") ||
      is_text(name, "rindex") || is_text(name, "count")) {
    return fn(n, [self, n](interpreter&, call_args& a) -> value {
      const std::string& s = self.str();
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
  if (is_text(name, "join")) {
    return fn(n, [self](interpreter&, call_args& a) {
      const std::string& s = self.str();
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
  if (is_text(name, "format")) {
    return fn(n, [self](interpreter&, call_args& a) {
      const std::string& s = self.str();
      return value(py_format(s, a));
    });
  }
  if (is_text(name, "removeprefix") || is_text(name, "removesuffix")) {
    const bool pre = is_text(name, "removeprefix");
    return fn(n, [self, pre](interpreter&, call_args& a) {
      const std::string& s = self.str();
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
    if (is_text(name, pn)) {
      return fn(n, [self, p = p](interpreter&, call_args&) {
        const std::string& s = self.str();
        return value(py_str_is(s, p));
      });
    }
  }
  if (is_text(name, "isspace")) {
    return fn(n, [self](interpreter&, call_args&) {
      const std::string& s = self.str();
      return value(all_of_cps(s, [](char32_t c) { return py_space(c); }));
    });
  }
  return value::undefined();
}

bool dict_has_method(std::string_view name) {
  // Asked for every `d.key` of a template: told apart by size first, no call.
  switch (name.size()) {
    case 3:
      return is_text(name, "get") || is_text(name, "pop");
    case 4:
      return is_text(name, "keys") || is_text(name, "copy");
    case 5:
      return is_text(name, "items") || is_text(name, "clear");
    case 6:
      return is_text(name, "values") || is_text(name, "update");
    case 7:
      return is_text(name, "popitem");
    case 10:
      return is_text(name, "setdefault");
    default:
      return false;
  }
}

value dict_method(const value& self, std::string_view name) {
  if (!dict_has_method(name)) return value::undefined();
  const value& d = self;
  const std::string_view n = name;  // (no copy: most names asked for are no method)
  if (is_text(name, "items")) {
    return fn(n, [d](interpreter&, call_args&) {
      list out;
      for (const auto& [k, v] : d.map().entries) out.push_back(make_tuple(list{k, v}));
      return value(std::move(out));
    });
  }
  if (is_text(name, "keys") || is_text(name, "values")) {
    const bool keys = is_text(name, "keys");
    return fn(n, [d, keys](interpreter&, call_args&) {
      list out;
      for (const auto& [k, v] : d.map().entries) out.push_back(keys ? k : v);
      return value(std::move(out));
    });
  }
  if (is_text(name, "get")) {
    return fn(n, [d](interpreter&, call_args& a) {
      const value* v = d.map().find(need(a, 0, "key", "get"));
      return v != nullptr ? *v : opt(a, 1, "default", value(none_t{}));
    });
  }
  if (is_text(name, "copy")) {
    return fn(n, [d](interpreter&, call_args&) {
      value copy = d;
      return copy;
    });
  }
  for (const std::string_view u : {"pop", "popitem", "update", "setdefault", "clear"}) {
    if (is_text(name, u)) return unsafe_method("dict", name);
  }
  return value::undefined();
}

value list_method(const value& self, std::string_view name) {
  const value& l = self;
  const std::string_view n = name;  // (no copy: most names asked for are no method)
  if (is_text(name, "index") || is_text(name, "count")) {
    const bool idx = is_text(name, "index");
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
    if (is_text(name, u)) return unsafe_method("list", name);
  }
  return value::undefined();
}

}  // namespace builtin

value method_of(const value& obj, std::string_view name) {
  if (obj.is_string()) return builtin::string_method(obj, name);
  if (obj.is_dict()) return builtin::dict_method(obj, name);
  if (obj.is_list()) return builtin::list_method(obj, name);
  return value::undefined();
}

}  // namespace ocml::tmpl
