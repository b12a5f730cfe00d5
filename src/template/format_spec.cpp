// SPDX-License-Identifier: Apache-2.0
// Python's format-spec mini-language (format(value, spec)), as CPython's
// Python/formatter_unicode.c reads and applies it.
#include "template/format_spec.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/utf8.hpp"
#include "template/bigint.hpp"
#include "template/interpreter.hpp"

namespace ocml::tmpl {

namespace {

struct spec_parts {
  std::string fill = " ";
  char align = 0;  // < > = ^, or 0: the type's default
  char sign = 0;   // + - ' ', or 0
  bool z = false;  // negative zero coerced to zero
  bool alt = false;
  char grouping = 0;  // , _ or 0
  std::size_t width = 0;
  bool has_precision = false;
  std::size_t precision = 0;
  char type = 0;
};

[[noreturn]] void value_error(const std::string& m) {
  fail(error_code::template_type, m);
}

bool is_align(char c) {
  return c == '<' || c == '>' || c == '=' || c == '^';
}

std::size_t read_count(std::string_view s, std::size_t& i) {
  std::size_t n = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    if (n > (std::size_t{1} << 40)) value_error("Too many decimal digits in format string");
    n = n * 10 + static_cast<std::size_t>(s[i++] - '0');
  }
  return n;
}

spec_parts parse(std::string_view s, const value& v, char default_align) {
  spec_parts p;
  std::size_t i = 0;
  // A fill is any one character, then an alignment.
  std::size_t first = 1;
  while (first < s.size() && (static_cast<unsigned char>(s[first]) & 0xC0) == 0x80) ++first;
  bool fill_given = false;
  if (first < s.size() && is_align(s[first])) {
    p.fill = std::string(s.substr(0, first));
    p.align = s[first];
    fill_given = true;
    i = first + 1;
  } else if (!s.empty() && is_align(s[0])) {
    p.align = s[0];
    i = 1;
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) p.sign = s[i++];
  if (i < s.size() && s[i] == 'z') {
    p.z = true;
    ++i;
  }
  if (i < s.size() && s[i] == '#') {
    p.alt = true;
    ++i;
  }
  if (!fill_given && i < s.size() && s[i] == '0') {
    p.fill = "0";
    if (p.align == 0 && default_align == '>') p.align = '=';
    ++i;
  }
  p.width = read_count(s, i);
  if (i < s.size() && (s[i] == ',' || s[i] == '_')) p.grouping = s[i++];
  if (i < s.size() && (s[i] == ',' || s[i] == '_')) value_error("Cannot specify both ',' and '_'.");
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (i >= s.size() || s[i] < '0' || s[i] > '9')
      value_error("Format specifier missing precision");
    p.has_precision = true;
    p.precision = read_count(s, i);
  }
  if (s.size() - i > 1) {
    value_error("Invalid format specifier '" + std::string(s) + "' for object of type '" +
                std::string(type_name(v)) + "'");
  }
  if (i < s.size()) p.type = s[i];
  if (p.align == 0) p.align = default_align;
  check_size(p.width);
  check_size(p.precision);
  return p;
}

[[noreturn]] void unknown_code(char type, const value& v) {
  value_error(std::string("Unknown format code '") + type + "' for object of type '" +
              std::string(type_name(v)) + "'");
}

// `lead` (sign and prefix) and `body` padded to the width as `align` says.
std::string pad(const spec_parts& p, const std::string& lead, const std::string& body) {
  const std::size_t n = code_points(lead) + code_points(body);
  if (p.width <= n) return lead + body;
  const std::size_t k = p.width - n;
  check_size_product(k, p.fill.size());
  std::string fill;
  fill.reserve(k * p.fill.size());
  for (std::size_t j = 0; j < k; ++j) fill += p.fill;
  switch (p.align) {
    case '<':
      return lead + body + fill;
    case '=':
      return lead + fill + body;
    case '^': {
      const std::size_t left = (k / 2) * p.fill.size();
      return fill.substr(0, left) + lead + body + fill.substr(left);
    }
    default:
      return fill + lead + body;
  }
}

// The digits before `rest`, grouped by 3 (or 4: '_' with b, o, x) from the right; padded
// with zeros to `target` characters when the fill is '0' and the alignment '=' (as CPython
// writes separators into zero padding).
std::string group(std::string digits, char sep, std::size_t every, std::size_t target) {
  const auto grouped = [&](const std::string& d) {
    std::string out;
    for (std::size_t j = 0; j < d.size(); ++j) {
      if (j > 0 && (d.size() - j) % every == 0) out.push_back(sep);
      out.push_back(d[j]);
    }
    return out;
  };
  std::string out = grouped(digits);
  while (out.size() < target) {
    digits.insert(digits.begin(), '0');
    out = grouped(digits);
  }
  return out;
}

std::string sign_of(const spec_parts& p, bool negative) {
  if (negative) return "-";
  if (p.sign == '+') return "+";
  if (p.sign == ' ') return " ";
  return {};
}

std::string printf_double(const std::string& f, double d) {
  const int need = std::snprintf(nullptr, 0, f.c_str(), d);
  std::string buf(static_cast<std::size_t>(need > 0 ? need : 0) + 1, '\0');
  std::snprintf(buf.data(), buf.size(), f.c_str(), d);
  buf.resize(static_cast<std::size_t>(need > 0 ? need : 0));
  return buf;
}

// Python's repr-style general format with a precision: 'g' that switches to the exponent
// form at exp >= p - 1 and keeps one digit after a fixed point.
std::string general_none(double a, std::size_t prec, bool alt) {
  const std::size_t p = prec == 0 ? 1 : prec;
  const std::string e = printf_double("%." + std::to_string(p - 1) + "e", a);
  const int exp = std::atoi(e.c_str() + e.find('e') + 1);
  std::string out;
  if (exp >= -4 && exp < static_cast<int>(p) - 1) {
    out = printf_double("%." + std::to_string(static_cast<int>(p) - 1 - exp) + "f", a);
    if (!alt && out.find('.') != std::string::npos) {
      while (out.back() == '0') out.pop_back();
      if (out.back() == '.') out.push_back('0');
    }
    if (out.find('.') == std::string::npos) out += ".0";
    return out;
  }
  out = e;
  if (!alt) {
    const std::size_t at = out.find('e');
    std::size_t m = at;
    if (out.find('.') < at) {
      while (out[m - 1] == '0') --m;
      if (out[m - 1] == '.') --m;
    }
    out.erase(m, at - m);
  }
  return out;
}

std::string format_float(const spec_parts& p, double d, const value& v) {
  const char t = p.type;
  if (t != 0 && std::string_view("eEfFgGn%").find(t) == std::string_view::npos) {
    unknown_code(t, v);
  }
  const bool nan = std::isnan(d);
  bool negative = !nan && std::signbit(d);
  const double a = std::fabs(d);
  const std::string prec = std::to_string(p.has_precision ? p.precision : 6);
  const std::string hash = p.alt ? "#" : "";
  std::string body;
  if (t == 0) {
    body = p.has_precision ? general_none(a, p.precision, p.alt) : to_str(value(a));
  } else if (t == '%') {
    body = printf_double("%" + hash + "." + prec + "f", a * 100) + "%";
  } else {
    const char c = t == 'n' ? 'g' : t;
    body = printf_double("%" + hash + "." + prec + c, a);
  }
  if (p.z && negative && body.find_first_of("123456789") == std::string::npos) negative = false;
  const std::string lead = sign_of(p, negative);
  if (p.grouping != 0 && !body.empty() && body[0] >= '0' && body[0] <= '9') {
    const std::size_t end = body.find_first_not_of("0123456789");
    const std::string rest = end == std::string::npos ? "" : body.substr(end);
    const std::size_t target =
        p.fill == "0" && p.align == '=' && p.width > lead.size() + rest.size()
            ? p.width - lead.size() - rest.size()
            : 0;
    body = group(body.substr(0, end), p.grouping, 3, target) + rest;
  }
  return pad(p, lead, body);
}

std::string format_int(const spec_parts& p, const value& v) {
  const char t = p.type;
  if (t == 'e' || t == 'E' || t == 'f' || t == 'F' || t == 'g' || t == 'G' || t == '%') {
    return format_float(p, int_to_double(v), v);
  }
  if (t != 0 && std::string_view("dnbcoxX").find(t) == std::string_view::npos) unknown_code(t, v);
  if (p.has_precision) value_error("Precision not allowed in integer format specifier");
  if (p.z) value_error("Negative zero coercion (z) not allowed in integer format specifier");
  if (t == 'c') {
    if (p.sign != 0) value_error("Sign not allowed with integer format specifier 'c'");
    if (p.alt) value_error("Alternate form (#) not allowed with integer format specifier 'c'");
    if (is_bigint(v) || v.as_int() < 0 || v.as_int() > 0x10FFFF) {
      fail(error_code::template_type, "%c arg not in range(0x110000)");
    }
    std::string ch;
    detail::append_utf8(ch, static_cast<unsigned long>(v.as_int()));
    return pad(p, "", ch);
  }
  const int base = t == 'b' ? 2 : t == 'o' ? 8 : (t == 'x' || t == 'X') ? 16 : 10;
  if (p.grouping == ',' && base != 10) {
    value_error(std::string("Cannot specify ',' with '") + t + "'.");
  }
  bool negative = false;
  std::string digits = int_magnitude_text(v, base, negative);
  if (t == 'X') {
    for (char& c : digits) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  std::string lead = sign_of(p, negative);
  if (p.alt && base != 10) lead += t == 'b' ? "0b" : t == 'o' ? "0o" : t == 'x' ? "0x" : "0X";
  if (p.grouping != 0) {
    const std::size_t target =
        p.fill == "0" && p.align == '=' && p.width > lead.size() ? p.width - lead.size() : 0;
    digits = group(digits, p.grouping, base == 10 ? 3 : 4, target);
  }
  return pad(p, lead, digits);
}

}  // namespace

std::string format_value(const value& v, std::string_view spec) {
  if (spec.empty()) return to_str(v);
  if (v.is_string()) {
    const spec_parts p = parse(spec, v, '<');
    if (p.type != 0 && p.type != 's') unknown_code(p.type, v);
    if (p.sign != 0) value_error("Sign not allowed in string format specifier");
    if (p.alt) value_error("Alternate form (#) not allowed in string format specifier");
    if (p.z) value_error("Negative zero coercion (z) not allowed in format specifier");
    if (p.grouping != 0) value_error(std::string("Cannot specify '") + p.grouping + "' with 's'.");
    if (p.align == '=') value_error("'=' alignment not allowed in string format specifier");
    std::string text = v.str();
    if (p.has_precision) text.resize(code_point_offset(text, p.precision));
    return pad(p, "", text);
  }
  if (is_integral(v)) return format_int(parse(spec, v, '>'), v);
  if (v.is_float()) return format_float(parse(spec, v, '>'), v.as_double(), v);
  type_error("unsupported format string passed to " + std::string(type_name(v)) + ".__format__");
}

}  // namespace ocml::tmpl
