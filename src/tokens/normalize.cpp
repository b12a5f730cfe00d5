// SPDX-License-Identifier: Apache-2.0
// UAX #15 normalization (decompose, order marks canonically, compose) over the Unicode 9.0
// tables, and the other normalizers a tokenizer.json may list.
#include "tokens/normalize.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/utf8.hpp"
#include "tokens/normalize_tables.hpp"
#include "tokens/unicode.hpp"

namespace ocml::detail {

namespace {

namespace u = unicode;

constexpr std::uint32_t kSBase = 0xAC00;
constexpr std::uint32_t kLBase = 0x1100;
constexpr std::uint32_t kVBase = 0x1161;
constexpr std::uint32_t kTBase = 0x11A7;
constexpr std::uint32_t kLCount = 19;
constexpr std::uint32_t kVCount = 21;
constexpr std::uint32_t kTCount = 28;
constexpr std::uint32_t kNCount = kVCount * kTCount;
constexpr std::uint32_t kSCount = kLCount * kNCount;
/// A byte that does not begin well-formed UTF-8 travels as kRawByte + its value.
constexpr std::uint32_t kRawByte = 0x110000;

std::uint8_t ccc(std::uint32_t cp) noexcept {
  return cp >= kRawByte ? 0 : static_cast<std::uint8_t>(u::norm_entry(cp) >> 8);
}

void put_utf8(std::string& out, std::uint32_t cp) {
  if (cp >= kRawByte) {
    out.push_back(static_cast<char>(cp - kRawByte));
  } else {
    append_utf8(out, cp);
  }
}

void decompose(std::uint32_t cp, bool compat, std::vector<std::uint32_t>& out) {
  if (cp >= kRawByte) {
    out.push_back(cp);
    return;
  }
  if (cp >= kSBase && cp < kSBase + kSCount) {
    const std::uint32_t s = cp - kSBase;
    out.push_back(kLBase + s / kNCount);
    out.push_back(kVBase + (s % kNCount) / kTCount);
    if (s % kTCount != 0) out.push_back(kTBase + s % kTCount);
    return;
  }
  const unsigned bit = compat ? 2u : 1u;
  if ((u::norm_entry(cp) & bit) != 0) {
    out.push_back(cp);
    return;
  }
  const auto* end = u::kDecompositions + u::kDecompositionCount;
  const auto* d =
      std::lower_bound(u::kDecompositions, end, cp,
                       [](const u::decomposition& e, std::uint32_t c) { return e.cp < c; });
  if (d == end || d->cp != cp) {
    out.push_back(cp);
    return;
  }
  const std::uint32_t at = compat ? d->compat : d->canon;
  const std::uint32_t len = compat ? d->compat_len : d->canon_len;
  out.insert(out.end(), u::kDecompositionPool + at, u::kDecompositionPool + at + len);
}

// The primary composite of a + b, or 0.
std::uint32_t compose(std::uint32_t a, std::uint32_t b) noexcept {
  if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount) {
    return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
  }
  if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase &&
      b < kTBase + kTCount) {
    return a + (b - kTBase);
  }
  const auto* end = u::kCompositions + u::kCompositionCount;
  const auto* c =
      std::lower_bound(u::kCompositions, end, std::pair{a, b},
                       [](const u::composition& e, std::pair<std::uint32_t, std::uint32_t> k) {
                         return e.first != k.first ? e.first < k.first : e.second < k.second;
                       });
  return c != end && c->first == a && c->second == b ? c->composite : 0;
}

// Canonical ordering: each run of non-starters sorted by class, stably (O(n log n) a run:
// a base followed by a million marks must not take quadratic time).
void reorder(std::vector<std::uint32_t>& cps) {
  const auto by_class = [](std::uint32_t a, std::uint32_t b) { return ccc(a) < ccc(b); };
  for (std::size_t i = 0; i < cps.size();) {
    if (ccc(cps[i]) == 0) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < cps.size() && ccc(cps[j]) != 0) ++j;
    if (j - i > 1) {
      std::stable_sort(cps.begin() + static_cast<std::ptrdiff_t>(i),
                       cps.begin() + static_cast<std::ptrdiff_t>(j), by_class);
    }
    i = j;
  }
}

// Canonical composition in place (UAX #15's algorithm, as unicode-normalization runs it).
void compose_all(std::vector<std::uint32_t>& cps) {
  constexpr std::size_t none = static_cast<std::size_t>(-1);
  std::size_t out = 0;
  std::size_t starter = none;
  int last = -1;  // the class of the last character kept after the starter; -1: none
  for (std::size_t i = 0; i < cps.size(); ++i) {
    const std::uint32_t cp = cps[i];
    const int c = ccc(cp);
    if (starter == none) {
      cps[out++] = cp;
      if (c == 0) starter = out - 1;
      continue;
    }
    const bool blocked = last >= 0 && last >= c;
    if (!blocked) {
      if (const std::uint32_t k = compose(cps[starter], cp); k != 0) {
        cps[starter] = k;
        continue;
      }
    }
    cps[out++] = cp;
    if (c == 0) {
      starter = out - 1;
      last = -1;
    } else {
      last = c;
    }
  }
  cps.resize(out);
}

}  // namespace

bool normalize_unicode(unicode_form form, std::string_view text, std::string& out) {
  const unsigned bit = 1u << static_cast<unsigned>(form);
  const auto* b = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = b + text.size();
  std::size_t prev = 0;  // where the code point before `i` begins
  std::size_t i = 0;
  while (i < text.size()) {
    if (b[i] < 0x80) {
      prev = i++;
      continue;
    }
    const u::decoded d = u::decode(b + i, end);
    if (d.cp < kRawByte && (u::norm_entry(d.cp) & bit) == 0) break;
    prev = i;
    i += d.len;
  }
  if (i == text.size()) return false;
  // Everything before `prev` is inert: the starter at `prev` may compose with what follows.
  const std::size_t from = i == 0 ? 0 : prev;
  thread_local std::vector<std::uint32_t> cps;
  cps.clear();
  const bool compat = form == unicode_form::nfkd || form == unicode_form::nfkc;
  for (std::size_t k = from; k < text.size();) {
    const u::decoded d = u::decode(b + k, end);
    decompose(d.cp < kRawByte ? d.cp : kRawByte + b[k], compat, cps);
    k += d.len;
  }
  reorder(cps);
  if (form == unicode_form::nfc || form == unicode_form::nfkc) compose_all(cps);
  out.assign(text.substr(0, from));
  for (const std::uint32_t cp : cps) put_utf8(out, cp);
  return true;
}

namespace {

bool white_space(std::uint32_t cp) noexcept {
  return (u::classes(cp) & u::WS) != 0;
}

// Strips leading and/or trailing White_Space (Rust's char::is_whitespace).
std::string_view strip(std::string_view s, bool left, bool right) {
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t begin = 0;
  std::size_t end = s.size();
  if (left) {
    while (begin < end) {
      const u::decoded d = u::decode(b + begin, b + end);
      if (!white_space(d.cp)) break;
      begin += d.len;
    }
  }
  if (right) {
    while (end > begin) {
      std::size_t k = end - 1;
      while (k > begin && (b[k] & 0xC0) == 0x80) --k;
      const u::decoded d = u::decode(b + k, b + end);
      if (k + d.len != end || !white_space(d.cp)) break;
      end = k;
    }
  }
  return s.substr(begin, end - begin);
}

}  // namespace

namespace {

// The lowercase mapping of `cp`, or null when it is its own.
const u::lower_mapping* lower_of(std::uint32_t cp) {
  const u::lower_mapping* end = u::kLowercase + u::kLowercaseCount;
  const u::lower_mapping* at = std::lower_bound(
      u::kLowercase, end, cp, [](const u::lower_mapping& m, std::uint32_t c) { return m.cp < c; });
  return at != end && at->cp == cp ? at : nullptr;
}

}  // namespace

bool lowercase(std::string_view text, std::string& out) {
  const auto* b = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;  // the first byte that may change
  for (; i < n; ++i) {
    if (b[i] >= 0x80 || (b[i] >= 'A' && b[i] <= 'Z')) break;
  }
  bool changed = false;
  out.clear();
  for (std::size_t at = i; at < n;) {
    if (b[at] < 0x80) {
      const bool upper = b[at] >= 'A' && b[at] <= 'Z';
      if (upper && !changed) out.assign(text.substr(0, at));
      changed = changed || upper;
      if (changed) out.push_back(static_cast<char>(upper ? b[at] + 32 : b[at]));
      ++at;
      continue;
    }
    const u::decoded d = u::decode(b + at, b + n);
    const u::lower_mapping* m = lower_of(d.cp);  // none for a byte that is not UTF-8
    if (m != nullptr && !changed) {
      out.assign(text.substr(0, at));
      changed = true;
    }
    if (m != nullptr) {
      append_utf8(out, m->first);
      if (m->second != 0) append_utf8(out, m->second);
    } else if (changed) {
      out.append(text.substr(at, d.len));
    }
    at += d.len;
  }
  return changed;
}

std::string_view apply_normalizers(std::span<const normalizer_step> steps, std::string_view text,
                                   std::string& storage, std::string& scratch) {
  for (const auto& step : steps) {
    switch (step.what) {
      case normalizer_step::kind::unicode:
        if (normalize_unicode(step.form, text, scratch)) {
          storage.swap(scratch);
          text = storage;
        }
        break;
      case normalizer_step::kind::prepend:
        if (!text.empty()) {
          scratch.assign(step.pattern);
          scratch.append(text);
          storage.swap(scratch);
          text = storage;
        }
        break;
      case normalizer_step::kind::replace: {
        if (step.pattern.empty() || text.find(step.pattern) == std::string_view::npos) break;
        scratch.clear();
        std::size_t at = 0;
        for (std::size_t hit; (hit = text.find(step.pattern, at)) != std::string_view::npos;
             at = hit + step.pattern.size()) {
          scratch.append(text.substr(at, hit - at));
          scratch.append(step.content);
        }
        scratch.append(text.substr(at));
        storage.swap(scratch);
        text = storage;
        break;
      }
      case normalizer_step::kind::strip:
        text = strip(text, step.left, step.right);
        break;
      case normalizer_step::kind::lowercase:
        if (lowercase(text, scratch)) {
          storage.swap(scratch);
          text = storage;
        }
        break;
    }
  }
  return text;
}

}  // namespace ocml::detail
