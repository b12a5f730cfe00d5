// SPDX-License-Identifier: Apache-2.0
// PCRE2 behind the response-template patterns.
#define PCRE2_CODE_UNIT_WIDTH 8
#include "response/regex.hpp"

#include <pcre2.h>

#include <cctype>

namespace ocml::resp {

namespace {

constexpr std::uint32_t kMatchLimit = 10'000'000;
constexpr std::uint32_t kDepthLimit = 1'000'000;  // KiB of heap for backtracking

pcre2_code* code_of(void* c) {
  return static_cast<pcre2_code*>(c);
}

// Per-thread match state: one match block grown to the widest pattern, and the limits.
struct thread_state {
  pcre2_match_data* md = nullptr;
  std::uint32_t pairs = 0;
  pcre2_match_context* ctx = nullptr;
  thread_state() {
    ctx = pcre2_match_context_create(nullptr);
    pcre2_set_match_limit(ctx, kMatchLimit);
    pcre2_set_heap_limit(ctx, kDepthLimit);
  }
  ~thread_state() {
    if (md != nullptr) pcre2_match_data_free(md);
    pcre2_match_context_free(ctx);
  }
  thread_state(const thread_state&) = delete;
  thread_state& operator=(const thread_state&) = delete;
  pcre2_match_data* data(std::uint32_t need) {
    if (md == nullptr || pairs < need) {
      if (md != nullptr) pcre2_match_data_free(md);
      pairs = need < 16 ? 16 : need;
      md = pcre2_match_data_create(pairs, nullptr);
    }
    return md;
  }
};

thread_state& state() {
  thread_local thread_state s;
  return s;
}

bool is_hex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

}  // namespace

std::string translate_python_pattern(std::string_view p) {
  std::string out;
  out.reserve(p.size() + 8);
  bool in_class = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      const char n = p[i + 1];
      const std::size_t digits = n == 'u' ? 4 : n == 'U' ? 8 : 0;
      if (digits != 0 && i + 2 + digits <= p.size()) {
        bool hex = true;
        for (std::size_t k = 0; k < digits; ++k) hex = hex && is_hex(p[i + 2 + k]);
        if (hex) {
          out += "\\x{";
          out.append(p.substr(i + 2, digits));
          out += '}';
          i += 1 + digits;
          continue;
        }
      }
      if (n == 'Z' && !in_class) {
        out += "\\z";
      } else {
        out += c;
        out += n;
      }
      ++i;
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      out += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out += c;
      // A ']' right after '[' or '[^' is a literal member.
      if (i + 1 < p.size() && p[i + 1] == '^') out += p[++i];
      if (i + 1 < p.size() && p[i + 1] == ']') out += p[++i];
      continue;
    }
    if (c == '{' && i + 1 < p.size() && p[i + 1] == ',' && !out.empty()) {
      std::size_t k = i + 2;
      while (k < p.size() && std::isdigit(static_cast<unsigned char>(p[k])) != 0) ++k;
      if (k > i + 2 && k < p.size() && p[k] == '}') {
        out += "{0";
        continue;  // the ',' and digits follow as they are
      }
    }
    out += c;
  }
  return out;
}

std::shared_ptr<const regex> regex::compile(std::string_view pattern, std::string& error) {
  const std::string translated = translate_python_pattern(pattern);
  int code = 0;
  PCRE2_SIZE at = 0;
  pcre2_code* re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                                 PCRE2_UTF | PCRE2_UCP | PCRE2_DOTALL | PCRE2_MATCH_INVALID_UTF,
                                 &code, &at, nullptr);
  if (re == nullptr) {
    PCRE2_UCHAR buf[256];
    pcre2_get_error_message(code, buf, sizeof buf);
    error = std::string(reinterpret_cast<const char*>(buf)) + " at offset " + std::to_string(at);
    return nullptr;
  }
  pcre2_jit_compile(re, PCRE2_JIT_COMPLETE | PCRE2_JIT_PARTIAL_HARD);  // falls back if absent
  std::shared_ptr<regex> r(new regex());
  r->code_ = re;
  std::uint32_t count = 0;
  std::uint32_t entry = 0;
  PCRE2_SPTR table = nullptr;
  pcre2_pattern_info(re, PCRE2_INFO_NAMECOUNT, &count);
  pcre2_pattern_info(re, PCRE2_INFO_NAMEENTRYSIZE, &entry);
  pcre2_pattern_info(re, PCRE2_INFO_NAMETABLE, &table);
  for (std::uint32_t k = 0; k < count; ++k) {
    const PCRE2_SPTR e = table + static_cast<std::size_t>(k) * entry;
    const int group = (e[0] << 8) | e[1];
    std::string name(reinterpret_cast<const char*>(e + 2));
    r->names_.push_back(name);
    r->groups_.emplace_back(std::move(name), group);
  }
  std::uint32_t behind = 0;
  pcre2_pattern_info(re, PCRE2_INFO_MAXLOOKBEHIND, &behind);
  r->behind_ = static_cast<std::size_t>(behind) * 4;
  regex_match m;
  r->empty_ = r->search("", 0, false, m) == search_status::found;
  return r;
}

regex::~regex() {
  pcre2_code_free(code_of(code_));
}

search_status regex::search(std::string_view subject, std::size_t from, bool partial,
                            regex_match& out) const {
  std::uint32_t captures = 0;
  pcre2_pattern_info(code_of(code_), PCRE2_INFO_CAPTURECOUNT, &captures);
  thread_state& st = state();
  pcre2_match_data* md = st.data(captures + 1);
  const int rc = pcre2_match(code_of(code_), reinterpret_cast<PCRE2_SPTR>(subject.data()),
                             subject.size(), from, partial ? PCRE2_PARTIAL_HARD : 0, md, st.ctx);
  if (rc == PCRE2_ERROR_NOMATCH) return search_status::none;
  if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT) {
    return search_status::limit;
  }
  const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
  out.groups.clear();
  if (rc == PCRE2_ERROR_PARTIAL) {
    out.start = ov[0];
    out.end = subject.size();
    out.partial = true;
    return search_status::found;
  }
  if (rc < 0) return search_status::none;
  out.start = ov[0];
  out.end = ov[1];
  out.partial = false;
  for (const auto& [name, g] : groups_) {
    if (g >= rc) continue;
    const auto at = static_cast<std::size_t>(g) * 2;
    const PCRE2_SIZE b = ov[at];
    const PCRE2_SIZE e = ov[at + 1];
    if (b == PCRE2_UNSET) continue;
    out.groups.emplace_back(name, std::string(subject.substr(b, e - b)));
  }
  return search_status::found;
}

}  // namespace ocml::resp
