// SPDX-License-Identifier: Apache-2.0
// The built-in tests and global functions, with Jinja2 3.1's behaviour (filters:
// filters.cpp; methods of str, list and dict: methods.cpp).
#include "template/builtins.hpp"

#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <array>
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

namespace {

using namespace builtin;  // NOLINT(google-build-using-namespace)
using call = call_args;

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
  return v.is_bool() && v.v.b();
}
bool t_false(interpreter&, const value& v, call&) {
  return v.is_bool() && !v.v.b();
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
  // A list or dict is itself only (Python's `is`): the same storage, or the same object of
  // the request.
  if (v.is_list() || v.is_dict()) {
    return v.v.index() == o.v.index() && v.tuple == o.tuple && v.v.same(o.v);
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

const test_fn* find_test(std::string_view name) {
  for (const auto& t : kTests) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

namespace {

// The built-in global function `name` (one of kGlobals), made anew.
value make_global(std::string_view name) {
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
      auto ns = make_rc<namespace_object>();
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
      auto d = make_rc<dict>();
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

constexpr std::array<std::string_view, 5> kGlobals = {"range", "namespace", "dict",
                                                      "raise_exception", "strftime_now"};

}  // namespace

value builtin_global(std::string_view name) {
  // Most names asked for here are the template's own that are not set (`x is defined`):
  // the first byte turns them away before the names are compared.
  switch (name.empty() ? '\0' : name[0]) {
    case 'r':  // range, raise_exception
    case 'n':  // namespace
    case 'd':  // dict
    case 's':  // strftime_now
      break;
    default:
      return value::undefined();
  }
  // Each made once for the process (they hold no state) and handed out uncounted: a call of
  // namespace() or raise_exception() no longer builds its function first. The uncounted
  // copies are made once too, with the owners: value::borrow copies its owner (a count up
  // and down, not atomic), so borrowing on every call from several threads raced on the
  // owners' counts and freed one (found by Template.OneCompiledTemplateRendersFromManyThreads
  // under AddressSanitizer). Copying an uncounted value touches no count.
  struct globals {
    std::array<value, kGlobals.size()> owners;
    std::array<value, kGlobals.size()> lent;
  };
  static const globals made = [] {
    globals g;
    for (std::size_t i = 0; i < kGlobals.size(); ++i) {
      g.owners[i] = make_global(kGlobals[i]);
      g.lent[i] = value::borrow(g.owners[i]);
    }
    return g;
  }();
  for (std::size_t i = 0; i < kGlobals.size(); ++i) {
    if (is_text(name, kGlobals[i])) return made.lent[i];
  }
  return value::undefined();
}

}  // namespace ocml::tmpl
