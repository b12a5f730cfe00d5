// SPDX-License-Identifier: Apache-2.0
#include "core/token_stream.hpp"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ocml::detail {

token_stream::token_stream(std::vector<std::string> tokens) : tokens_(std::move(tokens)) {
  for (const auto& t : tokens_) {
    if (first_bytes_.find(t[0]) == std::string::npos) first_bytes_.push_back(t[0]);
    max_len_ = std::max(max_len_, t.size());
  }
}

const char* token_stream::find_candidate(const char* p, const char* end) const noexcept {
  if (first_bytes_.size() == 1) {
    const void* hit = std::memchr(p, first_bytes_[0], static_cast<std::size_t>(end - p));
    return hit != nullptr ? static_cast<const char*>(hit) : end;
  }
#if defined(__SSE2__)
  if (first_bytes_.size() == 2) {
    const __m128i a = _mm_set1_epi8(first_bytes_[0]);
    const __m128i b = _mm_set1_epi8(first_bytes_[1]);
    while (end - p >= 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      const unsigned mask = static_cast<unsigned>(
          _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, a), _mm_cmpeq_epi8(v, b))));
      if (mask != 0) return p + __builtin_ctz(mask);
      p += 16;
    }
  }
#endif
  for (; p < end; ++p) {
    if (first_bytes_.find(*p) != std::string::npos) return p;
  }
  return end;
}

std::size_t token_stream::run(const char* p, std::size_t n, std::size_t base, bool final,
                              handler& h) {
  lines_.set_buffer(p, base, n);
  std::size_t i = 0;
  while (i < n && !h.stopped()) {
    const char* c = find_candidate(p + i, p + n);
    const auto j = static_cast<std::size_t>(c - p);
    if (j == n) {
      h.on_text(std::string_view(p + i, n - i), base + i);
      i = n;
      break;
    }
    bool need_more = false;
    std::size_t id = tokens_.size();
    for (std::size_t k = 0; k < tokens_.size(); ++k) {
      const std::string& t = tokens_[k];
      const std::size_t avail = n - j;
      if (avail >= t.size()) {
        if (std::memcmp(c, t.data(), t.size()) == 0) {
          id = k;
          break;
        }
      } else if (std::memcmp(c, t.data(), avail) == 0) {
        need_more = true;
      }
    }
    if (id == tokens_.size() && need_more && !final) {
      if (j > i) h.on_text(std::string_view(p + i, j - i), base + i);
      i = j;
      break;
    }
    if (id == tokens_.size()) {
      h.on_text(std::string_view(p + i, j + 1 - i), base + i);
      i = j + 1;
      continue;
    }
    if (j > i) h.on_text(std::string_view(p + i, j - i), base + i);
    if (h.stopped()) return n;
    h.on_token(id, base + j);
    i = j + tokens_[id].size();
  }
  if (h.stopped()) i = n;
  (void)lines_.at(base + i);
  return i;
}

void token_stream::push(std::string_view bytes, handler& h) {
  std::size_t pos = 0;
  if (!carry_.empty()) {
    const std::size_t take = std::min(bytes.size(), 2 * max_len_);
    std::string joined = carry_;
    joined.append(bytes.data(), take);
    const std::size_t carry_len = carry_.size();
    carry_.clear();
    const std::size_t used = run(joined.data(), joined.size(), consumed_, false, h);
    consumed_ += used;
    if (used < carry_len || take == bytes.size()) {
      // Still undecided (tiny chunk): keep what is left, plus the rest of the chunk.
      joined.erase(0, used);
      joined.append(bytes.data() + take, bytes.size() - take);
      carry_ = std::move(joined);
      if (take < bytes.size()) {
        const std::size_t used2 = run(carry_.data(), carry_.size(), consumed_, false, h);
        consumed_ += used2;
        carry_.erase(0, used2);
      }
      return;
    }
    pos = used - carry_len;
  }
  const std::size_t used = run(bytes.data() + pos, bytes.size() - pos, consumed_, false, h);
  consumed_ += used;
  carry_.assign(bytes.data() + pos + used, bytes.size() - pos - used);
}

void token_stream::finish(handler& h) {
  if (carry_.empty()) return;
  std::string rest = std::move(carry_);
  carry_.clear();
  consumed_ += run(rest.data(), rest.size(), consumed_, true, h);
}

}  // namespace ocml::detail
