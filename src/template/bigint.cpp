// SPDX-License-Identifier: Apache-2.0
// Python ints beyond 64 bits on GMP. Every size is bounded before GMP allocates (GMP aborts
// when an allocation fails).
#include "template/bigint.hpp"

#include <gmp.h>

#include <cmath>
#include <cstdlib>
#include <memory>

#include "ocml/error.hpp"

namespace ocml::tmpl {

namespace {

// An mpz_t that frees itself.
struct mpz {
  mpz_t z;
  mpz() { mpz_init(z); }
  ~mpz() { mpz_clear(z); }
  mpz(const mpz&) = delete;
  mpz& operator=(const mpz&) = delete;
};

void digits_error(std::size_t n) {
  fail(error_code::template_type,
       "Exceeds the limit (" + std::to_string(kIntMaxStrDigits) +
           " digits) for integer string conversion: value has " + std::to_string(n) +
           " digits; use sys.set_int_max_str_digits() to increase the limit");
}

void load(const value& v, mpz& out) {
  if (is_bigint(v)) {
    mpz_set_str(out.z, static_cast<const bigint_object&>(*v.obj()).digits.c_str(), 10);
  } else {
    const std::int64_t i = v.as_int();
    const std::string s = std::to_string(i);  // mpz_set_si takes long; this is exact anywhere
    mpz_set_str(out.z, s.c_str(), 10);
  }
}

value store(const mpz& m) {
  if (mpz_fits_slong_p(m.z) != 0) return value(static_cast<std::int64_t>(mpz_get_si(m.z)));
  std::string s(mpz_sizeinbase(m.z, 10) + 2, '\0');
  mpz_get_str(s.data(), 10, m.z);
  s.resize(std::char_traits<char>::length(s.c_str()));
  return value(object_ptr(make_rc<bigint_object>(std::move(s))));
}

std::size_t bits(const mpz& m) {
  return mpz_sgn(m.z) == 0 ? 1 : mpz_sizeinbase(m.z, 2);
}

void too_big(std::string_view op) {
  fail(error_code::limit_exceeded,
       "integer result of " + std::string(op) + " beyond " + std::to_string(kIntMaxBits) + " bits");
}

}  // namespace

bool is_bigint(const value& v) {
  return v.is_object() && dynamic_cast<const bigint_object*>(v.obj()) != nullptr;
}

bool is_integral(const value& v) {
  return v.is_int() || v.is_bool() || is_bigint(v);
}

std::string int_text(const value& v) {
  if (is_bigint(v)) {
    const std::string& d = static_cast<const bigint_object&>(*v.obj()).digits;
    const std::size_t n = d.size() - (d[0] == '-' ? 1 : 0);
    if (n > kIntMaxStrDigits) digits_error(n);
    return d;
  }
  return std::to_string(v.as_int());
}

std::string int_magnitude_text(const value& v, int base, bool& negative) {
  mpz m;
  load(v, m);
  negative = mpz_sgn(m.z) < 0;
  mpz_abs(m.z, m.z);
  std::string s(mpz_sizeinbase(m.z, base) + 2, '\0');
  mpz_get_str(s.data(), base, m.z);
  s.resize(std::char_traits<char>::length(s.c_str()));
  if (base == 10 && s.size() > kIntMaxStrDigits) digits_error(s.size());
  return s;
}

value int_from_text(std::string_view decimal) {
  const std::size_t n = decimal.size() - (!decimal.empty() && decimal[0] == '-' ? 1 : 0);
  if (n > kIntMaxStrDigits) digits_error(n);
  mpz m;
  if (mpz_set_str(m.z, std::string(decimal).c_str(), 10) != 0) {
    fail(error_code::template_type,
         "invalid literal for int() with base 10: '" + std::string(decimal) + "'");
  }
  return store(m);
}

value int_from_float(double d) {
  if (std::isnan(d)) fail(error_code::template_type, "cannot convert float NaN to integer");
  if (std::isinf(d)) fail(error_code::template_type, "cannot convert float infinity to integer");
  if (d > -9.2e18 && d < 9.2e18) return value(static_cast<std::int64_t>(d));
  mpz m;
  mpz_set_d(m.z, d);  // truncates toward zero, as int() does; exact beyond 2**53
  return store(m);
}

double int_to_double(const value& v) {
  if (!is_bigint(v)) return static_cast<double>(v.as_int());
  // strtod rounds to nearest even, as Python's int.__float__ does (mpz_get_d truncates).
  const double d = std::strtod(static_cast<const bigint_object&>(*v.obj()).digits.c_str(), nullptr);
  if (std::isinf(d)) fail(error_code::template_type, "int too large to convert to float");
  return d;
}

int int_compare(const value& x, const value& y) {
  if (!is_bigint(x) && !is_bigint(y)) {
    const std::int64_t a = x.as_int();
    const std::int64_t b = y.as_int();
    return a < b ? -1 : a > b ? 1 : 0;
  }
  mpz a;
  mpz b;
  load(x, a);
  load(y, b);
  const int c = mpz_cmp(a.z, b.z);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

value int_arith(std::string_view op, const value& x, const value& y) {
  mpz a;
  mpz b;
  mpz r;
  load(x, a);
  load(y, b);
  if (op == "+" || op == "-") {
    if (std::max(bits(a), bits(b)) + 1 > kIntMaxBits) too_big(op);
    (op == "+" ? mpz_add : mpz_sub)(r.z, a.z, b.z);
  } else if (op == "*") {
    if (bits(a) + bits(b) > kIntMaxBits) too_big(op);
    mpz_mul(r.z, a.z, b.z);
  } else if (op == "//" || op == "%") {
    if (mpz_sgn(b.z) == 0) fail(error_code::template_type, "integer division or modulo by zero");
    (op == "//" ? mpz_fdiv_q : mpz_fdiv_r)(r.z, a.z, b.z);  // floor, as Python
  } else if (op == "**") {
    if (mpz_sgn(b.z) < 0) fail(error_code::internal, "int ** negative: a float operation");
    const bool trivial = mpz_cmpabs_ui(a.z, 1) <= 0;  // 0, 1, -1: any exponent
    if (!trivial && (mpz_fits_ulong_p(b.z) == 0 ||
                     static_cast<double>(bits(a) - 1) * mpz_get_d(b.z) > kIntMaxBits)) {
      too_big(op);
    }
    if (trivial && mpz_fits_ulong_p(b.z) == 0) {
      // (-1) ** e: the parity of e decides.
      mpz_set(r.z, a.z);
      if (mpz_sgn(a.z) < 0 && mpz_even_p(b.z) != 0) mpz_neg(r.z, r.z);
      if (mpz_sgn(b.z) == 0) mpz_set_ui(r.z, 1);
    } else {
      mpz_pow_ui(r.z, a.z, mpz_get_ui(b.z));
    }
  } else {
    fail(error_code::internal, "int_arith: " + std::string(op));
  }
  return store(r);
}

value int_negate(const value& x) {
  mpz a;
  load(x, a);
  mpz_neg(a.z, a.z);
  return store(a);
}

value int_abs(const value& x) {
  mpz a;
  load(x, a);
  mpz_abs(a.z, a.z);
  return store(a);
}

int int_compare_float(const value& x, double d) {
  mpz a;
  load(x, a);
  const int c = mpz_cmp_d(a.z, d);  // exact, infinities included
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

}  // namespace ocml::tmpl
