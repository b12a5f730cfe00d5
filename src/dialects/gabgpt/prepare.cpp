// SPDX-License-Identifier: Apache-2.0
// GabGPT chat-log preparation, display segmentation and truncation.
#include <algorithm>
#include <array>

#include "dialects/gabgpt/gabgpt.hpp"
#include "ocml/gabgpt.hpp"

namespace ocml::gabgpt {

namespace {
using detail::gabgpt::kTokens;

bool strip_prefix(std::string& s, std::string_view t) {
  if (!s.starts_with(t)) return false;
  s.erase(0, t.size());
  return true;
}
bool strip_suffix(std::string& s, std::string_view t) {
  if (!s.ends_with(t)) return false;
  s.resize(s.size() - t.size());
  return true;
}
}  // namespace

result<std::string> prepare(std::string_view log_in, std::string_view user_text,
                            const prepare_options& options) {
  if (auto t = detail::gabgpt::find_token(user_text); !t.empty()) {
    return make_error(error_code::unrepresentable,
                      "user text contains '" + std::string(t) + "', which GabGPT cannot escape");
  }
  std::string log(log_in);
  // 1. Sanitize: leading <|think|>, <|assistant|>, <|end|>, until none is left.
  while (strip_prefix(log, kTokens[1]) || strip_prefix(log, kTokens[2]) ||
         strip_prefix(log, kTokens[3])) {
  }
  std::string out;
  if (log.empty()) {
    // First message (spec example "FIRST MESSAGE"): the new text is the log.
    out = kTokens[0] + std::string(user_text);
  } else {
    // 2. Ensure the user prefix.
    if (!log.starts_with(kTokens[0])) log.insert(0, kTokens[0]);
    // 3. Remove trailing special tokens. The spec's worked example keeps the <|end|> that
    //    closes the last assistant turn, so only <|user|>, <|think|>, <|assistant|> go.
    while (strip_suffix(log, kTokens[0]) || strip_suffix(log, kTokens[1]) ||
           strip_suffix(log, kTokens[2])) {
    }
    out = log + kTokens[0] + std::string(user_text);
  }
  // 4. The suffix that starts generation.
  out += options.think ? kTokens[1] : kTokens[2];
  return out;
}

std::vector<segment> segments(std::string_view log) {
  std::vector<segment> out;
  segment_kind kind = segment_kind::user;
  std::size_t i = 0;
  std::size_t text_start = 0;
  const auto flush = [&](std::size_t end) {
    if (end > text_start)
      out.push_back({kind, std::string(log.substr(text_start, end - text_start))});
  };
  while (i < log.size()) {
    const auto lt = log.find("<|", i);
    if (lt == std::string_view::npos) break;
    std::size_t id = kTokens.size();
    for (std::size_t k = 0; k < kTokens.size(); ++k) {
      if (log.substr(lt).starts_with(kTokens[k])) id = k;
    }
    if (id == kTokens.size()) {
      i = lt + 1;
      continue;
    }
    flush(lt);
    if (id == 0) kind = segment_kind::user;
    if (id == 1) kind = segment_kind::thinking;
    if (id == 2) kind = segment_kind::assistant;
    i = text_start = lt + kTokens[id].size();
  }
  flush(log.size());
  return out;
}

std::string truncate(std::string_view log, std::size_t budget, const cost_function& cost) {
  const auto measure = [&](std::string_view s) { return cost ? cost(s) : s.size(); };
  if (measure(log) <= budget) return std::string(log);
  // Cut points: every <|user|> after the start.
  std::size_t pos = log.find(kTokens[0], 1);
  while (pos != std::string_view::npos) {
    const std::string_view rest = log.substr(pos);
    if (measure(rest) <= budget) return std::string(rest);
    pos = log.find(kTokens[0], pos + 1);
  }
  return {};
}

}  // namespace ocml::gabgpt

namespace ocml::detail::gabgpt {

std::string view(std::string_view log) {
  static constexpr std::array<std::string_view, 3> kLabel = {"user", "thinking", "assistant"};
  std::string out;
  for (const auto& seg : ocml::gabgpt::segments(log)) {
    out.append("[").append(kLabel[static_cast<std::size_t>(seg.kind)]).append("] ");
    out.append(seg.text).append("\n\n");
  }
  return out;
}

}  // namespace ocml::detail::gabgpt
