// SPDX-License-Identifier: Apache-2.0
// The general pre-tokenizer: matches of each step's pattern, turned into pieces by the
// step's behaviour exactly as Hugging Face's NormalizedString::split folds them.
#define PCRE2_CODE_UNIT_WIDTH 8
#include "tokens/split.hpp"

#include <pcre2.h>

#include <algorithm>

#include "tokens/regex_classes.hpp"
#include "tokens/unicode.hpp"

namespace ocml::detail {

namespace {

namespace u = unicode;
constexpr std::size_t kNpos = std::string_view::npos;

constexpr std::size_t kJitStackFirst = std::size_t{32} << 10;
constexpr std::size_t kJitStackMax = std::size_t{8} << 20;

struct match_state {
  pcre2_match_data* md = pcre2_match_data_create(4, nullptr);
  pcre2_match_context* ctx = pcre2_match_context_create(nullptr);
  pcre2_jit_stack* stack = pcre2_jit_stack_create(kJitStackFirst, kJitStackMax, nullptr);
  match_state() {
    pcre2_set_match_limit(ctx, 10'000'000);
    pcre2_set_heap_limit(ctx, 256 * 1024);  // KiB
    if (stack != nullptr) pcre2_jit_stack_assign(ctx, nullptr, stack);
  }
  ~match_state() {
    pcre2_match_data_free(md);
    pcre2_match_context_free(ctx);
    if (stack != nullptr) pcre2_jit_stack_free(stack);
  }
  match_state(const match_state&) = delete;
  match_state& operator=(const match_state&) = delete;
};

struct span_match {
  std::uint32_t begin;
  std::uint32_t end;
  bool is_match;
};

std::size_t char_len(std::string_view s, std::size_t i) {
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  return u::decode(b + i, b + s.size()).len;
}

// Every match of the step's pattern in `s`, with the gaps between them, in order.
void find_matches(const pre_step& step, std::string_view s, std::vector<span_match>& out) {
  out.clear();
  const auto push = [&](std::size_t b, std::size_t e, bool m) {
    out.push_back({static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(e), m});
  };
  if (s.empty()) {
    push(0, 0, false);
    return;
  }
  std::size_t prev = 0;
  const auto hit = [&](std::size_t b, std::size_t e) {
    if (prev != b) push(prev, b, false);
    push(b, e, true);
    prev = e;
  };
  switch (step.what) {
    case pre_step::kind::scanner:
    case pre_step::kind::byte_level:
      for (std::size_t i = 0; i < s.size();) {
        const std::size_t len = next_piece(step.scanner, s, i);
        hit(i, i + len);
        i += len;
      }
      break;
    case pre_step::kind::regex:
      for (std::size_t from = 0, last_end = kNpos; from <= s.size();) {
        const auto [b, e] = step.re->find(s, from);
        if (b == kNpos) break;
        // An empty match where the previous match ended is skipped, as rust-onig's
        // find_iter skips it.
        if (b != e || b != last_end) hit(b, e);
        last_end = e;
        // An empty match moves on by one character, as Oniguruma's iteration does.
        from = e > b ? e : (e < s.size() ? e + char_len(s, e) : s.size() + 1);
      }
      break;
    case pre_step::kind::literal:
    case pre_step::kind::metaspace:
      if (step.literal.empty()) {
        push(0, s.size(), false);
        return;
      }
      for (std::size_t at = 0; (at = s.find(step.literal, at)) != kNpos;
           at += step.literal.size()) {
        hit(at, at + step.literal.size());
      }
      break;
    case pre_step::kind::digits:
    case pre_step::kind::white_space: {
      const std::uint8_t want = step.what == pre_step::kind::digits ? u::N : u::WS;
      const auto* b = reinterpret_cast<const unsigned char*>(s.data());
      for (std::size_t i = 0; i < s.size();) {
        const u::decoded d = u::decode(b + i, b + s.size());
        if ((u::classes(d.cp) & want) != 0) hit(i, i + d.len);
        i += d.len;
      }
      break;
    }
  }
  if (prev != s.size()) push(prev, s.size(), false);
}

// Hugging Face's fold of the matches into pieces: {begin, end, removed}.
void fold(split_behavior behavior, bool invert, std::vector<span_match>& m) {
  if (invert) {
    for (auto& x : m) x.is_match = !x.is_match;
  }
  std::vector<span_match> acc;
  acc.reserve(m.size());
  bool previous = false;
  switch (behavior) {
    case split_behavior::isolated:
      for (auto& x : m) x.is_match = false;
      return;
    case split_behavior::removed:
      return;  // is_match now means "removed"
    case split_behavior::contiguous:
      for (const auto& x : m) {
        if (x.is_match == previous && !acc.empty()) {
          acc.back().end = x.end;
        } else {
          acc.push_back({x.begin, x.end, false});
        }
        previous = x.is_match;
      }
      break;
    case split_behavior::merged_with_previous:
      for (const auto& x : m) {
        if (x.is_match && !previous && !acc.empty()) {
          acc.back().end = x.end;
        } else {
          acc.push_back({x.begin, x.end, false});
        }
        previous = x.is_match;
      }
      break;
    case split_behavior::merged_with_next:
      for (auto it = m.rbegin(); it != m.rend(); ++it) {
        if (it->is_match && !previous && !acc.empty()) {
          acc.back().begin = it->begin;
        } else {
          acc.push_back({it->begin, it->end, false});
        }
        previous = it->is_match;
      }
      std::reverse(acc.begin(), acc.end());
      break;
  }
  m.swap(acc);
}

void add_piece(piece_list& out, std::string_view s, bool origin) {
  if (s.empty()) return;
  out.text.append(s);
  out.ends.push_back(out.text.size());
  out.at_origin.push_back(origin ? 1 : 0);
}

void apply(const pre_step& step, std::string_view s, bool origin, piece_list& out,
           std::vector<span_match>& m, std::string& scratch) {
  if (step.what == pre_step::kind::byte_level) {
    if (step.add_prefix_space && (s.empty() || s[0] != ' ')) {
      scratch.assign(" ");
      scratch.append(s);
      s = scratch;
    }
    if (!step.use_regex) {
      add_piece(out, s, origin);
      return;
    }
  } else if (step.what == pre_step::kind::metaspace) {
    scratch.clear();
    const std::string_view rep = step.literal;
    const bool prepend = step.scheme == pre_step::prepend::always ||
                         (step.scheme == pre_step::prepend::first && origin);
    // Spaces become the replacement first, and the prefix is added when the result does
    // not already begin with one (HF's order: " hi" gives "▁hi", not "▁▁hi").
    const bool begins = s.starts_with(rep) || (!s.empty() && s[0] == ' ');
    if (prepend && !begins) scratch.append(rep);
    for (const char c : s) {
      if (c == ' ') {
        scratch.append(rep);
      } else {
        scratch.push_back(c);
      }
    }
    s = scratch;
    if (!step.split) {
      add_piece(out, s, origin);
      return;
    }
  }
  find_matches(step, s, m);
  const split_behavior behavior =
      step.what == pre_step::kind::metaspace ? split_behavior::merged_with_next : step.behavior;
  fold(behavior, step.invert, m);
  for (const auto& x : m) {
    if (!x.is_match) add_piece(out, s.substr(x.begin, x.end - x.begin), origin && x.begin == 0);
  }
}

}  // namespace

result<std::shared_ptr<const split_regex>> split_regex::compile(std::string_view pattern) {
  int err = 0;
  PCRE2_SIZE at = 0;
  // A regex is bounded before its classes are spelled out (each \p{L} becomes about 9 KB),
  // and after: a crafted file cannot make a pattern of hundreds of megabytes.
  constexpr std::size_t kMaxPattern = std::size_t{64} << 10;
  constexpr std::size_t kMaxSpelled = std::size_t{4} << 20;
  if (pattern.size() > kMaxPattern) {
    return make_error(error_code::limit_exceeded, "tokenizer.json: a Split regex of " +
                                                      std::to_string(pattern.size()) +
                                                      " bytes (at most 65536)");
  }
  const std::string spelled = spell_unicode_classes(pattern, kMaxSpelled);
  if (spelled.size() > kMaxSpelled) {
    return make_error(error_code::limit_exceeded,
                      "tokenizer.json: a Split regex whose Unicode classes spell more than 4 MiB");
  }
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(spelled.data()), spelled.size(),
                                   PCRE2_UTF | PCRE2_UCP | PCRE2_NO_UTF_CHECK, &err, &at, nullptr);
  if (code == nullptr) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(err, msg, sizeof msg);
    return make_error(error_code::tokenizer_unsupported,
                      "tokenizer.json: a Split regex PCRE2 cannot compile (" +
                          std::string(reinterpret_cast<const char*>(msg)) + " at offset " +
                          std::to_string(at) + "): " + std::string(pattern.substr(0, 80)));
  }
  std::shared_ptr<split_regex> r(new split_regex());
  r->code_ = code;
  r->jit_ = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
  return std::shared_ptr<const split_regex>(std::move(r));
}

split_regex::~split_regex() {
  pcre2_code_free(static_cast<pcre2_code*>(code_));
}

std::pair<std::size_t, std::size_t> split_regex::find(std::string_view text,
                                                      std::size_t from) const {
  thread_local match_state st;
  if (from > text.size()) return {kNpos, kNpos};
  // The subject may hold bytes that are not UTF-8 (ocml scans those as characters of no
  // class); PCRE2 is asked not to check, so such bytes must not reach it: callers pass
  // only the text between them (pre_tokenize splits there first).
  const int rc =
      pcre2_match(static_cast<const pcre2_code*>(code_), reinterpret_cast<PCRE2_SPTR>(text.data()),
                  text.size(), from, PCRE2_NO_UTF_CHECK, st.md, st.ctx);
  if (rc < 0) return {kNpos, kNpos};
  const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(st.md);
  return {ov[0], ov[1]};
}

void pre_tokenize(std::span<const pre_step> steps, std::string_view text, bool at_origin,
                  piece_list& out) {
  thread_local piece_list other;
  thread_local std::vector<span_match> matches;
  thread_local std::string scratch;
  out.clear();
  add_piece(out, text, at_origin);
  for (const auto& step : steps) {
    other.clear();
    std::size_t begin = 0;
    for (std::size_t i = 0; i < out.ends.size(); ++i) {
      const std::string_view piece(out.text.data() + begin, out.ends[i] - begin);
      if (step.what == pre_step::kind::regex) {
        // Ill-formed UTF-8 never reaches PCRE2: each maximal well-formed run is matched on
        // its own, and each ill-formed byte is a piece by itself.
        const auto* b = reinterpret_cast<const unsigned char*>(piece.data());
        std::size_t run = 0;
        for (std::size_t k = 0; k <= piece.size();) {
          const bool bad = k < piece.size() && u::decode(b + k, b + piece.size()).cp >= 0x110000;
          if (k == piece.size() || bad) {
            if (k > run) {
              apply(step, piece.substr(run, k - run), out.at_origin[i] != 0 && run == 0, other,
                    matches, scratch);
            }
            if (k == piece.size()) break;
            add_piece(other, piece.substr(k, 1), out.at_origin[i] != 0 && k == 0);
            run = ++k;
            continue;
          }
          k += u::decode(b + k, b + piece.size()).len;
        }
      } else {
        apply(step, piece, out.at_origin[i] != 0, other, matches, scratch);
      }
      begin = out.ends[i];
    }
    std::swap(out, other);
  }
}

}  // namespace ocml::detail
