// SPDX-License-Identifier: Apache-2.0
// render_tokens: a rendered conversation as token IDs. The decoder reads the rendered text
// back, so that each byte is known as a control token, text, or (in the 2.x family's
// bodies) escape syntax; training cuts the sequence where each trained turn's generation
// prompt ends and where its stop token ends, and encodes the pieces one by one, so that the
// prompt of every turn is a prefix of the sequence in IDs as well as in text.
#include <algorithm>
#include <array>
#include <optional>

#include "core/message_path.hpp"
#include "dialects/registry.hpp"
#include "interchange/shape.hpp"
#include "ocml/decoder.hpp"
#include "ocml/token_render.hpp"

namespace ocml {

namespace {

// A run of the rendered text: a control token (one ID) or text (encoded ordinarily).
struct segment {
  std::size_t begin = 0;
  std::size_t end = 0;
  bool special = false;
  token_id id = 0;
};

struct segmenter {
  std::string_view text;
  const dialect_info& info;
  const tokenizer& tok;
  bool escapes = false;  // the 2.x family: structure inside a body is escape syntax
  bool strict = false;
  std::vector<segment> out;
  std::vector<diagnostic>& warnings;
  std::vector<std::string_view> missing;     // control tokens already reported
  std::array<bool, 256> first{};             // bytes a control token begins with
  std::vector<std::optional<token_id>> ids;  // of info.tokens, in order

  void init() {
    for (const std::string_view t : info.tokens) {
      if (!t.empty()) first[static_cast<unsigned char>(t[0])] = true;
      ids.push_back(tok.id_of(t));
    }
  }

  void add_text(std::size_t b, std::size_t e) {
    if (b >= e) return;
    if (!out.empty() && !out.back().special && out.back().end == b) {
      out.back().end = e;
    } else {
      out.push_back({b, e, false, 0});
    }
  }
  // The structure bytes [b, e): control tokens become IDs.
  result<bool> structure(std::size_t b, std::size_t e, bool in_body) {
    const bool drop = escapes && in_body;
    std::size_t run = b;
    for (std::size_t i = b; i < e;) {
      if (!first[static_cast<unsigned char>(text[i])]) {
        ++i;
        continue;
      }
      std::string_view found;
      std::optional<token_id> found_id;
      for (std::size_t k = 0; k < info.tokens.size(); ++k) {
        const std::string_view t = info.tokens[k];
        if (t.size() > found.size() && text.compare(i, t.size(), t) == 0 && i + t.size() <= e) {
          found = t;
          found_id = ids[k];
        }
      }
      if (found.empty()) {
        ++i;
        continue;
      }
      if (!drop) add_text(run, i);
      if (!drop) {
        if (found_id) {
          out.push_back({i, i + found.size(), true, *found_id});
        } else {
          if (strict) {
            return make_error(error_code::token_unknown,
                              "control token '" + std::string(found) + "' is not in the " +
                                  std::string(tok.name()) + " vocabulary");
          }
          if (std::find(missing.begin(), missing.end(), found) == missing.end()) {
            missing.push_back(found);
            diagnostic d = make_error(error_code::token_unknown,
                                      "control token '" + std::string(found) +
                                          "' is not one ID of the vocabulary (written as text)");
            d.level = severity::warning;
            warnings.push_back(std::move(d));
          }
          add_text(i, i + found.size());
        }
      }
      i += found.size();
      run = i;
    }
    if (!drop) add_text(run, e);
    return true;
  }
};

// `harmony_escaped`: harmony text written with the 2.x escapes (render_tokens writes it so,
// render_options::openchatml_escapes, so that content spelling a control token becomes
// ordinary tokens); plain harmony text has no escape syntax.
result<std::vector<segment>> segments_of(std::string_view text, dialect d, const tokenizer& tok,
                                         bool strict, std::vector<diagnostic>& warnings,
                                         bool harmony_escaped) {
  const auto& codec = detail::codec_of(d);
  const bool escapes = detail::writes_escapes(codec, harmony_escaped);
  segmenter s{text, codec.info, tok, escapes, strict, {}, warnings, {}, {}, {}};
  s.init();
  // Formats without an escape refuse content that spells their markup (the injection rule):
  // every spelling of a control token in their text is structure. So is every spelling in
  // 2.x-family text without escape syntax: its renderer writes a '<' before each spelling
  // in a body ("<<|end|>") and wraps a body's trailing '<' in <|literal|>…<|endliteral|>.
  // No decoder pass for either.
  if (!s.escapes || (text.find("<<|") == std::string_view::npos &&
                     text.find("<|literal|>") == std::string_view::npos)) {
    if (auto r = s.structure(0, text.size(), false); !r) return r.error();
    return std::move(s.out);
  }
  bool in_body = false;
  std::optional<diagnostic> failed;
  // Each event is classified as it comes (no copy of the events: they hold messages).
  decoder_options dopt;
  dopt.dialect = d;
  dopt.openchatml_escapes = true;
  decoder dec(dopt, [&](const event& e) {
    if (failed) return;
    result<bool> r = true;
    switch (e.kind) {
      case event_kind::diagnostic:
        break;
      case event_kind::message_begin:
        in_body = true;
        break;
      case event_kind::message_end:
        in_body = false;
        break;
      case event_kind::structure:
      case event_kind::skipped:  // e.g. the generation prompt's header, left open
        r = s.structure(e.span.begin, e.span.end, in_body);
        break;
      case event_kind::tools:      // the template's tools block: its tags are markup
      case event_kind::tool_call:  // <tool_call>…</tool_call>, <call>…</call>
        r = s.structure(e.span.begin, e.span.end, false);
        break;
      default:
        s.add_text(e.span.begin, e.span.end);
    }
    if (!r) failed = r.error();
  });
  dec.push(text);
  dec.finish();
  if (failed) return *failed;
  return std::move(s.out);
}

// Appends the IDs of text [a, b) under the policy.
void encode_range(std::string_view text, const std::vector<segment>& segs, token_policy policy,
                  const tokenizer& tok, std::size_t a, std::size_t b, std::vector<token_id>& out) {
  if (a >= b) return;
  if (policy == token_policy::hf) {
    const auto ids = tok.encode(text.substr(a, b - a), special_tokens::all);
    out.insert(out.end(), ids.begin(), ids.end());
    return;
  }
  // The text between two control tokens, encoded as one string: a view of `text` while it
  // is contiguous there, copied only when escape bytes left a gap.
  std::string copy;
  std::size_t run_from = 0;
  std::size_t run_to = 0;
  bool copied = false;
  const auto flush = [&] {
    if (copied) {
      tok.append_ordinary(copy, out);
    } else if (run_to > run_from) {
      tok.append_ordinary(text.substr(run_from, run_to - run_from), out);
    }
    copy.clear();
    copied = false;
    run_from = run_to = 0;
  };
  for (const segment& s : segs) {
    if (s.end <= a || s.begin >= b) continue;
    if (s.special) {
      flush();
      out.push_back(s.id);
      continue;
    }
    const std::size_t from = std::max(a, s.begin);
    const std::size_t to = std::min(b, s.end);
    if (!copied && run_to == run_from) {
      run_from = from;
      run_to = to;
    } else if (!copied && run_to == from) {
      run_to = to;
    } else {
      if (!copied) copy.assign(text.substr(run_from, run_to - run_from));
      copied = true;
      copy.append(text.substr(from, to - from));
    }
  }
  flush();
}

// A trained region of the text: [from, to).
struct region {
  std::size_t from;
  std::size_t to;
};

// The first `n` messages of `conv` rendered as a plain transcript (with the generation
// prompt when asked), copying only those messages.
result<std::string> render_first(const conversation& conv, std::size_t n, const render_options& ro,
                                 bool generation_prompt) {
  conversation sub;
  sub.header = conv.header;
  sub.tools = conv.tools;
  sub.document = conv.document;
  sub.messages.assign(conv.messages.begin(),
                      conv.messages.begin() + static_cast<std::ptrdiff_t>(n));
  render_options o = ro;
  o.add_generation_prompt = generation_prompt;
  o.continue_final_message = false;
  o.training = false;
  return render(sub, o);
}

result<std::vector<region>> trained_regions(const conversation& conv, const render_options& ro,
                                            std::string_view text, const token_render_options& to) {
  std::vector<region> out;
  const auto& ms = conv.messages;
  std::size_t first = 0;
  if (to.turns == trained_turns::last) {
    for (std::size_t i = 0; i < ms.size(); ++i) {
      if (ms[i].role != role::assistant) first = i + 1;
    }
    while (first > 0 && ms[first - 1].role == role::assistant) --first;
  }
  for (std::size_t s = first; s < ms.size();) {
    if (ms[s].role != role::assistant) {
      ++s;
      continue;
    }
    std::size_t e = s;
    while (e + 1 < ms.size() && ms[e + 1].role == role::assistant) ++e;
    auto prompt = render_first(conv, s, ro, true);
    if (!prompt) return prompt.error();
    if (text.compare(0, prompt->size(), *prompt) != 0) {
      return make_error(error_code::unrepresentable,
                        detail::message_path(s) +
                            ": the conversation rendered up to this turn is not a prefix of the "
                            "whole: the format rewrites earlier turns (Qwen3 drops reasoning "
                            "before the last user message, harmony's drop_analysis drops "
                            "analysis before a final answer); train the last turn only, or keep "
                            "the analysis");
    }
    std::size_t stop = text.size();
    if (e + 1 < ms.size()) {
      auto upto = render_first(conv, e + 1, ro, false);
      if (!upto) return upto.error();
      // Where the two agree: a format that closes the whole conversation (OpenChatML 0.1's
      // [EOS]) writes that only at the very end.
      stop = static_cast<std::size_t>(
          std::mismatch(upto->begin(), upto->end(), text.begin(), text.end()).first -
          upto->begin());
      if (stop <= prompt->size()) {
        return make_error(error_code::unrepresentable,
                          detail::message_path(e) +
                              ": the conversation rendered through this turn is not a prefix "
                              "of the whole");
      }
    }
    // The model samples through its stop token (the dialect's, or the 2.x family's <|end|>
    // that closes a turn in a transcript); what the markup writes after it ([/AST], [EOS],
    // a newline) is not sampled.
    const std::string_view turn = text.substr(prompt->size(), stop - prompt->size());
    std::size_t last = std::string_view::npos;
    const auto& codec = detail::codec_of(ro.dialect);
    const auto consider = [&](std::string_view t) {
      const std::size_t at = turn.rfind(t);
      if (at != std::string_view::npos &&
          (last == std::string_view::npos || at + t.size() > last)) {
        last = at + t.size();
      }
    };
    for (const std::string_view t : codec.info.stop) consider(t);
    if (codec.family == "openchatml") consider("<|end|>");
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

}  // namespace

result<token_sequence> render_tokens(const conversation& conv, const render_options& options,
                                     const tokenizer& tok,
                                     const token_render_options& token_options) {
  token_sequence seq;
  // The 2.x family renders split messages: split once here rather than in every render
  // (trained_regions renders each turn's prompt), and name the caller's messages in
  // diagnostics.
  detail::origin_map origins;
  conversation split;
  const bool reshape = detail::codec_of(options.dialect).shape == detail::turn_shape::split &&
                       detail::has_embedded(conv);
  if (reshape) split = detail::split_form(conv, &origins);
  const conversation& c = reshape ? split : conv;
  const auto back = [&](diagnostic d) {
    if (reshape) detail::relocate(d, origins);
    return d;
  };
  // Under the harmony policy control tokens come from the structure alone, so harmony's
  // text may carry the 2.x escapes that segments_of reads back: content that spells a
  // control token is written as ordinary tokens instead of being refused.
  render_options ro = options;
  if (token_options.policy == token_policy::harmony) ro.openchatml_escapes = true;
  auto text = render(c, ro, &seq.diagnostics);
  if (reshape) detail::relocate(seq.diagnostics, 0, origins);
  if (!text) return back(text.error());
  std::vector<segment> segs;
  if (token_options.policy == token_policy::harmony) {
    auto s = segments_of(*text, options.dialect, tok, token_options.strict, seq.diagnostics, true);
    if (!s) return s.error();
    segs = std::move(*s);
  }
  std::vector<region> regions;
  if (token_options.training) {
    auto r = trained_regions(c, ro, *text, token_options);
    if (!r) return back(r.error());
    regions = std::move(*r);
  }
  std::size_t at = 0;
  for (const region& r : regions) {
    encode_range(*text, segs, token_options.policy, tok, at, r.from, seq.input_ids);
    seq.labels.resize(seq.input_ids.size(), -100);
    const std::size_t before = seq.input_ids.size();
    encode_range(*text, segs, token_options.policy, tok, r.from, r.to, seq.input_ids);
    for (std::size_t i = before; i < seq.input_ids.size(); ++i) {
      seq.labels.push_back(static_cast<std::int32_t>(seq.input_ids[i]));
    }
    at = r.to;
  }
  encode_range(*text, segs, token_options.policy, tok, at, text->size(), seq.input_ids);
  if (token_options.training) seq.labels.resize(seq.input_ids.size(), -100);
  if (token_options.max_tokens != 0 && seq.input_ids.size() > token_options.max_tokens) {
    const auto cut = static_cast<std::ptrdiff_t>(seq.input_ids.size() - token_options.max_tokens);
    seq.input_ids.erase(seq.input_ids.begin(), seq.input_ids.begin() + cut);
    if (!seq.labels.empty()) seq.labels.erase(seq.labels.begin(), seq.labels.begin() + cut);
  }
  seq.attention_mask.assign(seq.input_ids.size(), 1);
  return seq;
}

result<token_sequence> encode_markup(std::string_view markup, dialect d, const tokenizer& tok,
                                     const token_render_options& token_options) {
  token_sequence seq;
  std::vector<segment> segs;
  if (token_options.policy == token_policy::harmony) {
    auto s = segments_of(markup, d, tok, token_options.strict, seq.diagnostics, false);
    if (!s) return s.error();
    segs = std::move(*s);
  }
  encode_range(markup, segs, token_options.policy, tok, 0, markup.size(), seq.input_ids);
  seq.attention_mask.assign(seq.input_ids.size(), 1);
  return seq;
}

}  // namespace ocml
