// SPDX-License-Identifier: Apache-2.0
// The values a chat template computes with, as Python and Jinja2 see them: Undefined, None,
// bool, int, float, str, list, dict, and objects (namespaces, macros, bound methods, the
// loop variable). Lists and dicts are shared and never changed once built (the sandbox is
// immutable); a namespace is the one mutable object.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ocml/error.hpp"
#include "ocml/model.hpp"
#include "ocml/text_buffer.hpp"

namespace ocml::tmpl {

/// The shared pointer of template values. Their counts are not atomic: a render's values
/// belong to its thread, and what a compiled template holds is never counted (see
/// `value::immortal`). libstdc++'s single-threaded policy where it exists, the standard
/// shared_ptr elsewhere.
#if defined(__GLIBCXX__)
template <class T>
using rc = std::__shared_ptr<T, __gnu_cxx::_S_single>;
template <class T, class... A>
[[nodiscard]] rc<T> make_rc(A&&... a) {
  return std::__make_shared<T, __gnu_cxx::_S_single>(std::forward<A>(a)...);
}
#else
template <class T>
using rc = std::shared_ptr<T>;
template <class T, class... A>
[[nodiscard]] rc<T> make_rc(A&&... a) {
  return make_rc<T>(std::forward<A>(a)...);
}
#endif

struct value;
using list = std::vector<value>;
struct dict;
struct object;
using list_ptr = rc<const list>;
using dict_ptr = rc<const dict>;
using object_ptr = rc<object>;
/// Strings are shared: a lookup or a copy of a value never copies text.
using str_ptr = rc<const std::string>;

/// What an Undefined remembers for its error message: the name that was looked up, or
/// Jinja2's `_undefined_hint`, the whole message when used (e.g. "'None' has no attribute
/// 'lstrip'"); both empty: "value is undefined".
struct undefined_info {
  std::string name;
  std::string hint;
  /// Or a missing attribute, its hint written only if it is used (templates test for
  /// attributes far more often than they fail on one): "'OWNER object' has no attribute
  /// 'ATTR'" ("'None' has…" for None). `owner` is a type name: static text.
  std::string_view owner;
  std::string attr;
};
/// Jinja2's Undefined. One pointer, so that a value stays small (copied on every
/// evaluation); null when it remembers nothing.
struct undefined_t {
  rc<const undefined_info> info;
};
struct none_t {};

class value_data;
/// The dict a request's JSON object stands for, built the first time it is read and kept
/// for the rest of the render (template/request_values.cpp).
[[nodiscard]] const dict& view_map(const value_data& v);

/// What a value holds: its type (index(): 0 Undefined, 1 None, 2 bool, 3 int, 4 float,
/// 5 str, 6 list, 7 dict, 8 object), a scalar, and one shared pointer owning the string,
/// list, dict, object or Undefined's message whatever its type. Copying, moving and
/// dropping one is a few inline instructions (a std::variant dispatched through a table
/// of functions for each: the most frequent calls of a render).
class value_data {
 public:
  value_data() = default;
  value_data(undefined_t u) : p_(std::move(u.info)) {}  // NOLINT(google-explicit-constructor)
  value_data(none_t /*n*/) : t_{scalar{}, 1} {}         // NOLINT(google-explicit-constructor)
  value_data(bool b) : t_{scalar{}, 2} { t_.s.b = b; }  // NOLINT(google-explicit-constructor)
  value_data(std::int64_t i) : t_{scalar{}, 3} {
    t_.s.i = i;
  }                                                       // NOLINT(google-explicit-constructor)
  value_data(double d) : t_{scalar{}, 4} { t_.s.d = d; }  // NOLINT(google-explicit-constructor)
  value_data(str_ptr p)
      : p_(std::move(p)), t_{scalar{}, 5} {}  // NOLINT(google-explicit-constructor)
  value_data(list_ptr p)
      : p_(std::move(p)), t_{scalar{}, 6} {}  // NOLINT(google-explicit-constructor)
  value_data(dict_ptr p)
      : p_(std::move(p)), t_{scalar{}, 7} {}  // NOLINT(google-explicit-constructor)
  value_data(object_ptr p)
      : p_(std::move(p)), t_{scalar{}, 8} {}  // NOLINT(google-explicit-constructor)
  /// A dict not built yet: the JSON object at `where` of the request document `doc`
  /// (template/request_values.hpp), which outlives the render. Not counted.
  [[nodiscard]] static value_data json_object(const void* doc, std::uint64_t where) {
    value_data x;
    x.p_ = rc<const void>(rc<const void>(), doc);
    x.t_.s.i = static_cast<std::int64_t>(where);
    x.t_.tag = 7;
    x.t_.view = true;
    return x;
  }

  [[nodiscard]] std::size_t index() const noexcept { return t_.tag; }
  [[nodiscard]] bool b() const noexcept { return t_.s.b; }
  [[nodiscard]] std::int64_t i() const noexcept { return t_.s.i; }
  [[nodiscard]] double d() const noexcept { return t_.s.d; }
  /// The string, list, dict, object or Undefined's message held (null for a scalar).
  [[nodiscard]] const void* raw() const noexcept { return p_.get(); }
  [[nodiscard]] const std::string& str() const { return *static_cast<const std::string*>(raw()); }
  [[nodiscard]] const list& lst() const { return *static_cast<const list*>(raw()); }
  [[nodiscard]] const dict& map() const {
    return t_.view ? built_map() : *static_cast<const dict*>(raw());
  }
  /// A dict of the request not built yet (json_object), and where it stands.
  [[nodiscard]] bool view() const noexcept { return t_.view; }
  /// A request's JSON object, built or not: where() says where it stands in the thread's
  /// request document.
  [[nodiscard]] bool from_request() const noexcept { return t_.view || t_.built; }
  [[nodiscard]] std::uint64_t where() const noexcept { return static_cast<std::uint64_t>(t_.s.i); }
  /// The same list, dict or object: the same storage (for a view, the same JSON object).
  [[nodiscard]] bool same(const value_data& o) const {
    if (t_.view != o.t_.view) return &map() == &o.map();  // one copy was built through already
    return p_.get() == o.p_.get() && (!t_.view || t_.s.i == o.t_.s.i);
  }
  [[nodiscard]] object* obj() const {
    return const_cast<object*>(static_cast<const object*>(raw()));  // NOLINT
  }
  [[nodiscard]] const undefined_info* undef() const {
    return static_cast<const undefined_info*>(raw());
  }
  /// Whether this is the only count of what it holds (a value computed just now, not
  /// stored anywhere, and not a template's uncounted constant): it may then be changed.
  [[nodiscard]] bool sole() const noexcept { return p_.use_count() == 1; }
  /// The list held, shared (one more count).
  [[nodiscard]] list_ptr list_owner() const { return {p_, &lst()}; }
  /// The same value, its pointer not counted (value::borrow).
  [[nodiscard]] value_data uncounted() const {
    value_data x = *this;
    x.p_ = rc<const void>(rc<const void>(), p_.get());
    return x;
  }

 private:
  // A view's dict, built (view_map) and then held by this copy too, so that its next read
  // is a pointer, not a lookup by tape index (the render's request document keeps it).
  const dict& built_map() const;

  mutable rc<const void> p_;
  // All but the pointer in one trivially copied block, so that a copy or move of a value
  // is a few word moves (member by member, the compiler moved each flag byte apart).
  union scalar {
    bool b;
    std::int64_t i;
    double d;
  };
  struct tail {
    scalar s{};
    std::uint8_t tag = 0;
    bool view = false;
    bool built = false;  ///< a view built: p_ is its dict, s still says where
  };
  mutable tail t_;
};

/// One value. Strings are UTF-8; their Python length and indices count code points.
struct value {
  value_data v;
  /// A string that is Jinja2 Markup (from |safe, |escape): `+` with a plain str escapes the
  /// plain one, as markupsafe does.
  bool safe = false;
  /// A list that is a Python tuple (a tuple literal, a dict's items): printed "(1, 2)".
  bool tuple = false;
  /// A (grouper, list) tuple of the groupby filter: `.grouper` and `.list` read its items.
  bool group = false;
  /// Levels of lists, dicts, namespaces and generators below (0 for a scalar).
  std::uint32_t depth = 0;

  value() = default;
  // Copied and moved as the value_data and one 8-byte block of the flags and depth (member
  // by member, each flag was a byte moved apart: values are copied all the time).
  value(const value& o) : v(o.v) { copy_meta(o); }
  value(value&& o) noexcept : v(std::move(o.v)) { copy_meta(o); }
  value& operator=(const value& o) {
    v = o.v;
    copy_meta(o);
    return *this;
  }
  value& operator=(value&& o) noexcept {
    v = std::move(o.v);
    copy_meta(o);
    return *this;
  }
  ~value() = default;
  value(none_t n) : v(n) {}                          // NOLINT(google-explicit-constructor)
  value(bool b) : v(b) {}                            // NOLINT(google-explicit-constructor)
  value(std::int64_t i) : v(i) {}                    // NOLINT(google-explicit-constructor)
  value(int i) : v(static_cast<std::int64_t>(i)) {}  // NOLINT(google-explicit-constructor)
  value(double d) : v(d) {}                          // NOLINT(google-explicit-constructor)
  // (A string is made non-const and shared as const: the one holding its only count may
  // append to it, value_data::sole.)
  value(std::string s) : v(str_ptr(make_rc<std::string>(std::move(s)))) {}  // NOLINT
  value(std::string_view s) : v(str_ptr(make_rc<std::string>(s))) {}        // NOLINT
  value(const char* s) : v(str_ptr(make_rc<std::string>(s))) {}             // NOLINT
  // Containers know how deep they nest (bounded: see kMaxValueDepth).
  value(list l) : v(make_rc<const list>(std::move(l))) { measure(); }  // NOLINT
  value(list_ptr l) : v(std::move(l)) { measure(); }                   // NOLINT
  value(dict_ptr d) : v(std::move(d)) { measure(); }                   // NOLINT
  value(object_ptr o) : v(std::move(o)) { measure(); }                 // NOLINT
  static value undefined(std::string name = {}) {
    value x;
    if (!name.empty()) {
      x.v = undefined_t{
          make_rc<const undefined_info>(undefined_info{std::move(name), std::string(), {}, {}})};
    }
    return x;
  }
  /// The request's JSON object at `where` of `doc`, read when used (value_data::json_object);
  /// `levels`: how deep it may nest at most.
  [[nodiscard]] static value json_object(const void* doc, std::uint64_t where,
                                         std::uint32_t levels) {
    value x;
    x.v = value_data::json_object(doc, where);
    x.depth = levels;
    return x;
  }
  /// The undefined of a missing attribute `attr` of a value of type `owner` (static text,
  /// "None" for None): Jinja2's hint "'OWNER object' has no attribute 'ATTR'".
  static value undefined_attr(std::string_view owner, std::string_view attr) {
    value x;
    x.v = undefined_t{make_rc<const undefined_info>(
        undefined_info{std::string(), std::string(), owner, std::string(attr)})};
    return x;
  }
  /// An undefined whose use raises `hint` as it is (Jinja2's undefined hint).
  static value undefined_hint(std::string hint) {
    value x;
    x.v = undefined_t{
        make_rc<const undefined_info>(undefined_info{std::string(), std::move(hint), {}, {}})};
    return x;
  }

  /// A copy of the scalar `owner` whose text, object or Undefined's message is not
  /// counted: copying it never touches a count, so the constants of a compiled template
  /// are read from any thread (the counts are not atomic). `owner` must outlive every
  /// copy. A list or dict (no constant is one) is copied as it is.
  [[nodiscard]] static value borrow(const value& owner);

  [[nodiscard]] bool is_undefined() const noexcept { return v.index() == 0; }
  [[nodiscard]] bool is_none() const noexcept { return v.index() == 1; }
  [[nodiscard]] bool is_bool() const noexcept { return v.index() == 2; }
  [[nodiscard]] bool is_int() const noexcept { return v.index() == 3; }
  [[nodiscard]] bool is_float() const noexcept { return v.index() == 4; }
  [[nodiscard]] bool is_number() const noexcept { return v.index() >= 2 && v.index() <= 4; }
  [[nodiscard]] bool is_string() const noexcept { return v.index() == 5; }
  [[nodiscard]] bool is_list() const noexcept { return v.index() == 6; }
  [[nodiscard]] bool is_dict() const noexcept { return v.index() == 7; }
  [[nodiscard]] bool is_object() const noexcept { return v.index() == 8; }

  [[nodiscard]] const std::string& str() const { return v.str(); }
  [[nodiscard]] const list& items() const { return v.lst(); }
  [[nodiscard]] const dict& map() const { return v.map(); }
  [[nodiscard]] object* obj() const { return v.obj(); }
  [[nodiscard]] std::int64_t as_int() const;  ///< bool or int
  [[nodiscard]] double as_double() const;     ///< bool, int or float

 private:
  struct meta {
    bool safe, tuple, group;
    std::uint32_t depth;
  };
  void copy_meta(const value& o) noexcept {
    meta m;
    std::memcpy(&m, &o.safe, sizeof m);  // safe … depth, laid out as `meta` is
    std::memcpy(&safe, &m, sizeof m);
  }
  // Sets `depth` from the items (E-LIMIT-EXCEEDED beyond kMaxValueDepth).
  void measure();
};

/// Whether the `n` bytes at `a` and `b` are the same: inline fixed-size loads for the short
/// names and keys templates compare all the time (a call of memcmp cost more than the rest
/// of a lookup), memcmp beyond 16 bytes.
[[nodiscard]] inline bool same_bytes(const char* a, const char* b, std::size_t n) noexcept {
  const auto load = [](const char* p, auto word) {
    std::memcpy(&word, p, sizeof word);
    return word;
  };
  if (n >= 8 && n <= 16) {
    return ((load(a, std::uint64_t{}) ^ load(b, std::uint64_t{})) |
            (load(a + n - 8, std::uint64_t{}) ^ load(b + n - 8, std::uint64_t{}))) == 0;
  }
  if (n >= 4 && n < 8) {
    return ((load(a, std::uint32_t{}) ^ load(b, std::uint32_t{})) |
            (load(a + n - 4, std::uint32_t{}) ^ load(b + n - 4, std::uint32_t{}))) == 0;
  }
  if (n < 4) {
    for (std::size_t i = 0; i < n; ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }
  return std::memcmp(a, b, n) == 0;
}

/// a == b for the names the engine tells apart at run time (a loop's attributes, methods):
/// the size first, then same_bytes (a call of string_view's compare each cost more).
[[nodiscard]] inline bool is_text(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && same_bytes(a.data(), b.data(), a.size());
}

/// How deep values may nest. Printing, comparing, serializing and freeing a value recurse
/// once per level, and a template can nest without end (`{% set ns.x = [ns.x] %}` in a
/// loop crashed at 3 000 000 levels), so a deeper value is refused where it is built
/// (Python's own repr and == stop at about 1 000 with RecursionError). JSON input nests at
/// most 1 024 (default_max_json_depth), leaving room for the request around it.
inline constexpr std::uint32_t kMaxValueDepth = 2000;

/// Refuses a depth beyond kMaxValueDepth (E-LIMIT-EXCEEDED).
void check_depth(std::uint32_t depth);

/// A dict: insertion-ordered, keys are values (strings nearly always). Entries are added
/// with set() only (a key, once in, stays): a dict of more than a few string keys indexes
/// them, so building or reading one of 10^5 keys is not quadratic.
struct dict {
  std::vector<std::pair<value, value>> entries;
  [[nodiscard]] const value* find(const value& key) const;
  [[nodiscard]] const value* find(std::string_view key) const;
  [[nodiscard]] const value* find(const char* key) const { return find(std::string_view(key)); }
  void set(value key, value v);

 private:
  static constexpr std::size_t kIndexFrom = 16;
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  [[nodiscard]] std::size_t slot(std::string_view key) const;
  // String key -> entry; the views point into the keys' shared strings, which a copy of
  // the dict shares too.
  std::unordered_map<std::string_view, std::size_t> index_;
};

/// A template failure: one of the E-TEMPLATE-* codes and Python's or Jinja2's message.
struct template_error {
  error_code code;
  std::string message;
  /// Offset in the template source of the statement that failed (set as the error leaves
  /// it; npos until then).
  std::size_t pos = static_cast<std::size_t>(-1);
};

/// Raises a template error (caught at the template's entry point).
[[noreturn]] void fail(error_code code, std::string message);
[[noreturn]] void type_error(std::string message);

/// Arguments of a call: positional, then keyword.
struct call_args {
  std::vector<value> positional;
  std::vector<std::pair<std::string, value>> keyword;
  [[nodiscard]] const value* kw(std::string_view name) const;
  /// Positional `i`, or keyword `name`, or nullptr.
  [[nodiscard]] const value* arg(std::size_t i, std::string_view name) const;
};

class interpreter;

/// A value with attributes or a call: namespace, macro, bound method, loop, cycler.
struct object {
  virtual ~object() = default;
  /// Levels of values it holds (a namespace's attributes, a generator's source), plus one.
  std::uint32_t depth = 0;
  [[nodiscard]] virtual std::string_view type_name() const = 0;
  /// The attribute `name`, or undefined.
  [[nodiscard]] virtual value attr(std::string_view name) const;
  /// Assigns an attribute (namespaces only; others raise).
  virtual void set_attr(std::string_view name, const value& v);
  [[nodiscard]] virtual bool callable() const { return false; }
  virtual value call(interpreter& in, call_args& args);
};

/// A callable `value(interpreter&, call_args&)` held in place: what a built-in function or
/// bound method captured (its self value and a flag or two, at most kRoom bytes) lives in
/// the function object itself, where std::function allocated it apart for every method a
/// template looked up.
class native_fn {
 public:
  static constexpr std::size_t kRoom = 64;
  template <class F>
  explicit native_fn(F f) {
    static_assert(sizeof(F) <= kRoom, "a built-in's captures must fit native_fn::kRoom");
    static_assert(alignof(F) <= alignof(std::max_align_t), "and be aligned as any object");
    ::new (static_cast<void*>(buf_)) F(std::move(f));
    call_ = [](void* p, interpreter& in, call_args& a) -> value {
      return (*static_cast<F*>(p))(in, a);
    };
    drop_ = [](void* p) noexcept { static_cast<F*>(p)->~F(); };
  }
  ~native_fn() { drop_(buf_); }
  native_fn(const native_fn&) = delete;
  native_fn& operator=(const native_fn&) = delete;
  value operator()(interpreter& in, call_args& a) { return call_(buf_, in, a); }

 private:
  alignas(std::max_align_t) unsigned char buf_[kRoom];  // NOLINT(*-avoid-c-arrays)
  value (*call_)(void*, interpreter&, call_args&);
  void (*drop_)(void*) noexcept;
};

/// A built-in function or bound method.
struct function_object final : object {
  std::string name;
  native_fn fn;
  template <class F>
  function_object(std::string n, F f) : name(std::move(n)), fn(std::move(f)) {}
  [[nodiscard]] std::string_view type_name() const override { return "builtin_function_or_method"; }
  [[nodiscard]] bool callable() const override { return true; }
  value call(interpreter& in, call_args& args) override { return fn(in, args); }
};

/// `namespace(...)`: the mutable object of templates.
struct namespace_object final : object {
  dict attrs;
  [[nodiscard]] std::string_view type_name() const override { return "Namespace"; }
  [[nodiscard]] value attr(std::string_view name) const override;
  void set_attr(std::string_view name, const value& v) override;
  /// Sets an attribute of any key (namespace(d) takes a dict's), its depth counted.
  void put(value key, const value& v);
};

/// A generator, as Jinja2's map, select, reject, selectattr, rejectattr, unique, batch and
/// items filters return one: its body runs as it is consumed (errors too), it is true even
/// when empty, has no len(), is not JSON, and is consumed once (a second loop sees nothing;
/// `first` takes one item and leaves the rest).
struct generator_object final : object {
  std::string name;  ///< the Python function's name ("sync_do_map"), for repr()
  /// The next item, or nullopt at the end (never called again after).
  std::function<std::optional<value>()> pull;
  [[nodiscard]] std::string_view type_name() const override { return "generator"; }
  std::optional<value> next();
};
/// A generator running `pull`; `source` is what it reads (its depth bounds chains of
/// generators, each pulling from the one before).
[[nodiscard]] value make_generator(std::string name, std::function<std::optional<value>()> pull,
                                   const value& source);
/// The generator a value holds, or nullptr.
[[nodiscard]] generator_object* as_generator(const value& v);

// ---- Python semantics ---------------------------------------------------------------------

/// Python's type name of a value ("str", "int", "NoneType", "Undefined"…).
[[nodiscard]] std::string_view type_name(const value& x);
/// bool(x). Undefined is false.
[[nodiscard]] bool truthy(const value& x);
/// x == y (1 == 1.0 == True; lists and dicts deeply; Undefined equals only Undefined).
[[nodiscard]] bool equal(const value& x, const value& y);
/// x < y, raising TypeError where Python does.
[[nodiscard]] bool less(const value& x, const value& y);
/// str(x) appended to `out`, as `{{ x }}` prints it (Undefined prints nothing).
void append_str(const value& x, std::string& out);
[[nodiscard]] std::string to_str(const value& x);
/// repr(x) appended to `out`.
void append_repr(const value& x, std::string& out);
/// json.dumps(x, ensure_ascii=False, indent=…, separators=…, sort_keys=…) as transformers'
/// tojson filter calls it. Raises TypeError for values JSON cannot hold.
struct dumps_options {
  std::int64_t indent = -1;  ///< -1: None
  std::string indent_text;   ///< a string indent (indent="\t")
  bool has_indent_text = false;
  std::string item_sep = ", ";
  std::string key_sep = ": ";
  bool sort_keys = false;
  bool ensure_ascii = false;  ///< non-ASCII as \uXXXX escapes
};
void dumps(const value& x, const dumps_options& o, std::string& out);
/// dumps's pieces, written into a text_buffer: a new line and `level` indents; a string
/// literal; an int.
void dumps_newline(const dumps_options& o, std::size_t level, text_buffer& out);
void dumps_string(std::string_view s, bool ensure_ascii, text_buffer& out);
void dumps_int(std::int64_t i, text_buffer& out);
void append_int(std::int64_t i, std::string& out);
/// dumps of a request's object not built yet (value_data::json_object), at indent `level`,
/// written straight from its JSON; false, with nothing written, where only the built dict
/// can say it (a key twice, its tool calls' arguments parsed, sort_keys).
[[nodiscard]] bool dumps_json_object(const value& x, const dumps_options& o, std::size_t level,
                                     text_buffer& out);

/// int(d) as Python computes it for a float that fits (TypeError for inf and nan; a value
/// beyond 64 bits is clamped: Python's integers have no bound, ocml's do).
[[nodiscard]] std::int64_t float_to_int(double d);

/// The template value of a JSON value (objects keep their key order).
[[nodiscard]] value from_json(const json& j);

/// A tuple of the given items.
[[nodiscard]] value make_tuple(list items);

/// markupsafe's escape: & < > " ' as entities.
[[nodiscard]] std::string html_escape(std::string_view s);

/// Number of code points of a UTF-8 string.
[[nodiscard]] std::size_t code_points(std::string_view s);
/// The byte offset of code point `k` of `s` (s.size() past the last): a walk over lead
/// bytes, no allocation (indexing a 10 MB string built a vector of every character).
[[nodiscard]] std::size_t code_point_offset(std::string_view s, std::size_t k);
/// The code points of `s` as UTF-8 pieces.
[[nodiscard]] std::vector<std::string_view> code_point_pieces(std::string_view s);

}  // namespace ocml::tmpl
