// SPDX-License-Identifier: Apache-2.0
// Text-shaping builtins as Python and Jinja2 write them: str.splitlines, the wordwrap
// filter (textwrap.wrap), urlize (jinja2.utils.urlize) and pprint (pprint.pformat).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "template/value.hpp"

namespace ocml::tmpl {

/// str.splitlines: breaks at \n, \r, \r\n, \v, \f, \x1c-\x1e, \x85, U+2028, U+2029.
///
///   py_splitlines("a\r\nb", true)  // {"a\r\n", "b"}
[[nodiscard]] std::vector<std::string> py_splitlines(const std::string& s, bool keepends);

/// Options of the wordwrap filter (Jinja2's defaults).
struct wordwrap_options {
  std::int64_t width = 79;
  bool break_long_words = true;
  std::string wrapstring = "\n";
  bool break_on_hyphens = true;
};

/// Jinja2's wordwrap: each line of `s` wrapped by textwrap.wrap (tabs and white space kept,
/// white space dropped at the breaks) and the lines joined by `wrapstring`.
///
///   py_wordwrap("a b c", {.width = 3})  // "a b\nc"
[[nodiscard]] std::string py_wordwrap(const std::string& s, const wordwrap_options& o);

/// Options of the urlize filter, after Jinja2's policies are applied (rel "noopener").
struct urlize_options {
  std::optional<std::int64_t> trim_url_limit;
  std::string rel;     ///< empty: no rel attribute
  std::string target;  ///< empty: no target attribute
  std::vector<std::string> extra_schemes;
};

/// jinja2.utils.urlize: the text HTML-escaped, with http(s)://, www., bare domains of the
/// classic TLDs and e-mail addresses made links.
///
///   jinja_urlize("see www.example.com.", {.rel = "noopener"})
///   // "see <a href=\"https://www.example.com\" rel=\"noopener\">www.example.com</a>."
[[nodiscard]] std::string jinja_urlize(const std::string& text, const urlize_options& o);

/// pprint.pformat(v): repr with dict keys sorted, wrapped at 80 columns as pprint lays out
/// lists, tuples, dicts and long strings.
///
///   py_pformat(value(dict{{"b", 1}, {"a", 2}}))  // "{'a': 2, 'b': 1}"
[[nodiscard]] std::string py_pformat(const value& v);

}  // namespace ocml::tmpl
