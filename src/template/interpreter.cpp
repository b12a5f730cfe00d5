// SPDX-License-Identifier: Apache-2.0
// Evaluating templates: scopes, statements, and Python's operators.
#include "template/interpreter.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "template/bigint.hpp"
#include "template/builtins.hpp"
#include "template/lexer.hpp"

namespace ocml::tmpl {

const value* named_values::find(std::string_view name) const {
  for (const auto& [k, v] : vars) {
    if (is_text(k, name)) return &v;
  }
  return nullptr;
}

void named_values::set(std::string_view name, value v) {
  if (index_.empty() && vars.size() >= kIndexFrom) {
    for (std::size_t i = 0; i < vars.size(); ++i) index_.emplace(vars[i].first, i);
  }
  if (!index_.empty()) {
    const auto [it, added] = index_.emplace(std::string(name), vars.size());
    if (!added) {
      vars[it->second].second = std::move(v);
      return;
    }
  } else {
    for (auto& [k, val] : vars) {
      if (is_text(k, name)) {
        val = std::move(v);
        return;
      }
    }
  }
  vars.emplace_back(std::string(name), std::move(v));
}

// A scope past kIndexFrom variables, or one that is indexed already.
void frame::set_indexed(std::uint32_t id, value v) {
  if (value* at = const_cast<value*>(own(id))) {  // NOLINT(*-const-cast): our own storage
    *at = std::move(v);
    return;
  }
  vars_.emplace_back(id, std::move(v));
  for (std::size_t i = index_.empty() ? 0 : vars_.size() - 1; i < vars_.size(); ++i) {
    const std::uint32_t k = vars_[i].first;
    if (k >= index_.size()) index_.resize(static_cast<std::size_t>(k) + 1, 0);
    index_[k] = static_cast<std::uint32_t>(i + 1);
  }
}

void frame::truncate(std::size_t n) {
  if (n >= vars_.size()) return;
  if (!index_.empty()) {
    for (std::size_t i = n; i < vars_.size(); ++i) index_[vars_[i].first] = 0;
  }
  vars_.resize(n);
}

namespace {

// The limits of the template running on this thread (check_size needs them in operations
// that have no interpreter at hand).
thread_local const limits* running_limits = nullptr;

}  // namespace

void check_size(std::size_t bytes) {
  if (running_limits != nullptr && bytes > running_limits->max_value) {
    fail(error_code::limit_exceeded, "a value of " + std::to_string(bytes) +
                                         " bytes is beyond the template's limit of " +
                                         std::to_string(running_limits->max_value));
  }
}

void check_size_sum(std::size_t a, std::size_t b) {
  check_size(a + b < a ? static_cast<std::size_t>(-1) : a + b);
}

void check_size_product(std::size_t a, std::size_t b) {
  std::size_t r = 0;
  check_size(__builtin_mul_overflow(a, b, &r) ? static_cast<std::size_t>(-1) : r);
}

interpreter::interpreter(const program& p, const named_values& globals, const limits& l,
                         std::string& out)
    : lim(l), prog_(p), scope_(&root_), out_(&out), saved_limits_(running_limits) {
  globals_.reserve(globals.vars.size());
  for (const auto& [name, v] : globals.vars) {
    if (const std::uint32_t* id = p.names.find(name)) globals_.set(*id, v);
  }
  root_.parent = &globals_;
  top_out_ = &out;
  running_limits = &lim;
}

interpreter::~interpreter() {
  running_limits = saved_limits_;
}

const template_error* interpreter::run() {
  exec_body(prog_.content);
  return control == flow::error ? &*pending_ : nullptr;
}

value interpreter::lookup(std::uint32_t id) const {
  if (const value* v = scope_->find(id)) return *v;
  return value::undefined();
}

void interpreter::write(std::string_view s) {
  if (out_->size() + s.size() > lim.max_output) {
    fail(error_code::limit_exceeded,
         "the template's output exceeds " + std::to_string(lim.max_output) + " bytes");
  }
  out_->append(s);
}

void interpreter::step() {
  if (++steps_ > lim.max_steps) {
    fail(error_code::limit_exceeded, "the template ran more than " + std::to_string(lim.max_steps) +
                                         " loop iterations and calls");
  }
}

void interpreter::exec_body(const body& b) {
  // An error thrown while a statement runs is caught here, by the innermost body, and kept
  // (the first one: what follows an error is not looked at): control becomes flow::error,
  // and every statement around returns, down to run(), which throws it once. Unwinding
  // stops at the failing statement instead of walking every frame up to the render (an
  // error cost ~90 000 instructions, most of them the unwinder's, per frame). The statement
  // running stays the failing one: it names where the template failed, as Jinja2's
  // traceback gives its line.
  if (control == flow::error) return;  // (a macro called after the error, in an expression)
  const std::size_t enclosing = stmt_pos_;
  for (const auto& n : b) {
    stmt_pos_ = n->pos;
    try {
      n->exec(*this);
    } catch (template_error& e) {
      keep_error(std::move(e));
      return;
    }
    if (control != flow::normal) {
      if (control != flow::error) stmt_pos_ = enclosing;
      return;
    }
    stmt_pos_ = enclosing;
  }
}

void interpreter::keep_error(template_error&& e) {
  if (control == flow::error) return;  // the first error is the template's
  if (e.pos == static_cast<std::size_t>(-1)) e.pos = stmt_pos_;
  pending_ = std::move(e);
  control = flow::error;
}

std::string interpreter::capture(const body& b) {
  std::string buf;
  std::string* saved = out_;
  out_ = &buf;  // the output limit applies to what is captured as well
  struct restore {
    interpreter& in;
    std::string* s;
    ~restore() { in.out_ = s; }
  } r{*this, saved};
  exec_body(b);
  return buf;
}

// ---- operations ---------------------------------------------------------------------------

void check_defined(const value& x) {
  if (!x.is_undefined()) return;
  const undefined_info* u = x.v.undef();
  if (u == nullptr) fail(error_code::template_undefined, "value is undefined");
  if (!u->hint.empty()) fail(error_code::template_undefined, u->hint);
  if (!u->owner.empty()) {
    fail(error_code::template_undefined,
         "'" + (u->owner == "None" ? std::string("None") : std::string(u->owner) + " object") +
             "' has no attribute '" + u->attr + "'");
  }
  fail(error_code::template_undefined,
       u->name.empty() ? "value is undefined" : "'" + u->name + "' is undefined");
}

namespace {

// Jinja2's object_type_repr: "None" for None, "TYPE object" otherwise.
std::string type_repr(const value& obj) {
  return obj.is_none() ? std::string("None") : std::string(type_name(obj)) + " object";
}

value undefined_attr(const value& obj, std::string_view name) {
  return value::undefined_attr(obj.is_none() ? std::string_view("None") : type_name(obj), name);
}

// Python's index for `i` in a sequence of `n` (negative from the end); false when out.
bool py_index(std::int64_t i, std::size_t n, std::size_t& out) {
  const auto len = static_cast<std::int64_t>(n);
  if (i < 0) i += len;
  if (i < 0 || i >= len) return false;
  out = static_cast<std::size_t>(i);
  return true;
}

}  // namespace

value get_attr(const value& obj, std::string_view name) {
  check_defined(obj);
  if (obj.is_object()) return obj.obj()->attr(name);
  if (obj.group && (name == "grouper" || name == "list")) return obj.items()[name == "list"];
  value m = method_of(obj, name);
  if (!m.is_undefined()) return m;
  if (obj.is_dict()) {
    if (const value* v = obj.map().find(name)) return *v;
  }
  return undefined_attr(obj, name);
}

value get_item(const value& obj, const value& key) {
  check_defined(obj);
  if (obj.is_dict()) {
    if (const value* v = obj.map().find(key)) return *v;
    // Jinja2's getitem falls back to getattr: d['items'] without such a key is the method.
    if (key.is_string()) {
      value m = method_of(obj, key.str());
      if (!m.is_undefined()) return m;
    }
  } else if (obj.is_list() && (key.is_int() || key.is_bool())) {
    std::size_t i = 0;
    if (py_index(key.as_int(), obj.items().size(), i)) return obj.items()[i];
  } else if (obj.is_string() && (key.is_int() || key.is_bool())) {
    const std::string& str = obj.str();
    const std::size_t n = code_points(str);
    std::size_t i = 0;
    if (py_index(key.as_int(), n, i)) {
      if (n == str.size()) return value(str.substr(i, 1));  // ASCII
      const std::size_t at = code_point_offset(str, i);
      return value(str.substr(at, code_point_offset(std::string_view(str).substr(at), 1)));
    }
  } else if (obj.is_object() && key.is_string()) {
    return obj.obj()->attr(key.str());
  }
  if (key.is_string() && !obj.is_dict()) return get_attr(obj, key.str());
  if (key.is_string()) return undefined_attr(obj, key.str());
  return value::undefined_hint(type_repr(obj) + " has no element " + to_str(key));
}

value call_value(interpreter& in, const value& fn, call_args& args) {
  check_defined(fn);
  if (!fn.is_object() || !fn.obj()->callable()) {
    type_error("'" + std::string(type_name(fn)) + "' object is not callable");
  }
  in.step();
  return fn.obj()->call(in, args);
}

list iterate(const value& x) {
  if (x.is_undefined()) return {};
  if (x.is_list()) return x.items();
  if (x.is_string()) {
    list out;
    for (const auto p : code_point_pieces(x.str())) out.emplace_back(p);
    return out;
  }
  if (x.is_dict()) {
    list out;
    for (const auto& [k, v] : x.map().entries) out.push_back(k);
    return out;
  }
  if (generator_object* g = as_generator(x)) {  // consumed: a second pass sees nothing
    list out;
    while (auto v = g->next()) out.push_back(std::move(*v));
    return out;
  }
  type_error("'" + std::string(type_name(x)) + "' object is not iterable");
}

std::size_t length(const value& x) {
  if (x.is_undefined()) return 0;
  if (x.is_string()) return code_points(x.str());
  if (x.is_list()) return x.items().size();
  if (x.is_dict()) return x.map().entries.size();
  type_error("object of type '" + std::string(type_name(x)) + "' has no len()");
}

bool contains(const value& container, const value& item) {
  if (container.is_string()) {
    if (!item.is_string()) {
      type_error("'in <string>' requires string as left operand, not " +
                 std::string(type_name(item)));
    }
    return container.str().find(item.str()) != std::string::npos;
  }
  if (container.is_dict()) return container.map().find(item) != nullptr;
  if (container.is_list()) {
    return std::any_of(container.items().begin(), container.items().end(),
                       [&](const value& e) { return equal(e, item); });
  }
  if (container.is_undefined()) return false;
  if (generator_object* g = as_generator(container)) {  // consumed up to the match, as Python
    while (auto v = g->next()) {
      if (equal(*v, item)) return true;
    }
    return false;
  }
  type_error("argument of type '" + std::string(type_name(container)) + "' is not iterable");
}

namespace {

[[noreturn]] void unsupported(std::string_view op, const value& l, const value& r) {
  type_error("unsupported operand type(s) for " + std::string(op) + ": '" +
             std::string(type_name(l)) + "' and '" + std::string(type_name(r)) + "'");
}

value repeat(const value& seq, std::int64_t n) {
  const std::size_t unit = seq.is_string() ? seq.str().size() : seq.items().size() * 16;
  if (n <= 0 || unit == 0) return seq.is_string() ? value("") : value(list{});
  check_size_product(unit, static_cast<std::size_t>(n));
  if (seq.is_string()) {
    std::string out;
    for (std::int64_t i = 0; i < n; ++i) out += seq.str();
    return value(std::move(out));
  }
  list out;
  for (std::int64_t i = 0; i < n; ++i)
    out.insert(out.end(), seq.items().begin(), seq.items().end());
  return value(std::move(out));
}

// A number as a float (an int beyond 64 bits too; OverflowError past float's range).
double to_float(const value& v) {
  return v.is_float() ? v.as_double() : int_to_double(v);
}

value arith(std::string_view op, const value& l, const value& r) {
  const bool fl = l.is_float() || r.is_float();
  if (is_text(op, "/")) {
    const double b = to_float(r);
    if (b == 0.0) fail(error_code::template_type, "division by zero");
    return value(to_float(l) / b);
  }
  if (fl) {
    const double a = to_float(l);
    const double b = to_float(r);
    if (is_text(op, "+")) return value(a + b);
    if (is_text(op, "-")) return value(a - b);
    if (is_text(op, "*")) return value(a * b);
    if (is_text(op, "**")) return value(std::pow(a, b));
    if (b == 0.0) fail(error_code::template_type, "float divmod()");
    const double q = std::floor(a / b);
    if (is_text(op, "//")) return value(q);
    return value(a - q * b);  // %
  }
  if (is_bigint(l) || is_bigint(r)) {
    if (is_text(op, "**") && int_compare(r, value(0)) < 0)
      return value(std::pow(to_float(l), to_float(r)));
    return int_arith(op, l, r);
  }
  // Both fit in 64 bits: the fast path, and Python's exact int when the result does not.
  const std::int64_t a = l.as_int();
  const std::int64_t b = r.as_int();
  std::int64_t res = 0;
  if (is_text(op, "+"))
    return __builtin_add_overflow(a, b, &res) ? int_arith(op, l, r) : value(res);
  if (is_text(op, "-"))
    return __builtin_sub_overflow(a, b, &res) ? int_arith(op, l, r) : value(res);
  if (is_text(op, "*"))
    return __builtin_mul_overflow(a, b, &res) ? int_arith(op, l, r) : value(res);
  if (is_text(op, "**")) {
    if (b < 0) return value(std::pow(static_cast<double>(a), static_cast<double>(b)));
    std::int64_t acc = 1;
    for (std::int64_t i = 0; i < b; ++i) {
      if (__builtin_mul_overflow(acc, a, &acc)) return int_arith(op, l, r);
      if (acc == 0 || acc == 1) break;  // 0 ** b, 1 ** b
      if (acc == -1) return value(b % 2 == 0 ? 1 : -1);
    }
    return value(acc);
  }
  if (b == 0) fail(error_code::template_type, "integer division or modulo by zero");
  if (a == INT64_MIN && b == -1) return int_arith(op, l, r);
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;  // floor
  if (is_text(op, "//")) return value(q);
  return value(a - q * b);
}

// "%s" % args: printf-style formatting of str (%s %r %d %i %f %x %%).
value percent_format(const std::string& fmt, const value& args) {
  // A tuple gives the items in turn; anything else is the one item (a dict too, which
  // %(key)s reads from).
  list a = args.is_list() && args.tuple ? args.items() : list{args};
  std::size_t k = 0;
  std::string out;
  value keyed;  // the item a %(key) names
  bool by_key = false;
  const auto next = [&]() -> const value& {
    if (by_key) return keyed;
    if (k >= a.size()) type_error("not enough arguments for format string");
    return a[k++];
  };
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out.push_back(fmt[i]);
      continue;
    }
    if (++i >= fmt.size()) type_error("incomplete format");
    by_key = false;
    if (fmt[i] == '(') {
      const std::size_t close = fmt.find(')', i);
      if (close == std::string::npos) type_error("incomplete format key");
      if (!args.is_dict()) type_error("format requires a mapping");
      const std::string key = fmt.substr(i + 1, close - i - 1);
      const value* v = args.map().find(std::string_view(key));
      if (v == nullptr) fail(error_code::template_type, "'" + key + "'");
      keyed = *v;
      by_key = true;
      k = a.size();  // a mapping is used whole: "not all arguments converted" does not apply
      i = close + 1;
      if (i >= fmt.size()) type_error("incomplete format");
    }
    std::string spec;
    while (i < fmt.size() &&
           std::string_view("0123456789.-+ #").find(fmt[i]) != std::string_view::npos) {
      spec.push_back(fmt[i++]);
    }
    if (i >= fmt.size()) type_error("incomplete format");
    const char c = fmt[i];
    if (c == '%') {
      out.push_back('%');
    } else if (c == 's' || c == 'r') {
      // Width ('-': on the left) and precision (a cut) in characters, as Python pads.
      std::string text;
      if (c == 's') {
        text = to_str(next());
      } else {
        append_repr(next(), text);
      }
      const std::size_t dot = spec.find('.');
      if (dot != std::string::npos) {
        const auto keep =
            static_cast<std::size_t>(std::strtoull(spec.c_str() + dot + 1, nullptr, 10));
        const auto pieces = code_point_pieces(text);
        if (keep < pieces.size()) {
          text.resize(static_cast<std::size_t>(pieces[keep].data() - text.data()));
        }
      }
      const std::size_t digits = spec.find_first_of("123456789");
      const std::size_t width =
          digits != std::string::npos && (dot == std::string::npos || digits < dot)
              ? static_cast<std::size_t>(std::strtoull(spec.c_str() + digits, nullptr, 10))
              : 0;
      const std::size_t n = code_points(text);
      if (width > n) {
        check_size_sum(out.size() + text.size(), width - n);
        const bool left = spec.find('-') != std::string::npos;
        if (!left) out.append(width - n, ' ');
        out += text;
        if (left) out.append(width - n, ' ');
      } else {
        out += text;
      }
    } else if (c == 'd' || c == 'i' || c == 'f' || c == 'x') {
      const value& v = next();
      if (!v.is_number())
        type_error("%" + std::string(1, c) + " format: a real number is required, not " +
                   std::string(type_name(v)));
      // The width and precision are bounded before anything is written (a width of
      // 10**9 is a value of 10**9 bytes), and the text is written whole, not cut.
      const std::size_t digits = spec.find_first_of("123456789");
      if (digits != std::string::npos) {
        check_size(static_cast<std::size_t>(std::strtoull(spec.c_str() + digits, nullptr, 10)));
        const std::size_t dot = spec.find('.');
        if (dot != std::string::npos) {
          check_size(static_cast<std::size_t>(std::strtoull(spec.c_str() + dot + 1, nullptr, 10)));
        }
      }
      const std::string f = "%" + spec + (c == 'f' ? "f" : c == 'x' ? "llx" : "lld");
      const double d = c == 'f' ? v.as_double() : 0.0;
      const auto i = c == 'f' ? 0LL
                              : static_cast<long long>(v.is_float() ? float_to_int(v.as_double())
                                                                    : v.as_int());
      const int need = c == 'f' ? std::snprintf(nullptr, 0, f.c_str(), d)
                                : std::snprintf(nullptr, 0, f.c_str(), i);
      if (need > 0) {
        std::string buf(static_cast<std::size_t>(need) + 1, '\0');
        if (c == 'f') {
          std::snprintf(buf.data(), buf.size(), f.c_str(), d);
        } else {
          std::snprintf(buf.data(), buf.size(), f.c_str(), i);
        }
        buf.resize(static_cast<std::size_t>(need));
        out += buf;
      }
    } else {
      type_error(std::string("unsupported format character '") + c + "'");
    }
  }
  if (k < a.size()) type_error("not all arguments converted during string formatting");
  return value(std::move(out));
}

}  // namespace

value binary_op(std::string_view op, const value& l, const value& r) {
  // The one-byte operators told apart inline (a comparison call each cost more).
  const char one = op.size() == 1 ? op[0] : '\0';
  if (one == '~') {
    std::string s = to_str(l);
    if (r.is_string()) check_size_sum(s.size(), r.str().size());
    append_str(r, s);
    check_size(s.size());
    return value(std::move(s));
  }
  check_defined(l);
  check_defined(r);
  const auto numeric = [](const value& v) { return v.is_number() || is_bigint(v); };
  if (numeric(l) && numeric(r)) return arith(op, l, r);
  if (one == '+') {
    if (l.is_string() && r.is_string()) {
      check_size_sum(l.str().size(), r.str().size());
      if (!l.safe && !r.safe) return value(l.str() + r.str());
      // markupsafe: Markup + str escapes the str (and str + Markup, through __radd__).
      value out((l.safe ? l.str() : html_escape(l.str())) +
                (r.safe ? r.str() : html_escape(r.str())));
      out.safe = true;
      return out;
    }
    if (l.is_list() && r.is_list()) {
      check_size_product(l.items().size() + r.items().size(), 16);
      list out = l.items();
      out.insert(out.end(), r.items().begin(), r.items().end());
      return value(std::move(out));
    }
    if (l.is_string()) {
      type_error("can only concatenate str (not \"" + std::string(type_name(r)) + "\") to str");
    }
    if (l.is_list()) {
      type_error("can only concatenate list (not \"" + std::string(type_name(r)) + "\") to list");
    }
  }
  if (one == '*') {
    if ((l.is_string() || l.is_list()) && (r.is_int() || r.is_bool())) return repeat(l, r.as_int());
    if ((r.is_string() || r.is_list()) && (l.is_int() || l.is_bool())) return repeat(r, l.as_int());
  }
  if (one == '%' && l.is_string()) return percent_format(l.str(), r);
  unsupported(op, l, r);
}

// ---- expressions --------------------------------------------------------------------------

namespace {

void eval_args(interpreter& in, const arg_list& a, call_args& out) {
  out.positional.reserve(a.positional.size());
  for (const auto& e : a.positional) out.positional.push_back(e->eval(in));
  if (a.star) {
    // Arguments spread from a value: bounded before they are copied (a call with millions
    // of arguments is a hostile template, not a chat template).
    constexpr std::size_t kMaxSpread = std::size_t{1} << 16;
    const value more = a.star->eval(in);
    if (!(more.is_undefined() || more.is_list() || more.is_string() || more.is_dict())) {
      type_error("Value after * must be an iterable, not " + std::string(type_name(more)));
    }
    if (length(more) > kMaxSpread) {
      fail(error_code::limit_exceeded,
           "more than " + std::to_string(kMaxSpread) + " arguments after * in one call");
    }
    for (auto& x : iterate(more)) out.positional.push_back(std::move(x));
  }
  for (const auto& [k, e] : a.keyword) out.keyword.emplace_back(k, e->eval(in));
  if (a.star_star) {
    const value kw = a.star_star->eval(in);
    if (kw.is_undefined()) return;
    if (!kw.is_dict()) {
      type_error("argument after ** must be a mapping, not " + std::string(type_name(kw)));
    }
    for (const auto& [k, v] : kw.map().entries) {
      if (!k.is_string()) type_error("keywords must be strings");
      out.keyword.emplace_back(k.str(), v);
    }
  }
}

}  // namespace

value literal::eval(interpreter& /*in*/) const {
  return v;
}

value name_ref::eval(interpreter& in) const {
  value tmp;
  return ref(in, tmp);
}

const value& name_ref::ref(interpreter& in, value& tmp) const {
  if (const value* v = in.scope()->find(id)) return *v;
  tmp = builtin_global(name);
  if (!tmp.is_undefined()) return tmp;
  return missing;  // no allocation: an unknown name is often asked for (`x is defined`)
}

bool arg_list::pure() const {
  if (star || star_star) return false;
  for (const auto& e : positional) {
    if (!e->pure()) return false;
  }
  for (const auto& [k, e] : keyword) {
    if (!e->pure()) return false;
  }
  return true;
}

value list_expr::eval(interpreter& in) const {
  list l;
  l.reserve(items.size());
  for (const auto& e : items) l.push_back(e->eval(in));
  return is_tuple ? make_tuple(std::move(l)) : value(std::move(l));
}

value dict_expr::eval(interpreter& in) const {
  auto d = make_rc<dict>();
  for (const auto& [k, v] : items) d->set(k->eval(in), v->eval(in));
  return value(dict_ptr(std::move(d)));
}

value attr_expr::eval(interpreter& in) const {
  value keep;
  return get_attr(obj->ref(in, keep), name);
}

const value& attr_expr::ref(interpreter& in, value& tmp) const {
  value keep;  // what keeps `o` alive when it is not stored anywhere
  const value& o = obj->ref(in, keep);
  // A dict's key, unless a method of that name comes first (get_attr's order).
  if (o.is_dict() && !dict_method) {
    if (const value* v = o.map().find(std::string_view(name))) {
      tmp = std::move(keep);
      return *v;
    }
    return missing;  // neither a method nor a key: get_attr's undefined_attr(o, name)
  }
  tmp = get_attr(o, name);
  return tmp;
}

value item_expr::eval(interpreter& in) const {
  if (!index->pure()) return get_item(obj->eval(in), index->eval(in));
  value tmp;
  const value& r = ref(in, tmp);
  if (&r == &tmp) return tmp;
  return r;
}

const value& item_expr::ref(interpreter& in, value& tmp) const {
  if (!index->pure()) {  // evaluating it could move what `o` points into
    tmp = eval(in);
    return tmp;
  }
  value keep;
  value key_tmp;
  const value& o = obj->ref(in, keep);
  const value& key = index->ref(in, key_tmp);
  const value* found = nullptr;
  if (o.is_dict()) {
    found = o.map().find(key);
  } else if (o.is_list() && (key.is_int() || key.is_bool())) {
    std::size_t i = 0;
    if (py_index(key.as_int(), o.items().size(), i)) found = &o.items()[i];
  }
  if (found != nullptr) {
    tmp = std::move(keep);
    return *found;
  }
  tmp = get_item(o, key);
  return tmp;
}

value slice_expr::eval(interpreter& in) const {
  const value o = obj->eval(in);
  check_defined(o);
  const auto bound = [&](const expr_ptr& e) -> std::optional<std::int64_t> {
    if (!e) return std::nullopt;
    const value v = e->eval(in);
    if (v.is_none()) return std::nullopt;
    if (!v.is_int() && !v.is_bool()) {
      type_error("slice indices must be integers or None or have an __index__ method");
    }
    return v.as_int();
  };
  const auto a = bound(start);
  const auto b = bound(stop);
  const std::int64_t st = bound(step).value_or(1);
  if (st == 0) fail(error_code::template_type, "slice step cannot be zero");
  const bool is_str = o.is_string();
  if (!is_str && !o.is_list())
    type_error("'" + std::string(type_name(o)) + "' object is not subscriptable");
  // Characters are counted without being split out; only a step other than 1 splits them.
  const std::size_t chars = is_str ? code_points(o.str()) : 0;
  const auto n = static_cast<std::int64_t>(is_str ? chars : o.items().size());
  // Python's slice.indices.
  const auto clamp = [&](std::optional<std::int64_t> v, std::int64_t def) {
    if (!v) return def;
    std::int64_t x = *v;
    if (x < 0) x += n;
    if (st > 0) return std::clamp<std::int64_t>(x, 0, n);
    return std::clamp<std::int64_t>(x, -1, n - 1);
  };
  const std::int64_t from = clamp(a, st > 0 ? 0 : n - 1);
  const std::int64_t to = clamp(b, st > 0 ? n : -1);
  if (is_str && st == 1) {
    if (from >= to) return value("");
    const std::string_view str = o.str();
    if (chars == str.size()) {  // ASCII
      return value(str.substr(static_cast<std::size_t>(from), static_cast<std::size_t>(to - from)));
    }
    const std::size_t b0 = code_point_offset(str, static_cast<std::size_t>(from));
    const std::size_t b1 =
        b0 + code_point_offset(str.substr(b0), static_cast<std::size_t>(to - from));
    return value(str.substr(b0, b1 - b0));
  }
  std::vector<std::string_view> cps;
  if (is_str) cps = code_point_pieces(o.str());
  std::string s;
  list l;
  for (std::int64_t i = from; st > 0 ? i < to : i > to; i += st) {
    if (is_str) {
      s += cps[static_cast<std::size_t>(i)];
    } else {
      l.push_back(o.items()[static_cast<std::size_t>(i)]);
    }
  }
  return is_str ? value(std::move(s)) : value(std::move(l));
}

value call_expr::eval(interpreter& in) const {
  const value f = fn->eval(in);
  call_args a;
  eval_args(in, args, a);
  return call_value(in, f, a);
}

value filter_expr::apply(interpreter& in, const value& input) const {
  if (fn == nullptr) fail(error_code::template_type, "No filter named '" + name + "' found.");
  call_args a;
  eval_args(in, args, a);
  return fn->fn(in, input, a);
}

value filter_expr::eval(interpreter& in) const {
  if (!args.pure()) return apply(in, arg->eval(in));
  value tmp;
  return apply(in, arg->ref(in, tmp));
}

bool expr::test(interpreter& in) const {
  value tmp;
  return truthy(ref(in, tmp));
}

value test_expr::eval(interpreter& in) const {
  return value(test(in));
}

bool test_expr::test(interpreter& in) const {
  if (fn == nullptr) fail(error_code::template_type, "No test named '" + name + "' found.");
  value tmp;
  const value& v = args.pure() ? arg->ref(in, tmp) : (tmp = arg->eval(in));
  call_args a;
  eval_args(in, args, a);
  const bool r = fn->fn(in, v, a);
  return negated ? !r : r;
}

value binary_expr::eval(interpreter& in) const {
  if (op.size() == 1 && (op[0] == '+' || op[0] == '~') && !l->pure()) {
    // `a + b + c` of strings: the left side is a string made just now and held nowhere
    // else, so the right one is appended to it in place (each step a copy of the whole
    // text so far, otherwise).
    value a = l->eval(in);
    value tmp;
    const value& b = r->pure() ? r->ref(in, tmp) : (tmp = r->eval(in));
    if (a.is_string() && b.is_string() && !a.safe && !b.safe && a.v.sole()) {
      check_size_sum(a.str().size(), b.str().size());
      const_cast<std::string&>(a.str()).append(b.str());  // NOLINT: held by `a` alone
      return a;
    }
    return binary_op(op, a, b);
  }
  if (!r->pure()) return binary_op(op, l->eval(in), r->eval(in));
  value a;
  value b;
  return binary_op(op, l->ref(in, a), r->ref(in, b));
}

namespace {

// The parser's operators (== != in notin < > <= >=) told apart by their first byte and
// size, with no string comparison.
bool compare(std::string_view op, const value& left, const value& right) {
  switch (op.empty() ? '\0' : op[0]) {
    case '=':
      return equal(left, right);
    case '!':
      return !equal(left, right);
    case 'i':
      return contains(right, left);
    case 'n':
      return !contains(right, left);
    default:
      break;
  }
  check_defined(left);
  check_defined(right);
  if (is_text(op, "<")) return less(left, right);
  if (is_text(op, ">")) return less(right, left);
  if (is_text(op, "<=")) return !less(right, left);
  if (is_text(op, ">=")) return !less(left, right);
  return false;
}

}  // namespace

value compare_expr::eval(interpreter& in) const {
  return value(test(in));
}

bool compare_expr::test(interpreter& in) const {
  if (single_pure) {  // `a == b`: neither copied
    value a;
    value b;
    const value& left = first->ref(in, a);
    return compare(rest[0].first, left, rest[0].second->ref(in, b));
  }
  value left = first->eval(in);
  for (const auto& [op, e] : rest) {
    value right = e->eval(in);
    if (!compare(op, left, right)) return false;
    left = std::move(right);
  }
  return true;
}

value logic_expr::eval(interpreter& in) const {
  value tmp;
  const value& a = l->ref(in, tmp);
  if (truthy(a) != is_and) return a;
  return r->eval(in);
}

// bool(a and b) is bool(a) and bool(b); bool(a or b), bool(a) or bool(b): each side asked
// once, in the same order.
bool logic_expr::test(interpreter& in) const {
  if (l->test(in) != is_and) return !is_and;
  return r->test(in);
}

value not_expr::eval(interpreter& in) const {
  return value(test(in));
}

bool not_expr::test(interpreter& in) const {
  return !e->test(in);
}

value unary_expr::eval(interpreter& in) const {
  const value v = e->eval(in);
  check_defined(v);
  if (!v.is_number() && !is_bigint(v)) {
    type_error(std::string("bad operand type for unary ") + (negative ? "-" : "+") + ": '" +
               std::string(type_name(v)) + "'");
  }
  if (!negative) return v.is_bool() ? value(v.as_int()) : v;
  if (v.is_float()) return value(-v.as_double());
  if (is_bigint(v) || v.as_int() == INT64_MIN) return int_negate(v);
  return value(-v.as_int());
}

value cond_expr::eval(interpreter& in) const {
  if (cond->test(in)) return then->eval(in);
  if (otherwise) return otherwise->eval(in);
  return value::undefined();
}

// ---- statements ---------------------------------------------------------------------------

void text_node::exec(interpreter& in) const {
  in.write(text);
}

void output_node::find_sum() {
  std::vector<const expr*> pieces;  // right to left
  const expr* x = e.get();
  for (auto* b = dynamic_cast<const binary_expr*>(x); b != nullptr && is_text(b->op, "+");
       b = dynamic_cast<const binary_expr*>(x)) {
    if (pieces.size() + 2 > kMaxPieces) return;
    pieces.push_back(b->r.get());
    x = b->l.get();
  }
  if (pieces.empty()) return;
  pieces.push_back(x);
  sum.assign(pieces.rbegin(), pieces.rend());
  sum_pure = std::all_of(sum.begin(), sum.end(), [](const expr* p) { return p->pure(); });
}

// `{{ a + b + c }}`: each piece evaluated in Python's order; while they are plain strings
// (not Markup), their sum is their text one after another, checked against max_value as
// each `+` would check it, and written without being built. At the first piece that is
// not, the sum goes on as binary_op computes it, from the strings before it joined.
void output_node::write_sum(interpreter& in) const {
  std::array<value, kMaxPieces> held;
  std::array<const value*, kMaxPieces> piece{};
  std::size_t total = 0;
  for (std::size_t i = 0; i < sum.size(); ++i) {
    const value& v = sum_pure ? sum[i]->ref(in, held[i]) : (held[i] = sum[i]->eval(in));
    if (v.is_string() && !v.safe) {
      if (i > 0) check_size_sum(total, v.str().size());
      total += v.str().size();
      piece[i] = &v;
      continue;
    }
    value acc = v;
    if (i > 0) {
      std::string joined;
      joined.reserve(total);
      for (std::size_t k = 0; k < i; ++k) joined += piece[k]->str();
      acc = binary_op("+", value(std::move(joined)), v);
    }
    for (std::size_t k = i + 1; k < sum.size(); ++k) acc = binary_op("+", acc, sum[k]->eval(in));
    if (acc.is_string()) {
      in.write(acc.str());
    } else {
      in.write(to_str(acc));
    }
    return;
  }
  for (std::size_t i = 0; i < sum.size(); ++i) in.write(piece[i]->str());
}

void output_node::exec(interpreter& in) const {
  if (!sum.empty()) {
    write_sum(in);
    return;
  }
  value tmp;
  const value& v = e->ref(in, tmp);
  if (v.is_string()) {
    in.write(v.str());
  } else {
    in.write(to_str(v));
  }
}

void if_node::exec(interpreter& in) const {
  for (const auto& [cond, b] : branches) {
    if (cond->test(in)) {
      in.exec_body(b);
      return;
    }
  }
  in.exec_body(otherwise);
}

namespace {

// Binds `t` (a name or a tuple of names) to `v`.
void bind(interpreter& in, const target& t, const value& v) {
  if (t.names.size() == 1) {
    in.assign(t.ids[0], v);
    return;
  }
  const list items = iterate(v);
  if (items.size() != t.names.size()) {
    fail(error_code::template_type,
         items.size() < t.names.size()
             ? "not enough values to unpack (expected " + std::to_string(t.names.size()) +
                   ", got " + std::to_string(items.size()) + ")"
             : "too many values to unpack (expected " + std::to_string(t.names.size()) + ")");
  }
  for (std::size_t i = 0; i < items.size(); ++i) in.assign(t.ids[i], items[i]);
}

struct loop_object final : object {
  rc<const list> items;
  std::size_t index0 = 0;
  std::size_t depth0 = 0;
  [[nodiscard]] std::string_view type_name() const override { return "LoopContext"; }
  [[nodiscard]] value attr(std::string_view name) const override {
    const auto n = static_cast<std::int64_t>(items->size());
    const auto i = static_cast<std::int64_t>(index0);
    if (is_text(name, "index")) return value(i + 1);
    if (is_text(name, "index0")) return value(i);
    if (is_text(name, "revindex")) return value(n - i);
    if (is_text(name, "revindex0")) return value(n - i - 1);
    if (is_text(name, "first")) return value(i == 0);
    if (is_text(name, "last")) return value(i == n - 1);
    if (is_text(name, "length")) return value(n);
    if (is_text(name, "depth")) return value(static_cast<std::int64_t>(depth0) + 1);
    if (is_text(name, "depth0")) return value(static_cast<std::int64_t>(depth0));
    if (is_text(name, "previtem"))
      return i > 0 ? (*items)[index0 - 1] : value::undefined("previtem");
    if (is_text(name, "nextitem"))
      return i + 1 < n ? (*items)[index0 + 1] : value::undefined("nextitem");
    if (is_text(name, "cycle")) {
      const std::size_t at = index0;
      return value(
          object_ptr(make_rc<function_object>("cycle", [at](interpreter&, call_args& a) -> value {
            if (a.positional.empty()) type_error("no items for cycling given");
            return a.positional[at % a.positional.size()];
          })));
    }
    return value::undefined(std::string(name));
  }
};

}  // namespace

void for_node::exec(interpreter& in) const {
  const value src = iter->eval(in);
  frame* outer = in.scope();
  // A list is iterated where it is (no copy); anything else is turned into one.
  list_ptr items =
      src.is_list() && !filter ? src.v.list_owner() : make_rc<const list>(iterate(src));
  // One frame for the whole loop, emptied before each item (as a new one would be): its
  // storage is allocated once, not at every iteration.
  if (filter) {
    interpreter::scope_guard g(in, outer);
    list kept;
    for (const auto& item : *items) {
      g.f.truncate(0);
      bind(in, vars, item);
      if (filter->test(in)) kept.push_back(item);
    }
    items = make_rc<const list>(std::move(kept));
  }
  if (items->empty()) {
    in.exec_body(otherwise);
    return;
  }
  interpreter::scope_guard g(in, outer);
  auto loop = make_rc<loop_object>();
  loop->items = std::move(items);
  // loop.depth counts recursive loop() calls, which templates do not make: it stays 1.
  const value loop_value{object_ptr(loop)};
  // Every iteration binds the same names and `loop`, first in the frame: after the first,
  // they are overwritten where they are (not made again), and what the body set in the
  // iteration before is dropped, as a new frame would drop it.
  std::size_t bound = 0;
  for (std::size_t i = 0; i < loop->items->size(); ++i) {
    in.step();
    loop->index0 = i;
    g.f.truncate(bound);
    bind(in, vars, (*loop->items)[i]);
    in.assign(kLoopId, loop_value);
    if (bound == 0) bound = g.f.size();
    in.exec_body(loop_body);
    if (in.control == interpreter::flow::error) return;
    if (in.control == interpreter::flow::break_) {
      in.control = interpreter::flow::normal;
      break;
    }
    in.control = interpreter::flow::normal;
  }
}

namespace {

void assign_target(interpreter& in, const target& to, const value& v) {
  if (to.attr.empty()) {
    bind(in, to, v);
    return;
  }
  const value ns = in.lookup(to.ids[0]);
  if (!ns.is_object() || dynamic_cast<const namespace_object*>(ns.obj()) == nullptr) {
    fail(error_code::template_type, "cannot assign attribute on non-namespace object");
  }
  ns.obj()->set_attr(to.attr, v);
}

}  // namespace

void set_node::exec(interpreter& in) const {
  assign_target(in, to, e->eval(in));
}

void set_block_node::exec(interpreter& in) const {
  value v(in.capture(content));
  for (const auto& f : filters) v = f->apply(in, v);
  assign_target(in, to, v);
}

namespace {

constexpr std::uint32_t kNoId = static_cast<std::uint32_t>(-1);

struct macro_object final : object {
  const macro_node* def = nullptr;
  std::shared_ptr<macro_node> keep;  // a call block's caller
  const frame* parent = nullptr;
  value caller;
  [[nodiscard]] std::string_view type_name() const override { return "Macro"; }
  [[nodiscard]] bool callable() const override { return true; }
  [[nodiscard]] value attr(std::string_view name) const override {
    // Jinja2's Macro attributes.
    if (name == "name") return value(def->name);
    if (name == "arguments") {
      list names;
      for (const auto& p : def->params) names.emplace_back(p.first);
      return make_tuple(std::move(names));
    }
    if (name == "catch_kwargs") return value(def->uses_kwargs);
    if (name == "catch_varargs") return value(def->uses_varargs);
    if (name == "caller") return value(def->uses_caller);
    return value::undefined(std::string(name));
  }
  value call(interpreter& in, call_args& args) override {
    if (++in.depth > in.lim.max_depth) {
      fail(error_code::limit_exceeded,
           "macro calls nested deeper than " + std::to_string(in.lim.max_depth));
    }
    struct leave {
      interpreter& in;
      ~leave() { --in.depth; }
    } l{in};
    interpreter::scope_guard g(in, parent);
    const auto& ps = def->params;
    list varargs;
    for (std::size_t i = 0; i < args.positional.size(); ++i) {
      if (i < ps.size()) {
        in.assign(def->param_ids[i], args.positional[i]);
      } else {
        varargs.push_back(args.positional[i]);
      }
    }
    rc<dict> kwargs;  // (made only for a macro that takes **kwargs)
    if (def->uses_kwargs) kwargs = make_rc<dict>();
    // As Jinja2's Macro.__call__: a keyword fills a parameter that no positional argument
    // filled; any other (a parameter given twice included) goes to `kwargs`, or is an
    // error, which comes before the error of too many positional arguments.
    for (auto& [k, v] : args.keyword) {
      std::uint32_t id = k == "caller" && def->uses_caller ? kCallerId : kNoId;
      for (std::size_t i = args.positional.size(); i < ps.size() && id == kNoId; ++i) {
        if (ps[i].first == k) id = def->param_ids[i];
      }
      if (id != kNoId) {
        in.assign(id, v);
      } else if (def->uses_kwargs) {
        kwargs->set(value(k), v);
      } else {
        type_error("macro '" + def->name + "' takes no keyword argument '" + k + "'");
      }
    }
    if (args.positional.size() > ps.size() && !def->uses_varargs) {
      type_error("macro '" + def->name + "' takes not more than " + std::to_string(ps.size()) +
                 " argument(s)");
    }
    for (std::size_t i = args.positional.size(); i < ps.size(); ++i) {
      const std::uint32_t id = def->param_ids[i];
      if (in.scope()->holds(id)) continue;  // given by keyword
      in.assign(id, ps[i].second ? ps[i].second->eval(in) : value::undefined(ps[i].first));
    }
    if (def->uses_varargs) in.assign(kVarargsId, make_tuple(std::move(varargs)));
    if (def->uses_kwargs) in.assign(kKwargsId, value(dict_ptr(std::move(kwargs))));
    if (!caller.is_undefined()) in.assign(kCallerId, caller);
    std::string out = in.capture(def->content);
    if (in.control != interpreter::flow::error) in.control = interpreter::flow::normal;
    return value(std::move(out));
  }
};

}  // namespace

void macro_node::exec(interpreter& in) const {
  auto m = make_rc<macro_object>();
  m->def = this;
  m->parent = in.scope();
  in.assign(id, value(object_ptr(std::move(m))));
}

void call_block_node::exec(interpreter& in) const {
  auto c = make_rc<macro_object>();
  c->def = caller.get();
  c->keep = caller;
  c->parent = in.scope();
  const value f = call->fn->eval(in);
  call_args a;
  eval_args(in, call->args, a);
  check_defined(f);
  if (f.is_object()) {
    if (auto* m = dynamic_cast<macro_object*>(f.obj())) {
      // The callee sees `caller` for this call only.
      auto bound = make_rc<macro_object>(*m);
      bound->caller = value(object_ptr(std::move(c)));
      const value r = call_value(in, value(object_ptr(std::move(bound))), a);
      in.write(to_str(r));
      return;
    }
  }
  a.keyword.emplace_back("caller", value(object_ptr(std::move(c))));
  in.write(to_str(call_value(in, f, a)));
}

void filter_block_node::exec(interpreter& in) const {
  value v(in.capture(content));
  for (const auto& f : filters) v = f->apply(in, v);
  in.write(to_str(v));
}

void loop_control_node::exec(interpreter& in) const {
  in.control = is_break ? interpreter::flow::break_ : interpreter::flow::continue_;
}

void scope_node::exec(interpreter& in) const {
  if (!new_scope) {
    const std::size_t from = in.top_output_size();
    in.exec_body(content);
    if (generation && in.generation_spans != nullptr && from != static_cast<std::size_t>(-1)) {
      in.generation_spans->emplace_back(from, in.top_output_size());
    }
    return;
  }
  std::vector<value> vals;
  for (const auto& [k, e] : assigns) vals.push_back(e->eval(in));
  interpreter::scope_guard g(in, in.scope());
  for (std::size_t i = 0; i < assigns.size(); ++i) in.assign(assign_ids[i], vals[i]);
  in.exec_body(content);
}

}  // namespace ocml::tmpl
