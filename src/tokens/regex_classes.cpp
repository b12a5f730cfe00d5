// SPDX-License-Identifier: Apache-2.0
// The regex rewriter: Unicode classes as explicit ranges of the pinned Unicode 16.0 data.
#include "tokens/regex_classes.hpp"

#include <cstdio>
#include <utility>
#include <vector>

namespace ocml::detail {

namespace {

using ranges = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

// The ranges of the categories whose names start with `name` (one letter: the group; two:
// the category), surrogates left out (PCRE2 refuses them in UTF mode). Empty when `name`
// names no category.
ranges category_ranges(std::string_view name) {
  ranges out;
  if (name.empty() || name.size() > 2) return out;
  for (std::size_t i = 0; i < unicode::kCategoryRunCount; ++i) {
    const auto& run = unicode::kCategoryRuns[i];
    const std::string_view cat = unicode::kCategoryNames[run.category];
    if (cat == "Cs" || cat.substr(0, name.size()) != name) continue;
    const std::uint32_t last =
        i + 1 < unicode::kCategoryRunCount ? unicode::kCategoryRuns[i + 1].first - 1 : 0x10FFFF;
    if (!out.empty() && out.back().second + 1 == run.first) {
      out.back().second = last;
    } else {
      out.emplace_back(run.first, last);
    }
  }
  return out;
}

ranges white_space_ranges() {
  ranges out;
  for (std::size_t i = 0; i < unicode::kWhiteSpaceRangeCount; ++i) {
    out.emplace_back(unicode::kWhiteSpaceRanges[i][0], unicode::kWhiteSpaceRanges[i][1]);
  }
  return out;
}

void spell(const ranges& r, std::string& out) {
  char buf[40];
  for (const auto& [a, b] : r) {
    if (a == b) {
      std::snprintf(buf, sizeof buf, "\\x{%X}", a);
    } else {
      std::snprintf(buf, sizeof buf, "\\x{%X}-\\x{%X}", a, b);
    }
    out += buf;
  }
}

}  // namespace

std::string spell_unicode_classes(std::string_view p, std::size_t limit) {
  std::string out;
  out.reserve(p.size());
  bool in_class = false;
  for (std::size_t i = 0; i < p.size() && out.size() <= limit; ++i) {
    const char c = p[i];
    if (c == '[' && !in_class) {
      in_class = true;
      out += c;
      // A ']' right after '[' or '[^' is a literal.
      if (i + 1 < p.size() && p[i + 1] == '^') out += p[++i];
      if (i + 1 < p.size() && p[i + 1] == ']') out += p[++i];
      continue;
    }
    if (c == ']' && in_class) {
      in_class = false;
      out += c;
      continue;
    }
    if (c != '\\' || i + 1 >= p.size()) {
      out += c;
      continue;
    }
    const char e = p[i + 1];
    if (e == 'p' || e == 'P') {
      std::string_view name;
      std::size_t end = i + 2;
      if (end < p.size() && p[end] == '{') {
        const std::size_t close = p.find('}', end);
        if (close != std::string_view::npos) {
          name = p.substr(end + 1, close - end - 1);
          end = close + 1;
        }
      } else if (end < p.size()) {
        name = p.substr(end, 1);
        end += 1;
      }
      const bool negated = e == 'P';
      const ranges r = category_ranges(name);
      if (!r.empty() && !(negated && in_class)) {
        if (!in_class) out += negated ? "[^" : "[";
        spell(r, out);
        if (!in_class) out += ']';
        i = end - 1;
        continue;
      }
      out.append(p.substr(i, end - i));
      i = end - 1;
      continue;
    }
    if (e == 's' || (e == 'S' && !in_class)) {
      if (!in_class) out += e == 'S' ? "[^" : "[";
      spell(white_space_ranges(), out);
      if (!in_class) out += ']';
      ++i;
      continue;
    }
    out += c;  // any other escape, copied whole (so an escaped bracket stays escaped)
    out += e;
    ++i;
  }
  return out;
}

}  // namespace ocml::detail
