// SPDX-License-Identifier: Apache-2.0
#include "interchange/json_reader.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "interchange/pyjson.hpp"

namespace ocml::detail {

namespace {

// The first '"', '\\' or control byte in [p, end), or end: 16 bytes a step.
const char* find_string_special(const char* p, const char* end) noexcept {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i below = _mm_set1_epi8(0x1f);
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i ctrl = _mm_cmpeq_epi8(_mm_min_epu8(v, below), v);  // v <= 0x1f
    const __m128i hit =
        _mm_or_si128(ctrl, _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hit));
    if (mask != 0) return p + __builtin_ctz(mask);
    p += 16;
  }
#endif
  for (; p < end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\' || c < 0x20) return p;
  }
  return end;
}

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The four hex digits at p (readable); `lower` becomes false if one is an upper-case letter.
bool hex4(const char* p, unsigned& value, bool& lower) noexcept {
  value = 0;
  for (int i = 0; i < 4; ++i) {
    const int h = hex_value(p[i]);
    if (h < 0) return false;
    if (p[i] >= 'A' && p[i] <= 'F') lower = false;
    value = value * 16 + static_cast<unsigned>(h);
  }
  return true;
}

// How escaped_buffer::escape writes a code point below 0x20: \b \t \n \f \r short, others \u00xx.
bool short_escape(unsigned cp) noexcept {
  return cp == 0x08 || cp == 0x09 || cp == 0x0a || cp == 0x0c || cp == 0x0d;
}

char* put_utf8(char* out, unsigned cp) noexcept {
  if (cp < 0x80) {
    *out++ = static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out++ = static_cast<char>(0xc0 | (cp >> 6));
    *out++ = static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    *out++ = static_cast<char>(0xe0 | (cp >> 12));
    *out++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    *out++ = static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    *out++ = static_cast<char>(0xf0 | (cp >> 18));
    *out++ = static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    *out++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    *out++ = static_cast<char>(0x80 | (cp & 0x3f));
  }
  return out;
}

}  // namespace

char* unescape_into(std::string_view raw, char* out) noexcept {
  const char* p = raw.data();
  const char* const end = p + raw.size();
  while (p < end) {
    const void* hit = std::memchr(p, '\\', static_cast<std::size_t>(end - p));
    const char* bs = hit == nullptr ? end : static_cast<const char*>(hit);
    std::memcpy(out, p, static_cast<std::size_t>(bs - p));
    out += bs - p;
    if (bs == end) break;
    const char e = bs[1];
    p = bs + 2;
    switch (e) {
      case 'b':
        *out++ = '\b';
        break;
      case 'f':
        *out++ = '\f';
        break;
      case 'n':
        *out++ = '\n';
        break;
      case 'r':
        *out++ = '\r';
        break;
      case 't':
        *out++ = '\t';
        break;
      case 'u': {
        unsigned cp = 0;
        bool lower = true;
        (void)hex4(p, cp, lower);
        p += 4;
        if (cp >= 0xd800 && cp <= 0xdbff) {  // checked: a low surrogate follows
          unsigned lo = 0;
          (void)hex4(p + 2, lo, lower);
          p += 6;
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        }
        out = put_utf8(out, cp);
        break;
      }
      default:
        *out++ = e;
        break;  // '"', '\\', '/'
    }
  }
  return out;
}

void json_arena::reset(std::size_t input_size) {
  const std::size_t need = 2 * input_size + 16;
  // Every render of ChatML reads through a thread's arena: one huge request must not keep
  // its memory held by that thread for good.
  if (capacity_ < need || (capacity_ > (std::size_t{8} << 20) && capacity_ / 4 > need)) {
    buf_.reset(new char[need]);  // NOLINT(*-avoid-c-arrays)
    capacity_ = need;
  }
  used_ = 0;
}

char* json_arena::take(std::size_t n) noexcept {
  if (capacity_ - used_ < n) return nullptr;
  char* p = buf_.get() + used_;
  used_ += n;
  return p;
}

char json_reader::skip_space() noexcept {
  while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  return p_ < end_ ? *p_ : '\0';
}

bool json_reader::string_slow(json_string& s) noexcept {
  if (peek() != '"') return fail();
  const char* const start = ++p_;
  bool escaped = false;
  bool canonical = true;
  for (;;) {
    p_ = find_string_special(p_, end_);
    if (p_ == end_) return fail();
    const auto c = static_cast<unsigned char>(*p_);
    if (c == '"') break;
    if (c < 0x20) return fail();  // a raw control byte
    escaped = true;
    if (end_ - p_ < 2) return fail();
    const char e = p_[1];
    if (e == '"' || e == '\\' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
      p_ += 2;
      continue;
    }
    if (e == '/') {
      canonical = false;
      p_ += 2;
      continue;
    }
    unsigned cp = 0;
    bool lower = true;
    if (e != 'u' || end_ - p_ < 6 || !hex4(p_ + 2, cp, lower)) return fail();
    p_ += 6;
    if (cp >= 0xdc00 && cp <= 0xdfff) return fail();  // a lone low surrogate
    if (cp >= 0xd800 && cp <= 0xdbff) {
      unsigned lo = 0;
      if (end_ - p_ < 6 || p_[0] != '\\' || p_[1] != 'u' || !hex4(p_ + 2, lo, lower) ||
          lo < 0xdc00 || lo > 0xdfff) {
        return fail();
      }
      p_ += 6;
      canonical = false;
      continue;
    }
    if (cp >= 0x20 || short_escape(cp) || !lower) canonical = false;
  }
  s.raw = std::string_view(start, static_cast<std::size_t>(p_ - start));
  s.escaped = escaped;
  s.canonical = canonical;
  ++p_;
  return true;
}

bool json_reader::unescape(const json_string& s, std::string_view& out) noexcept {
  char* const dst = arena_.take(s.raw.size());
  if (dst == nullptr) return fail();
  const char* const end = unescape_into(s.raw, dst);
  const auto n = static_cast<std::size_t>(end - dst);
  arena_.give_back(s.raw.size() - n);
  out = std::string_view(dst, n);
  return true;
}

bool json_reader::literal(std::string_view& word) noexcept {
  const char c = peek();
  word = c == 't' ? "true" : c == 'f' ? "false" : "null";
  if (static_cast<std::size_t>(end_ - p_) < word.size() ||
      std::memcmp(p_, word.data(), word.size()) != 0) {
    return fail();
  }
  p_ += word.size();
  return true;
}

bool json_reader::number(std::string_view& raw, bool& integer) noexcept {
  (void)peek();
  const char* const start = p_;
  const auto digit = [this] { return p_ < end_ && *p_ >= '0' && *p_ <= '9'; };
  const auto digits = [&] {
    if (!digit()) return false;
    while (digit()) ++p_;
    return true;
  };
  if (p_ < end_ && *p_ == '-') ++p_;
  if (p_ < end_ && *p_ == '0') {
    ++p_;
  } else if (!digits()) {
    return fail();
  }
  integer = true;
  if (p_ < end_ && *p_ == '.') {
    ++p_;
    integer = false;
    if (!digits()) return fail();
  }
  if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
    ++p_;
    integer = false;
    if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
    if (!digits()) return fail();
  }
  raw = std::string_view(start, static_cast<std::size_t>(p_ - start));
  // A number the document readers refuse or take another way (beyond a double, an integer
  // beyond 64 bits) is declined here too, so the general path answers it whatever path
  // the line would have taken ("seed": 1e999999 is E-JSON-INPUT on every one).
  if (!integer || raw.size() > 18) {
    const char* const last = raw.data() + raw.size();
    std::from_chars_result r{};
    if (!integer) {
      double d = 0;
      r = std::from_chars(raw.data(), last, d);
    } else if (raw.front() == '-') {
      std::int64_t i = 0;
      r = std::from_chars(raw.data(), last, i);
    } else {
      std::uint64_t u = 0;
      r = std::from_chars(raw.data(), last, u);
    }
    if (r.ec != std::errc() || r.ptr != last) return fail();
  }
  return true;
}

bool json_reader::skip(int depth) noexcept {
  const char c = peek();
  if (c == '"') {
    json_string s;
    return string(s);
  }
  if (c == '{' || c == '[') {
    if (depth >= max_depth) return fail();
    bool empty = false;
    if (!begin(c, empty)) return false;
    if (empty) return true;
    const char close = c == '{' ? '}' : ']';
    do {
      json_string raw;
      std::string_view k;
      if (c == '{' && !key(raw, k)) return false;
      if (!skip(depth + 1)) return false;
    } while (more(close));
    return !failed_;
  }
  if (c == 't' || c == 'f' || c == 'n') {
    std::string_view word;
    return literal(word);
  }
  std::string_view raw;
  bool integer = false;
  return number(raw, integer);
}

void python_dump_key(const json_string& s, std::string_view value, escaped_buffer& out) {
  out.raw("\\\"");
  if (s.canonical) {
    out.escape(s.raw);  // the raw text is the value escaped once: escaping it gives twice
  } else {
    out.escape_twice(value);
  }
  out.raw("\\\"");
}

bool python_dump_string(json_reader& r, const json_string& s, escaped_buffer& out) {
  std::string_view value;  // only needed when the raw text is not canonical
  if (!s.canonical && !r.value_of(s, value)) return false;
  python_dump_key(s, value, out);
  return true;
}

namespace {

bool python_number(json_reader& r, escaped_buffer& out) {
  std::string_view raw;
  bool integer = false;
  if (!r.number(raw, integer)) return false;
  if (integer) {
    // Python keeps an int's digits; beyond 18 the general path decides (big integers).
    if (raw == "-0" || raw.size() > (raw[0] == '-' ? 19u : 18u)) return false;
    out.raw(raw);
    return true;
  }
  double d = 0;
  const auto res = std::from_chars(raw.data(), raw.data() + raw.size(), d);
  if (res.ec != std::errc() || res.ptr != raw.data() + raw.size()) return false;
  out.raw(python_float_repr(d));
  return true;
}

}  // namespace

bool python_dump(json_reader& r, escaped_buffer& out, int depth) {
  const char c = r.peek();
  if (c == '"') {
    json_string s;
    return r.string(s) && python_dump_string(r, s, out);
  }
  if (c == '{' || c == '[') {
    if (depth >= json_reader::max_depth) return false;
    if (c == '{') {
      return python_dump_object(r, out,
                                [&](std::string_view) { return python_dump(r, out, depth + 1); });
    }
    out.raw('[');
    bool first = true;
    const bool ok = r.array([&] {
      if (!first) out.raw(", ");
      first = false;
      return python_dump(r, out, depth + 1);
    });
    out.raw(']');
    return ok;
  }
  if (c == 't' || c == 'f' || c == 'n') {
    std::string_view word;
    if (!r.literal(word)) return false;
    out.raw(word);
    return true;
  }
  return python_number(r, out);
}

}  // namespace ocml::detail
