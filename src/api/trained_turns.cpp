// SPDX-License-Identifier: Apache-2.0
#include "api/trained_turns.hpp"

#include <algorithm>

#include "core/message_path.hpp"

namespace ocml::detail {

result<std::vector<trained_region>> trained_regions(const turn_renders& r, std::string_view text,
                                                    const token_render_options& to) {
  std::vector<trained_region> out;
  // Each trained turn renders the conversation up to it, so the work grows with the square
  // of the turns: bounded in bytes rendered before it runs away (4 000 turns took 38 s).
  std::size_t rendered = 0;
  const auto count = [&rendered](const result<std::string>& r) -> result<bool> {
    if (r) rendered += r->size();
    if (rendered > kMaxPrefixRenderBytes) {
      return make_error(error_code::limit_exceeded,
                        "training renders each turn's prompt: more than " +
                            std::to_string(kMaxPrefixRenderBytes >> 20) +
                            " MiB rendered for this conversation's turns; train the last "
                            "turn only");
    }
    return true;
  };
  std::size_t first = 0;
  if (to.turns == trained_turns::last) {
    for (std::size_t i = 0; i < r.messages; ++i) {
      if (!r.is_assistant(i)) first = i + 1;
    }
    while (first > 0 && r.is_assistant(first - 1)) --first;
  }
  for (std::size_t s = first; s < r.messages;) {
    if (!r.is_assistant(s)) {
      ++s;
      continue;
    }
    std::size_t e = s;
    while (e + 1 < r.messages && r.is_assistant(e + 1)) ++e;
    auto prompt = r.render_first(s, true);
    if (!prompt) return prompt.error();
    if (auto c = count(prompt); !c) return c.error();
    if (text.compare(0, prompt->size(), *prompt) != 0) {
      return make_error(error_code::unrepresentable,
                        message_path(s) +
                            ": the conversation rendered up to this turn is not a prefix of the "
                            "whole: " +
                            std::string(r.rewrite_hint));
    }
    std::size_t stop = text.size();
    if (e + 1 < r.messages) {
      auto upto = r.render_first(e + 1, false);
      if (!upto) return upto.error();
      if (auto c = count(upto); !c) return c.error();
      // Where the two agree: a format that closes the whole conversation (OpenChatML 0.1's
      // [EOS]) writes that only at the very end.
      stop = static_cast<std::size_t>(
          std::mismatch(upto->begin(), upto->end(), text.begin(), text.end()).first -
          upto->begin());
      if (stop <= prompt->size()) {
        return make_error(error_code::unrepresentable,
                          message_path(e) +
                              ": the conversation rendered through this turn is not a prefix "
                              "of the whole");
      }
    }
    // The model samples through its stop; what the markup writes after it ([/AST], [EOS],
    // a newline) is not sampled.
    const std::string_view turn = text.substr(prompt->size(), stop - prompt->size());
    std::size_t last = std::string_view::npos;
    for (const std::string_view t : r.stops) {
      const std::size_t at = t.empty() ? std::string_view::npos : turn.rfind(t);
      if (at != std::string_view::npos &&
          (last == std::string_view::npos || at + t.size() > last)) {
        last = at + t.size();
      }
    }
    if (last != std::string_view::npos) {
      const std::size_t after = prompt->size() + last;
      std::size_t keep = after;  // the newline right after the stop token, when asked for
      while (to.train_trailing_newline && keep < stop && text[keep] == '\n') ++keep;
      stop = keep;
    } else if (!to.train_trailing_newline) {
      while (stop > prompt->size() && text[stop - 1] == '\n') --stop;
    }
    out.push_back({prompt->size(), stop});
    s = e + 1;
  }
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
  if (options.max_tokens != 0 && seq.input_ids.size() > options.max_tokens) {
    const auto cut = static_cast<std::ptrdiff_t>(seq.input_ids.size() - options.max_tokens);
    seq.input_ids.erase(seq.input_ids.begin(), seq.input_ids.begin() + cut);
    if (!seq.labels.empty()) seq.labels.erase(seq.labels.begin(), seq.labels.begin() + cut);
  }
  seq.attention_mask.assign(seq.input_ids.size(), 1);
}

}  // namespace ocml::detail
