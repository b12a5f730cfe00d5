// SPDX-License-Identifier: Apache-2.0
// The prompt for the next assistant turn: reasoning handling, truncation, generation prompt.
#include "ocml/prompt.hpp"

#include <algorithm>

#include "dialects/registry.hpp"
#include "ocml/render.hpp"

namespace ocml {

namespace {

bool pinned(const message& m) noexcept {
  return m.role == role::system || m.role == role::developer;
}

// A visible final answer: what ends a turn.
bool final_answer(const message& m) noexcept {
  return m.role == role::assistant && m.effective_channel() == "final" && m.recipient.empty() &&
         m.tool_calls.empty();
}

// The indices where turns begin: each user message (the first turn also holds whatever
// precedes the first user message).
std::vector<std::size_t> turn_starts(const conversation& c) {
  std::vector<std::size_t> starts{0};
  for (std::size_t i = 0; i < c.messages.size(); ++i) {
    if (c.messages[i].role == role::user && i != 0) starts.push_back(i);
  }
  return starts;
}

// The pinned messages plus the last `keep` turns.
conversation keep_last_turns(const conversation& c, const std::vector<std::size_t>& starts,
                             std::size_t keep) {
  conversation out;
  out.header = c.header;
  out.tools = c.tools;
  out.document = c.document;
  const std::size_t from = starts[starts.size() - keep];
  for (std::size_t i = 0; i < c.messages.size(); ++i) {
    if (i >= from || pinned(c.messages[i])) out.messages.push_back(c.messages[i]);
  }
  return out;
}

result<std::string> render_prompt(const conversation& c, const prompt_options& o,
                                  std::vector<diagnostic>* warnings) {
  // A think round (GabGPT) ends the prompt with its own tail instead of a generation prompt.
  const detail::think_round* think = o.think ? detail::codec_of(o.dialect).think : nullptr;
  render_options r;
  r.dialect = o.dialect;
  r.generation_role = o.generation_role;
  r.add_generation_prompt = think == nullptr;
  auto text = render(c, r, warnings);
  if (text && think != nullptr) text->append(think->prompt_tail);
  return text;
}

}  // namespace

std::vector<std::string> stop_sequences(dialect d) {
  const auto stop = detail::codec_of(d).info.stop;
  return {stop.begin(), stop.end()};
}

std::size_t drop_finished_reasoning(conversation& conv) {
  std::size_t dropped = 0;
  auto& ms = conv.messages;
  std::vector<bool> remove(ms.size(), false);
  std::size_t begin = 0;
  while (begin < ms.size()) {
    std::size_t end = begin + 1;
    while (end < ms.size() && ms[end].role != role::user) ++end;
    const bool finished = std::any_of(ms.begin() + static_cast<std::ptrdiff_t>(begin),
                                      ms.begin() + static_cast<std::ptrdiff_t>(end), final_answer);
    for (std::size_t i = begin; finished && i < end; ++i) {
      message& m = ms[i];
      if (m.role != role::assistant) continue;
      if (m.effective_channel() == "analysis" && m.recipient.empty()) {
        remove[i] = true;
        ++dropped;
        continue;
      }
      for (std::string* field : {&m.reasoning, &m.reflection, &m.introspection}) {
        if (field->empty()) continue;
        field->clear();
        ++dropped;
      }
    }
    begin = end;
  }
  std::size_t w = 0;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    if (remove[i]) continue;
    if (w != i) ms[w] = std::move(ms[i]);  // never a self-move: it would empty the strings
    ++w;
  }
  ms.resize(w);
  return dropped;
}

result<prompt> build_prompt(const conversation& conv, const prompt_options& options) {
  prompt p;
  p.stop = stop_sequences(options.dialect);
  conversation c = conv;
  // A dialect's preamble (harmony's system message), unless the conversation has it already
  // (rendered from the dialect's markup or JSON).
  const detail::preamble_hooks* preamble = detail::codec_of(options.dialect).preamble;
  if (preamble != nullptr && !preamble->present(c)) {
    c = preamble->build(std::move(c), {.reasoning_effort = options.reasoning_effort});
  }
  if (!options.keep_reasoning) p.dropped_reasoning = drop_finished_reasoning(c);
  const auto cost = [&options](std::string_view s) {
    return options.cost ? options.cost(s) : s.size();
  };
  auto whole = render_prompt(c, options, &p.warnings);
  if (!whole) return whole.error();
  p.cost = cost(*whole);
  if (options.budget == 0 || p.cost <= options.budget) {
    p.text = std::move(*whole);
    return p;
  }
  // Keep the most recent turns that fit: the cost grows with the number kept, so a binary
  // search over that number needs O(log turns) renders.
  const auto starts = turn_starts(c);
  std::size_t lo = 0;              // the largest count known to fit (0: none yet)
  std::size_t hi = starts.size();  // known not to fit
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    auto text = render_prompt(keep_last_turns(c, starts, mid), options, nullptr);
    if (!text) return text.error();
    if (cost(*text) <= options.budget) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  if (lo == 0) {
    return make_error(error_code::limit_exceeded,
                      "the last turn alone costs more than the prompt budget of " +
                          std::to_string(options.budget));
  }
  const conversation kept = keep_last_turns(c, starts, lo);
  p.dropped_messages = c.messages.size() - kept.messages.size();
  p.warnings.clear();
  auto text = render_prompt(kept, options, &p.warnings);
  if (!text) return text.error();
  p.text = std::move(*text);
  p.cost = cost(p.text);
  return p;
}

}  // namespace ocml
