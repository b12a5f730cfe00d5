// SPDX-License-Identifier: Apache-2.0
// What the built-in filters, tests, globals and methods share: argument access and the few
// Python string functions both methods and filters call.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/utf8.hpp"
#include "template/interpreter.hpp"
#include "template/value.hpp"

namespace ocml::tmpl::builtin {

/// A built-in function named `name` calling `f` (a lambda of value(interpreter&, call_args&)).
template <class F>
value fn(std::string_view name, F f) {
  return value(object_ptr(make_rc<function_object>(std::string(name), std::move(f))));
}

inline const value& need(const call_args& a, std::size_t i, std::string_view name,
                         std::string_view who) {
  const value* v = a.arg(i, name);
  if (v == nullptr) {
    type_error(std::string(who) + "() missing required argument: '" + std::string(name) + "'");
  }
  return *v;
}

inline value opt(const call_args& a, std::size_t i, std::string_view name, const value& def) {
  const value* v = a.arg(i, name);
  return v != nullptr ? *v : def;
}

inline const std::string& need_str(const value& v, std::string_view what) {
  if (!v.is_string()) {
    type_error(std::string(what) + " must be str, not " + std::string(type_name(v)));
  }
  return v.str();
}

using detail::decode_utf8;
using detail::py_isspace;
inline constexpr auto decode = decode_utf8;
inline constexpr auto py_space = py_isspace;

/// str.strip/lstrip/rstrip: `chars` null or none means white space.
[[nodiscard]] std::string py_strip(std::string_view s, const value* chars, bool left, bool right);
/// str.split/rsplit: `sep` null or none splits on runs of white space.
[[nodiscard]] std::vector<std::string> py_split(const std::string& s, const value* sep,
                                                std::int64_t maxsplit, bool from_right);
/// str.replace, bounded before the result is built.
[[nodiscard]] std::string py_replace(const std::string& s, const std::string& old,
                                     const std::string& rep, std::int64_t count);

/// The filters on strings and numbers (filters_text.cpp), for the table in filters.cpp.
value f_upper(interpreter& in, const value& v, call_args& a);
value f_lower(interpreter& in, const value& v, call_args& a);
value f_capitalize(interpreter& in, const value& v, call_args& a);
value f_title(interpreter& in, const value& v, call_args& a);
value f_trim(interpreter& in, const value& v, call_args& a);
value f_string(interpreter& in, const value& v, call_args& a);
value f_safe(interpreter& in, const value& v, call_args& a);
value f_forceescape(interpreter& in, const value& v, call_args& a);
value f_escape(interpreter& in, const value& v, call_args& a);
value f_replace(interpreter& in, const value& v, call_args& a);
value f_tojson(interpreter& in, const value& v, call_args& a);
value f_int(interpreter& in, const value& v, call_args& a);
value f_float(interpreter& in, const value& v, call_args& a);
value f_abs(interpreter& in, const value& v, call_args& a);
value f_round(interpreter& in, const value& v, call_args& a);
value f_indent(interpreter& in, const value& v, call_args& a);
value f_wordcount(interpreter& in, const value& v, call_args& a);
value f_wordwrap(interpreter& in, const value& v, call_args& a);
value f_urlize(interpreter& in, const value& v, call_args& a);
value f_pprint(interpreter& in, const value& v, call_args& a);
value f_center(interpreter& in, const value& v, call_args& a);
value f_format(interpreter& in, const value& v, call_args& a);
value f_filesizeformat(interpreter& in, const value& v, call_args& a);
value f_urlencode(interpreter& in, const value& v, call_args& a);
value f_xmlattr(interpreter& in, const value& v, call_args& a);
value f_attr(interpreter& in, const value& v, call_args& a);
value f_striptags(interpreter& in, const value& v, call_args& a);
value f_truncate(interpreter& in, const value& v, call_args& a);

}  // namespace ocml::tmpl::builtin
