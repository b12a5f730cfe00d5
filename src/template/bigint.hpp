// SPDX-License-Identifier: Apache-2.0
// Python's int beyond 64 bits: an integer the int64 fast path cannot hold (a JSON number such
// as 123456789012345678901234567890, or 2**64 in a template) is kept exact, as Python keeps
// it, on GMP. Values that fit in int64 are always int64.
#pragma once

#include <string>
#include <string_view>

#include "template/value.hpp"

namespace ocml::tmpl {

/// Python's limit on the digits of an int written or read as decimal text
/// (sys.get_int_max_str_digits(), 4300 since Python 3.11): beyond it str() and json.loads
/// raise ValueError, and so does ocml (E-TEMPLATE-TYPE).
inline constexpr std::size_t kIntMaxStrDigits = 4300;
/// The largest int an operation may make, in bits (about 315 000 decimal digits): 2**N
/// beyond it is E-LIMIT-EXCEEDED before any memory is spent on it.
inline constexpr std::size_t kIntMaxBits = std::size_t{1} << 20;

/// An int beyond int64: its canonical decimal text ("-123…").
struct bigint_object final : object {
  std::string digits;
  explicit bigint_object(std::string d) : digits(std::move(d)) {}
  [[nodiscard]] std::string_view type_name() const override { return "int"; }
};

[[nodiscard]] bool is_bigint(const value& v);
/// int, bool or a big int.
[[nodiscard]] bool is_integral(const value& v);
/// The decimal text of an integral value, or of a big int.
[[nodiscard]] std::string int_text(const value& v);
/// The digits of |v| in base 2, 8, 10 or 16 (lower case), and whether v is negative: what
/// format(v, 'b'/'o'/'d'/'x') writes after its sign.
[[nodiscard]] std::string int_magnitude_text(const value& v, int base, bool& negative);
/// The int of a decimal text ("-12", no sign '+', no blanks): int64 when it fits.
/// Raises Python's ValueError (E-TEMPLATE-TYPE) beyond kIntMaxStrDigits digits.
[[nodiscard]] value int_from_text(std::string_view decimal);
/// int(d) of a float, exact at any size (ValueError for NaN, OverflowError for infinity).
[[nodiscard]] value int_from_float(double d);
/// float(x) of an integral value, correctly rounded (inf when too large, as Python raises
/// OverflowError there: raised too).
[[nodiscard]] double int_to_double(const value& v);
/// -1, 0 or 1: x compared to y, both integral.
[[nodiscard]] int int_compare(const value& x, const value& y);
/// x OP y for integral x and y (OP one of + - * // % **, ** with a non-negative exponent),
/// exact as Python computes it.
[[nodiscard]] value int_arith(std::string_view op, const value& x, const value& y);
/// -x and abs(x) of an integral value.
[[nodiscard]] value int_negate(const value& x);
[[nodiscard]] value int_abs(const value& x);
/// -1, 0 or 1: an integral x compared to a float d that is not NaN, exactly (as Python
/// compares int and float).
[[nodiscard]] int int_compare_float(const value& x, double d);

}  // namespace ocml::tmpl
