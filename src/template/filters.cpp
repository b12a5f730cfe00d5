// SPDX-License-Identifier: Apache-2.0
// The built-in filters, with Jinja2 3.1's behaviour.
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

namespace {

using namespace builtin;  // NOLINT(google-build-using-namespace)

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

}  // namespace

const filter_fn* find_filter(std::string_view name) {
  for (const auto& f : kFilters) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace ocml::tmpl
