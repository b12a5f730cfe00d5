// SPDX-License-Identifier: Apache-2.0
// The built-in filters on strings and numbers, with Jinja2 3.1's behaviour (the others:
// filters.cpp).
#include <algorithm>
#include <cmath>

#include "core/utf8.hpp"
#include "template/bigint.hpp"
#include "template/builtin_support.hpp"
#include "template/format_spec.hpp"
#include "template/interpreter.hpp"
#include "template/python_json.hpp"
#include "template/text_filters.hpp"
#include "template/unicode_case.hpp"

namespace ocml::tmpl::builtin {

using call = call_args;

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
    auto d = make_rc<dict>();
    for (const auto& [k, x] : a.keyword) d->set(value(k), x);
    return binary_op("%", v, value(dict_ptr(std::move(d))));
  }
  return binary_op("%", v, make_tuple(a.positional));
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

}  // namespace ocml::tmpl::builtin
