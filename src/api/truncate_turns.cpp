// SPDX-License-Identifier: Apache-2.0
#include "api/truncate_turns.hpp"

#include <algorithm>
#include <string>

namespace ocml::detail {

namespace {

std::size_t longest(const std::vector<token_sequence>& xs) {
  std::size_t n = 0;
  for (const token_sequence& x : xs) n = std::max(n, x.input_ids.size());
  return n;
}

bool fits(const result<std::vector<token_sequence>>& xs, std::size_t max_tokens) {
  return xs.ok() && longest(*xs) <= max_tokens;
}

}  // namespace

std::vector<std::size_t> turn_groups(std::size_t n, const std::function<bool(std::size_t)>& is_head,
                                     const std::function<bool(std::size_t)>& is_user) {
  std::size_t head = 0;
  while (head < n && is_head(head)) ++head;
  std::vector<std::size_t> starts;
  if (head < n) starts.push_back(head);
  for (std::size_t i = head + 1; i < n; ++i) {
    if (is_user(i)) starts.push_back(i);
  }
  return starts;
}

result<std::vector<token_sequence>> fit_by_turns(const std::vector<std::size_t>& groups,
                                                 std::size_t max_tokens,
                                                 const examples_without& examples) {
  auto whole = examples(0, 0);
  if (!whole || longest(*whole) <= max_tokens) return whole;
  const std::size_t tokens = longest(*whole);
  const auto too_long = [&](const std::string& what) {
    return make_error(error_code::limit_exceeded,
                      "the conversation renders " + std::to_string(tokens) +
                          " tokens, more than max_tokens " + std::to_string(max_tokens) + ", " +
                          what + " (truncation left or right cuts inside a turn)");
  };
  if (groups.size() < 2) return too_long("and it has one user turn, which is never cut");
  // Drop groups[0, k) for the least k in [1, groups - 1] that fits.
  const std::size_t from = groups.front();
  std::size_t lo = 1;
  std::size_t hi = groups.size() - 1;
  auto best = examples(from, groups[hi]);
  if (!fits(best, max_tokens)) {
    if (!best) return best;
    return too_long("and its last user turn alone renders " + std::to_string(longest(*best)));
  }
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    auto xs = examples(from, groups[mid]);
    if (fits(xs, max_tokens)) {
      hi = mid;
      best = std::move(xs);
    } else {
      lo = mid + 1;
    }
  }
  diagnostic w = make_error(
      error_code::limit_exceeded,
      "dropped the oldest " + std::to_string(hi) + " of " + std::to_string(groups.size()) +
          " user turns (messages[" + std::to_string(from) + "] to messages[" +
          std::to_string(groups[hi] - 1) + "]) to fit max_tokens " + std::to_string(max_tokens) +
          ": the conversation renders " + std::to_string(tokens) + " tokens");
  w.level = severity::warning;
  w.line = 0;
  if (!best->empty()) {
    auto& first = best->front().diagnostics;
    first.insert(first.begin(), std::move(w));
  }
  return best;
}

}  // namespace ocml::detail
