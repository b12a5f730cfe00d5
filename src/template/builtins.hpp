// SPDX-License-Identifier: Apache-2.0
// The built-in filters, tests, global functions and methods of str, list and dict that
// chat templates use, with Jinja2's and Python's behaviour.
#pragma once

#include <string_view>

#include "template/value.hpp"

namespace ocml::tmpl {

class interpreter;

struct filter_fn {
  std::string_view name;
  value (*fn)(interpreter& in, const value& input, call_args& args);
};
struct test_fn {
  std::string_view name;
  bool (*fn)(interpreter& in, const value& input, call_args& args);
};

/// The filter or test of that name, or nullptr (a compile error, as in Jinja2).
[[nodiscard]] const filter_fn* find_filter(std::string_view name);
[[nodiscard]] const test_fn* find_test(std::string_view name);
/// A global function (range, namespace, dict, raise_exception, strftime_now), or
/// undefined. Jinja2's cycler, joiner and lipsum are not provided: none of the reference
/// chat templates uses them.
[[nodiscard]] value builtin_global(std::string_view name);
/// `obj.name` as a method of str, list or dict (bound), or undefined. Methods that would
/// change a list or dict are refused when called (E-TEMPLATE-SECURITY), as transformers'
/// immutable sandbox refuses them.
[[nodiscard]] value method_of(const value& obj, std::string_view name);

namespace builtin {
/// Whether a dict has a method `name` (items, keys, values, get, copy, and the refused
/// pop, popitem, update, setdefault, clear): dict_method's list.
[[nodiscard]] bool dict_has_method(std::string_view name);
}  // namespace builtin

}  // namespace ocml::tmpl
