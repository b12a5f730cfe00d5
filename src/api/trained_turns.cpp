// SPDX-License-Identifier: Apache-2.0
#include "api/trained_turns.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include "core/message_path.hpp"

namespace ocml::detail {

namespace {

// A trained turn: messages [s, e], with its prompt and its sampled text (rendered once).
struct turn {
  std::size_t s = 0;
  std::size_t e = 0;
  std::string prompt;   // the first s messages with the generation prompt
  std::string sampled;  // the first e + 1 messages as a training text ends
  std::size_t end = 0;  // in `sampled`: where the trained part ends (through the last stop)
  bool rendered = false;
};

// The turn at the end of `through` (the conversation rendered through it, its history
// rewritten) after the generation prompt `prompt` minus `history`: where the generation
// prompt begins and the text before it shares the longest end with `history` (the
// history's last messages, which the rewrite left alone). Nothing when the prompt is not
// the history plus a generation prompt, or the generation prompt is not in `through`.
constexpr std::size_t kMaxSharedEnd = 4096;

std::optional<std::string> turn_from_end(std::string_view prompt, std::string_view history,
                                         std::string_view through) {
  if (!prompt.starts_with(history) || prompt.size() == history.size()) return std::nullopt;
  const std::string_view gen = prompt.substr(history.size());
  std::size_t best = std::string_view::npos;
  std::size_t best_shared = 0;
  for (std::size_t k = through.find(gen); k != std::string_view::npos;
       k = through.find(gen, k + 1)) {
    std::size_t shared = 0;  // bounded: the work stays linear in the candidates
    while (shared < k && shared < history.size() && shared < kMaxSharedEnd &&
           through[k - 1 - shared] == history[history.size() - 1 - shared]) {
      ++shared;
    }
    if (best == std::string_view::npos || shared > best_shared) {
      best = k;
      best_shared = shared;
    }
  }
  if (best == std::string_view::npos || best_shared == 0) return std::nullopt;
  return std::string(through.substr(best + gen.size()));
}

// text.rfind(needle), jumping between the needle's first bytes with memrchr (a stop that
// is not in a long turn costs a scan, not a compare at every byte); npos for "".
std::size_t last_of(std::string_view text, std::string_view needle) {
  if (needle.empty() || needle.size() > text.size()) return std::string_view::npos;
  std::size_t n = text.size() - needle.size() + 1;  // candidate starts: [0, n)
  while (n > 0) {
    const void* hit = memrchr(text.data(), needle[0], n);
    if (hit == nullptr) break;
    const auto at = static_cast<std::size_t>(static_cast<const char*>(hit) - text.data());
    if (text.compare(at, needle.size(), needle) == 0) return at;
    n = at;
  }
  return std::string_view::npos;
}

struct planner {
  const turn_renders& r;
  const token_render_options& to;
  std::size_t budget = 0;  // bytes rendered so far

  result<bool> count(std::size_t bytes) {
    budget += bytes;
    if (budget <= kMaxPrefixRenderBytes) return true;
    return make_error(error_code::limit_exceeded,
                      "training renders each turn's prompt: more than " +
                          std::to_string(kMaxPrefixRenderBytes >> 20) +
                          " MiB rendered for this conversation's turns; train the last "
                          "turn only");
  }

  // Renders the turn's prompt and sampled text, and finds where its trained part ends: the
  // model samples through its stop, and what the markup writes after it ([/AST], [EOS], a
  // newline) is not sampled.
  result<bool> render(turn& t) {
    if (t.rendered) return true;
    auto p = r.render_prompt(t.s);
    if (!p) return p.error();
    if (auto c = count(p->size()); !c) return c.error();
    auto x = r.render_sampled ? r.render_sampled(t.s, t.e + 1, *p) : r.render_example(t.e + 1);
    if (!x) return x.error();
    if (auto c = count(x->size()); !c) return c.error();
    if (x->compare(0, p->size(), *p) != 0 && r.render_history) {
      auto h = r.render_history(t.s);
      if (!h) return h.error();
      if (auto c = count(h->size()); !c) return c.error();
      if (auto turn = turn_from_end(*p, *h, *x)) *x = *p + *turn;
    }
    if (x->compare(0, p->size(), *p) != 0) {
      return make_error(
          error_code::unrepresentable,
          message_path(t.s) +
              ": the generation prompt is not how this turn begins (the conversation rendered "
              "through the turn does not start with the one rendered up to it with "
              "add_generation_prompt); no training policy can train it exactly");
    }
    t.prompt = std::move(*p);
    t.sampled = std::move(*x);
    const std::string_view turn_text = std::string_view(t.sampled).substr(t.prompt.size());
    std::size_t last = std::string_view::npos;
    for (const std::string_view stop : r.stops) {
      const std::size_t at = last_of(turn_text, stop);
      if (at != std::string_view::npos &&
          (last == std::string_view::npos || at + stop.size() > last)) {
        last = at + stop.size();
      }
    }
    if (last != std::string_view::npos) {
      t.end = t.prompt.size() + last;
    } else {
      t.end = t.sampled.size();
      if (!to.train_trailing_newline) {
        while (t.end > t.prompt.size() && t.sampled[t.end - 1] == '\n') --t.end;
      }
    }
    t.rendered = true;
    return true;
  }

  // The region of turn `t` in `text`, when `text` holds it as it was sampled.
  static std::optional<trained_region> fit(const turn& t, std::string_view text,
                                           bool trailing_newline) {
    if (text.size() < t.end || text.compare(0, t.end, t.sampled, 0, t.end) != 0) {
      return std::nullopt;
    }
    std::size_t to = t.end;
    if (trailing_newline) {
      while (to < text.size() && to < t.sampled.size() && text[to] == '\n' &&
             t.sampled[to] == '\n') {
        ++to;
      }
    }
    return trained_region{t.prompt.size(), to};
  }
};

// Why turn `t` is not in `text` as it was sampled, for a refusal.
std::string misfit(const turn& t, std::string_view text, std::string_view hint) {
  const std::size_t at = static_cast<std::size_t>(
      std::mismatch(t.sampled.begin(), t.sampled.begin() + static_cast<std::ptrdiff_t>(t.end),
                    text.begin(), text.end())
          .first -
      t.sampled.begin());
  std::string m = message_path(t.e) +
                  ": this turn is not in the whole conversation as the "
                  "model sampled it (they part at byte " +
                  std::to_string(at) + ")";
  if (!hint.empty()) {
    m += ": ";
    m += hint;
  }
  m += "; the default policy (automatic) or per-turn trains it in an example of its own";
  return m;
}

}  // namespace

result<std::vector<planned_example>> plan_examples(const turn_renders& r, std::string whole,
                                                   const token_render_options& to) {
  std::size_t first = 0;
  if (to.turns == trained_turns::last) {
    for (std::size_t i = 0; i < r.messages; ++i) {
      if (r.is_user(i)) first = i + 1;
    }
  }
  std::vector<turn> turns;
  for (std::size_t s = first; s < r.messages;) {
    if (!r.is_assistant(s)) {
      ++s;
      continue;
    }
    std::size_t e = s;
    while (e + 1 < r.messages && r.is_assistant(e + 1)) ++e;
    turns.push_back({.s = s, .e = e});
    s = e + 1;
  }
  planner p{r, to};
  std::vector<planned_example> out;
  const bool one = to.turns == trained_turns::whole || to.turns == trained_turns::keep_reasoning;
  if (turns.empty() || one) {
    planned_example x{.through = r.messages, .text = std::move(whole)};
    for (turn& t : turns) {
      if (auto ok = p.render(t); !ok) return ok.error();
      auto reg = planner::fit(t, x.text, to.train_trailing_newline);
      if (!reg || (!x.regions.empty() && reg->from < x.regions.back().to)) {
        return make_error(error_code::unrepresentable, misfit(t, x.text, r.rewrite_hint));
      }
      x.regions.push_back(*reg);
    }
    out.push_back(std::move(x));
    return out;
  }
  // Examples from the last turn back: the whole conversation first, holding every turn it
  // holds as sampled; then the conversation through the latest turn not yet trained, and so
  // on. Each turn is trained once; per_turn gives each its own example.
  std::vector<bool> done(turns.size(), false);
  std::size_t left = turns.size();
  std::optional<std::string> unused_whole;
  if (to.turns != trained_turns::per_turn) unused_whole = std::move(whole);
  while (left > 0) {
    std::size_t k = turns.size();
    while (done[k - 1]) --k;
    turn& last = turns[k - 1];
    if (auto ok = p.render(last); !ok) return ok.error();
    planned_example x;
    if (unused_whole) {
      x.through = r.messages;
      x.text = std::move(*unused_whole);
      unused_whole.reset();
    } else {
      x.through = last.e + 1;
      x.text = last.sampled;  // a copy: a later turn's fit may read it
    }
    // Latest first: the turn the example ends at always fits it, and an earlier turn's
    // region must end before the next one's begins.
    for (std::size_t i = k; i-- > 0;) {
      if (done[i] || (to.turns == trained_turns::per_turn && i + 1 != k)) continue;
      if (auto ok = p.render(turns[i]); !ok) return ok.error();
      auto reg = planner::fit(turns[i], x.text, to.train_trailing_newline);
      if (reg && (x.regions.empty() || reg->to <= x.regions.back().from)) {
        x.regions.push_back(*reg);
        done[i] = true;
        --left;
      }
    }
    std::reverse(x.regions.begin(), x.regions.end());
    // The whole conversation may hold none of them (it ends after the last turn in a way
    // that rewrites it): the next example ends at that turn, which holds it by definition.
    if (!x.regions.empty()) out.push_back(std::move(x));
  }
  std::reverse(out.begin(), out.end());
  return out;
}

void encode_regions(
    std::string_view text, const std::vector<trained_region>& regions,
    const std::function<void(std::size_t, std::size_t, std::vector<token_id>&)>& encode,
    const token_render_options& options, token_sequence& seq) {
  std::size_t at = 0;
  for (const trained_region& r : regions) {
    encode(at, r.from, seq.input_ids);
    seq.labels.resize(seq.input_ids.size(), -100);
    const std::size_t before = seq.input_ids.size();
    encode(r.from, r.to, seq.input_ids);
    for (std::size_t i = before; i < seq.input_ids.size(); ++i) {
      seq.labels.push_back(static_cast<std::int32_t>(seq.input_ids[i]));
    }
    at = r.to;
  }
  encode(at, text.size(), seq.input_ids);
  if (options.training) seq.labels.resize(seq.input_ids.size(), -100);
  if (options.keep_text) {
    seq.text.assign(text);
    for (const trained_region& r : regions) seq.trained.emplace_back(r.from, r.to);
  }
  cut_to_max_tokens(options, seq);
  seq.attention_mask.assign(seq.input_ids.size(), 1);
}

void cut_to_max_tokens(const token_render_options& options, token_sequence& seq) {
  // (truncation::turns is the caller's: it renders fewer turns)
  if (options.max_tokens != 0 && seq.input_ids.size() > options.max_tokens) {
    if (options.truncate == truncation::left) {
      const auto cut = static_cast<std::ptrdiff_t>(seq.input_ids.size() - options.max_tokens);
      seq.input_ids.erase(seq.input_ids.begin(), seq.input_ids.begin() + cut);
      if (!seq.labels.empty()) seq.labels.erase(seq.labels.begin(), seq.labels.begin() + cut);
    } else if (options.truncate == truncation::right) {
      seq.input_ids.resize(options.max_tokens);
      if (!seq.labels.empty()) seq.labels.resize(options.max_tokens);
    }
  }
}

}  // namespace ocml::detail
