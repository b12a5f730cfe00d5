// SPDX-License-Identifier: Apache-2.0
#include "interchange/pyjson.hpp"

#include "interchange/simd_json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ocml::detail {

std::string python_float_repr(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  // Shortest round-trip digits in scientific form: "d.ddde±x".
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, r.ptr);
  const auto e = sci.find('e');
  const int exp = std::atoi(sci.c_str() + e + 1);
  std::string mant = sci.substr(0, e);
  const bool neg = mant[0] == '-';
  if (neg) mant.erase(0, 1);
  std::string digits;
  for (char c : mant) {
    if (c != '.') digits.push_back(c);
  }
  std::string out = neg ? "-" : "";
  if (exp < -4 || exp >= 16) {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[8];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    out += eb;
  } else if (exp < 0) {
    out += "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
  } else {
    const std::size_t int_len = static_cast<std::size_t>(exp) + 1;
    if (digits.size() <= int_len) {
      out += digits + std::string(int_len - digits.size(), '0') + ".0";
    } else {
      out += digits.substr(0, int_len) + "." + digits.substr(int_len);
    }
  }
  return out;
}

void python_json_string(std::string_view s, std::string& out) {
  // json.dumps(ensure_ascii=False) escapes exactly what a compact JSON writer escapes.
  append_json_string(out, s, true);
}

void python_json_dumps(const json& j, std::string& out) {
  switch (j.type()) {
    case json::value_t::object: {
      out.push_back('{');
      bool first = true;
      for (const auto& [k, v] : j.items()) {
        if (!first) out += ", ";
        first = false;
        python_json_string(k, out);
        out += ": ";
        python_json_dumps(v, out);
      }
      out.push_back('}');
      break;
    }
    case json::value_t::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& v : j) {
        if (!first) out += ", ";
        first = false;
        python_json_dumps(v, out);
      }
      out.push_back(']');
      break;
    }
    case json::value_t::string:
      python_json_string(j.get_ref<const std::string&>(), out);
      break;
    case json::value_t::boolean:
      out += j.get<bool>() ? "true" : "false";
      break;
    case json::value_t::number_integer:
      out += std::to_string(j.get<std::int64_t>());
      break;
    case json::value_t::number_unsigned:
      out += std::to_string(j.get<std::uint64_t>());
      break;
    case json::value_t::number_float:
      out += python_float_repr(j.get<double>());
      break;
    default:
      out += "null";
      break;
  }
}

std::string python_json_dumps(const json& j) {
  std::string out;
  python_json_dumps(j, out);
  return out;
}

}  // namespace ocml::detail
