// SPDX-License-Identifier: Apache-2.0
// Python's str case methods and case predicates on full Unicode, as CPython computes them:
// full case mappings (ß.upper() is "SS", İ.lower() is "i̇"), the final sigma of lower(),
// title() and capitalize() by CPython's rules (cased / case-ignorable, not word breaks),
// casefold() as full case folding. Character data come from ICU.
#pragma once

#include <string>
#include <string_view>

namespace ocml::tmpl {

enum class py_case { upper, lower, title, capitalize, swapcase, casefold };

/// s.upper(), s.lower(), s.title(), s.capitalize(), s.swapcase() or s.casefold().
///
///   py_str_case("straße ΟΔΟΣ", py_case::upper) == "STRASSE ΟΔΟΣ"
///   py_str_case("ΟΔΟΣ", py_case::lower) == "οδος"  // final sigma
[[nodiscard]] std::string py_str_case(std::string_view s, py_case how);

/// Jinja2's `title` filter: each piece after white space, '-', '(', '{', '[' or '<'
/// upper-cased in its first character and lower-cased in the rest.
[[nodiscard]] std::string jinja_title(std::string_view s);

enum class py_pred { isupper, islower, istitle, isalpha, isdigit, isdecimal, isnumeric, isalnum };

/// s.isupper(), s.islower(), s.istitle(), s.isalpha(), s.isdigit(), s.isdecimal(),
/// s.isnumeric() or s.isalnum().
[[nodiscard]] bool py_str_is(std::string_view s, py_pred what);

}  // namespace ocml::tmpl
