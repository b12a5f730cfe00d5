// SPDX-License-Identifier: Apache-2.0
// CPython's unicodeobject.c case algorithms (do_upper, do_lower, do_title, do_capitalize,
// do_swapcase, do_casefold, handle_capital_sigma) over ICU's per-character data.
#include "template/unicode_case.hpp"

#include <unicode/casemap.h>
#include <unicode/uchar.h>
#include <unicode/utf16.h>

#include <vector>

#include "core/utf8.hpp"

namespace ocml::tmpl {

namespace {

using detail::decode_utf8;

bool cased(char32_t c) {
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_CASED) != 0;
}
bool case_ignorable(char32_t c) {
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_CASE_IGNORABLE) != 0;
}
bool is_upper(char32_t c) {
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_UPPERCASE) != 0;
}
bool is_lower(char32_t c) {
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_LOWERCASE) != 0;
}
bool is_title(char32_t c) {
  return u_charType(static_cast<UChar32>(c)) == U_TITLECASE_LETTER;
}

enum class map_kind { upper, lower, title, fold };

// The full mapping of one character, appended as UTF-8.
void append_mapped(char32_t c, map_kind k, std::string& out) {
  if (c < 0x80) {
    char b = static_cast<char>(c);
    if (k == map_kind::upper || k == map_kind::title) {
      if (b >= 'a' && b <= 'z') b = static_cast<char>(b - 32);
    } else if (b >= 'A' && b <= 'Z') {
      b = static_cast<char>(b + 32);
    }
    out.push_back(b);
    return;
  }
  char16_t src[2];
  int32_t n = 0;
  UBool err = false;
  U16_APPEND(src, n, 2, static_cast<UChar32>(c), err);
  char16_t dst[16];
  UErrorCode ec = U_ZERO_ERROR;
  int32_t m = 0;
  switch (k) {
    case map_kind::upper:
      m = icu::CaseMap::toUpper("", 0, src, n, dst, 16, nullptr, ec);
      break;
    case map_kind::lower:
      m = icu::CaseMap::toLower("", 0, src, n, dst, 16, nullptr, ec);
      break;
    case map_kind::title:
      // One character, titlecased as it is (no word breaks, nothing lowercased after it).
      m = icu::CaseMap::toTitle(
          "", U_TITLECASE_WHOLE_STRING | U_TITLECASE_NO_LOWERCASE | U_TITLECASE_NO_BREAK_ADJUSTMENT,
          nullptr, src, n, dst, 16, nullptr, ec);
      break;
    case map_kind::fold:
      m = icu::CaseMap::fold(U_FOLD_CASE_DEFAULT, src, n, dst, 16, nullptr, ec);
      break;
  }
  if (U_FAILURE(ec)) {  // no mapping longer than 3 characters exists; keep the character
    detail::append_utf8(out, c);
    return;
  }
  for (int32_t i = 0; i < m;) {
    UChar32 x = 0;
    U16_NEXT(dst, i, m, x);
    detail::append_utf8(out, static_cast<unsigned long>(x));
  }
}

// CPython's handle_capital_sigma: Σ at cps[i] is final when a cased character comes before
// it (case-ignorable ones skipped) and none comes after it (likewise).
char32_t sigma(const std::vector<char32_t>& cps, std::size_t i) {
  std::size_t j = i;
  while (j > 0 && case_ignorable(cps[j - 1])) --j;
  bool final_sigma = j > 0 && cased(cps[j - 1]);
  if (final_sigma) {
    std::size_t k = i + 1;
    while (k < cps.size() && case_ignorable(cps[k])) ++k;
    final_sigma = k == cps.size() || !cased(cps[k]);
  }
  return final_sigma ? 0x3C2 : 0x3C3;
}

// CPython's lower_ucs4: the full lowercase, Σ by its context.
void append_lower(const std::vector<char32_t>& cps, std::size_t i, std::string& out) {
  if (cps[i] == 0x3A3) {
    detail::append_utf8(out, sigma(cps, i));
  } else {
    append_mapped(cps[i], map_kind::lower, out);
  }
}

std::vector<char32_t> code_points_of(std::string_view s) {
  std::vector<char32_t> cps;
  cps.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) cps.push_back(decode_utf8(s, i));
  return cps;
}

bool ascii(std::string_view s) {
  for (const char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

}  // namespace

std::string py_str_case(std::string_view s, py_case how) {
  std::string out;
  out.reserve(s.size());
  if ((how == py_case::upper || how == py_case::lower || how == py_case::casefold) && ascii(s)) {
    const bool up = how == py_case::upper;
    for (const char c : s) {
      const bool lo = c >= 'a' && c <= 'z';
      const bool hi = c >= 'A' && c <= 'Z';
      out.push_back(up && lo    ? static_cast<char>(c - 32)
                    : !up && hi ? static_cast<char>(c + 32)
                                : c);
    }
    return out;
  }
  const std::vector<char32_t> cps = code_points_of(s);
  bool previous_cased = false;
  for (std::size_t i = 0; i < cps.size(); ++i) {
    const char32_t c = cps[i];
    switch (how) {
      case py_case::upper:
        append_mapped(c, map_kind::upper, out);
        break;
      case py_case::lower:
        append_lower(cps, i, out);
        break;
      case py_case::casefold:
        append_mapped(c, map_kind::fold, out);
        break;
      case py_case::title:
        if (previous_cased) {
          append_lower(cps, i, out);
        } else {
          append_mapped(c, map_kind::title, out);
        }
        previous_cased = cased(c);
        break;
      case py_case::capitalize:
        if (i == 0) {
          append_mapped(c, map_kind::title, out);
        } else {
          append_lower(cps, i, out);
        }
        break;
      case py_case::swapcase:
        if (is_upper(c)) {
          append_lower(cps, i, out);
        } else if (is_lower(c)) {
          append_mapped(c, map_kind::upper, out);
        } else {
          detail::append_utf8(out, c);
        }
        break;
    }
  }
  return out;
}

std::string jinja_title(std::string_view s) {
  // re.split(r"([-\s({\[<]+)", s): separators and words alternate; each non-empty piece is
  // piece[0].upper() + piece[1:].lower() (a separator run is left as it is by both).
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t j = i;
    bool sep = false;
    {
      std::size_t k = i;
      const char32_t c = decode_utf8(s, k);
      sep = detail::py_isspace(c) || c == '-' || c == '(' || c == '{' || c == '[' || c == '<';
    }
    while (j < s.size()) {
      std::size_t k = j;
      const char32_t c = decode_utf8(s, k);
      const bool is_sep =
          detail::py_isspace(c) || c == '-' || c == '(' || c == '{' || c == '[' || c == '<';
      if (is_sep != sep) break;
      j = k;
    }
    const std::string_view piece = s.substr(i, j - i);
    std::size_t first = 0;
    (void)decode_utf8(piece, first);
    out += py_str_case(piece.substr(0, first), py_case::upper);
    out += py_str_case(piece.substr(first), py_case::lower);
    i = j;
  }
  return out;
}

bool py_str_is(std::string_view s, py_pred what) {
  const auto numeric_type = [](char32_t c) {
    return u_getIntPropertyValue(static_cast<UChar32>(c), UCHAR_NUMERIC_TYPE);
  };
  const auto decimal = [&](char32_t c) { return numeric_type(c) == U_NT_DECIMAL; };
  const auto digit = [&](char32_t c) {
    return numeric_type(c) == U_NT_DECIMAL || numeric_type(c) == U_NT_DIGIT;
  };
  const auto numeric = [&](char32_t c) { return numeric_type(c) != U_NT_NONE; };
  const auto alpha = [](char32_t c) { return u_isalpha(static_cast<UChar32>(c)) != 0; };
  bool any_cased = false;
  bool previous_cased = false;
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size();) {
    const char32_t c = decode_utf8(s, i);
    switch (what) {
      case py_pred::isupper:
        if (is_lower(c) || is_title(c)) return false;
        any_cased = any_cased || is_upper(c);
        break;
      case py_pred::islower:
        if (is_upper(c) || is_title(c)) return false;
        any_cased = any_cased || is_lower(c);
        break;
      case py_pred::istitle:
        if (is_upper(c) || is_title(c)) {
          if (previous_cased) return false;
          previous_cased = any_cased = true;
        } else if (is_lower(c)) {
          if (!previous_cased) return false;
          previous_cased = any_cased = true;
        } else {
          previous_cased = false;
        }
        break;
      case py_pred::isalpha:
        if (!alpha(c)) return false;
        break;
      case py_pred::isdigit:
        if (!digit(c)) return false;
        break;
      case py_pred::isdecimal:
        if (!decimal(c)) return false;
        break;
      case py_pred::isnumeric:
        if (!numeric(c)) return false;
        break;
      case py_pred::isalnum:
        if (!alpha(c) && !numeric(c)) return false;
        break;
    }
  }
  const bool case_pred =
      what == py_pred::isupper || what == py_pred::islower || what == py_pred::istitle;
  return case_pred ? any_cased : true;
}

}  // namespace ocml::tmpl
