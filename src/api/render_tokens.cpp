// SPDX-License-Identifier: Apache-2.0
// render_tokens: a rendered conversation as token IDs. The decoder reads the rendered text
// back, so that each byte is known as a control token, text, or (in the 2.x family's
// bodies) escape syntax; training cuts the sequence where each trained turn's generation
// prompt ends and where its stop token ends, and encodes the pieces one by one, so that the
// prompt of every turn is a prefix of the sequence in IDs as well as in text.
#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <optional>

#include "api/render_tokens.hpp"
#include "api/trained_turns.hpp"
#include "api/truncate_turns.hpp"
#include "core/forge.hpp"
#include "core/message_path.hpp"
#include "core/render_memo.hpp"
#include "dialects/openchatml/render_common.hpp"
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
  std::vector<std::optional<token_id>> ids;  // of info.tokens, in order
  detail::token_starts starts{info.tokens};

  void init() {
    for (const std::string_view t : info.tokens) ids.push_back(tok.id_of(t));
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
    for (std::size_t i = starts.next(text, b, e); i < e; i = starts.next(text, i, e)) {
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

// Whether `text` holds the 2.x escape syntax ("<<|" or "<|literal|>"): one pass over its
// '<' bytes.
bool has_escape(std::string_view text) {
  constexpr std::string_view kLiteral = "<|literal|>";
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end &&  // (memchr is never given an empty range: its pointer may be null)
         (p = static_cast<const char*>(std::memchr(p, '<', static_cast<std::size_t>(end - p))))) {
    const std::string_view rest(p, static_cast<std::size_t>(end - p));
    if (rest.starts_with("<<|") || rest.starts_with(kLiteral)) return true;
    ++p;
  }
  return false;
}

// `harmony_escaped`: harmony text written with the 2.x escapes (render_tokens writes it so,
// render_options::openchatml_escapes, so that content spelling a control token becomes
// ordinary tokens); plain harmony text has no escape syntax.
result<std::vector<segment>> segments_of(std::string_view text, dialect d, const tokenizer& tok,
                                         bool strict, std::vector<diagnostic>& warnings,
                                         bool harmony_escaped) {
  const auto& codec = detail::codec_of(d);
  const bool escapes = detail::writes_escapes(codec, harmony_escaped);
  segmenter s{text, codec.info, tok, escapes, strict, {}, warnings, {}, {}};
  s.init();
  // Formats without an escape refuse content that spells their markup (the injection rule):
  // every spelling of a control token in their text is structure. So is every spelling in
  // 2.x-family text without escape syntax: its renderer writes a '<' before each spelling
  // in a body ("<<|end|>") and wraps a body's trailing '<' in <|literal|>…<|endliteral|>.
  // No decoder pass for either.
  if (!s.escapes || !has_escape(text)) {
    if (auto r = s.structure(0, text.size(), false); !r) return r.error();
    return std::move(s.out);
  }
  bool in_body = false;
  std::optional<diagnostic> failed;
  // Each event is classified as it comes (no copy of the events: they hold messages).
  decoder_options dopt;
  dopt.dialect = d;
  dopt.openchatml_escapes = true;
  dopt.stream_arguments = false;
  decoder dec(dopt, [&](const event& e) {
    if (failed) return;
    result<bool> r = true;
    switch (e.kind) {
      case event_kind::diagnostic:
      case event_kind::call_begin:  // no bytes: the tool_call event covers the call's
      case event_kind::call_arguments:
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
void encode_range(std::string_view text, const std::vector<segment>& segs,
                  const token_render_options& to, const tokenizer& tok, std::size_t a,
                  std::size_t b, std::vector<token_id>& out) {
  if (a >= b) return;
  if (to.policy == token_policy::hf) {
    tok.append(text.substr(a, b - a), out,
               {.specials = special_tokens::all, .memoize = to.memoize});
    return;
  }
  // The text between two control tokens, encoded as one string: a view of `text` while it
  // is contiguous there, copied only when escape bytes left a gap.
  std::string copy;
  std::size_t run_from = 0;
  std::size_t run_to = 0;
  bool copied = false;
  const encode_options eo{.memoize = to.memoize};
  const auto flush = [&] {
    if (copied) {
      tok.append(copy, out, eo);
    } else if (run_to > run_from) {
      tok.append(text.substr(run_from, run_to - run_from), out, eo);
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

// Renders the first `n` messages of a conversation (with the generation prompt when asked:
// a prompt is never a training text) from one copy of it: the messages after the first `n`
// wait in `later_` (the last one first), so that going from one prefix to the next moves
// only the messages between them, and nothing is copied (the tools neither).
class prefix_renderer {
 public:
  // The tools block is written once: work_.tools stays as it is while this lives.
  explicit prefix_renderer(conversation conv) : work_(std::move(conv)), memo_(work_.tools) {}
  result<std::string> operator()(std::size_t n, const render_options& ro, bool generation_prompt,
                                 std::vector<diagnostic>* warnings = nullptr) {
    take(n);
    render_options o = ro;
    o.add_generation_prompt = generation_prompt;
    o.continue_final_message = false;
    if (generation_prompt) o.training = false;
    return render(work_, o, warnings);
  }

  // Harmony: the first `n` messages as operator() renders them without the generation
  // prompt, with `ends` (detail::render_harmony_marked's) marking where each message ends.
  result<std::string> harmony_marked(std::size_t n, const render_options& ro,
                                     std::vector<std::size_t>& ends) {
    take(n);
    if (detail::has_embedded(work_)) {  // not the split form: no marks (never so here)
      return make_error(error_code::unrepresentable, "harmony_marked: a reshaped conversation");
    }
    render_options o = ro;
    o.add_generation_prompt = false;
    o.continue_final_message = false;
    return detail::render_harmony_marked(work_, o, nullptr, &ends);
  }

  // Harmony: what operator()(n, ro, true) renders (the turn's prompt, the drop rule applied
  // when ro.drop_analysis), cut from plain(): a message's text depends only on the
  // messages before it, and the rule only leaves analysis out. Nothing when plain() failed
  // or a message's text could depend on the ones left out (a left-out message with a
  // recipient, whose call a reply could name; a tool reply named by its place rather than
  // its name or call id): the caller renders.
  std::optional<std::string> harmony_prompt(std::size_t n, const render_options& ro) {
    if (!plain(ro) || !by_name_) return std::nullopt;
    take_all();  // as plain() left them, unless a render since took fewer
    const auto kept = detail::messages_to_render(work_.messages, n, ro.drop_analysis);
    std::string out;
    out.reserve((n == 0 ? 0 : ends_[n - 1]) + 16 + ro.generation_role.size());
    std::size_t next = 0;  // the first message not yet looked at
    for (const message* m : kept) {
      const auto i = static_cast<std::size_t>(m - work_.messages.data());
      for (; next < i; ++next) {  // left out by the rule
        if (!work_.messages[next].recipient.empty()) return std::nullopt;
      }
      const std::size_t from = i == 0 ? 0 : ends_[i - 1];
      out.append(*plain_, from, ends_[i] - from);
      next = i + 1;
    }
    for (; next < n; ++next) {
      if (!work_.messages[next].recipient.empty()) return std::nullopt;
    }
    out += "<|start|>";
    out += ro.generation_role;
    return out;
  }

  // Harmony: messages [s, n) as operator()(n, o, false) renders them without the drop rule
  // (o.training: the last one ends as sampled), cut from plain(): the same messages render
  // the same text, but for the last one's end token. Nothing when plain() failed.
  std::optional<std::string> harmony_turn(std::size_t s, std::size_t n, const render_options& o) {
    if (s == 0 || s >= n || !plain(o)) return std::nullopt;
    take_all();
    const message& last = work_.messages[n - 1];
    const std::string_view plain_end = detail::harmony_end(last, false);
    const std::string_view end = detail::harmony_end(last, o.training);
    std::string out(*plain_, ends_[s - 1], ends_[n - 1] - plain_end.size() - ends_[s - 1]);
    out += end;
    return out;
  }

 private:
  void take_all() { take(work_.messages.size() + later_.size()); }

  // Puts the first `n` messages in work_ (the others in later_).
  void take(std::size_t n) {
    auto& ms = work_.messages;
    while (ms.size() > n) {
      later_.push_back(std::move(ms.back()));
      ms.pop_back();
    }
    while (ms.size() < n && !later_.empty()) {
      ms.push_back(std::move(later_.back()));
      later_.pop_back();
    }
  }

  // Harmony: renders every message once, without the drop rule or training, noting where
  // each ends (the ones after are cut from it). False when that render failed.
  bool plain(const render_options& ro) {
    if (!marked_) {
      marked_ = true;
      take_all();
      if (detail::has_embedded(work_)) return false;  // not the split form (never so here)
      render_options o = ro;
      o.add_generation_prompt = false;
      o.continue_final_message = false;
      o.training = false;
      o.drop_analysis = false;
      by_name_ = std::none_of(work_.messages.begin(), work_.messages.end(), [](const message& m) {
        return m.role == role::tool && m.name.empty() && m.call_id.empty();
      });
      if (auto t = detail::render_harmony_marked(work_, o, nullptr, &ends_)) plain_ = std::move(*t);
    }
    return plain_.has_value();
  }

  conversation work_;
  detail::render_memo_scope memo_;
  std::vector<message> later_;
  bool marked_ = false;               // plain() was tried
  std::optional<std::string> plain_;  // every message, without the drop rule or training
  std::vector<std::size_t> ends_;     // where each message ends in plain_
  bool by_name_ = false;              // every tool reply has a name or a call id
};

// `roles`: the conversation's, message by message (render_first holds its messages).
result<std::vector<detail::planned_example>> plan_examples(const std::vector<role>& roles,
                                                           prefix_renderer& render_first,
                                                           const render_options& ro,
                                                           std::string whole,
                                                           const token_render_options& to) {
  const auto& codec = detail::codec_of(ro.dialect);
  const bool keep = to.turns == trained_turns::keep_reasoning;
  detail::turn_renders r{
      .messages = roles.size(),
      .is_assistant = [&roles](std::size_t i) { return roles[i] == role::assistant; },
      .is_user = [&roles](std::size_t i) { return roles[i] == role::user; },
      .render_prompt = [&](std::size_t n) -> result<std::string> {
        if (ro.dialect == dialect::harmony) {
          if (auto p = render_first.harmony_prompt(n, ro)) return std::move(*p);
        }
        return render_first(n, ro, true);
      },
      .render_example =
          [&](std::size_t n) {
            // A training text ends in what the model sampled (harmony's <|return|>); under
            // keep_reasoning an earlier turn is trained as history writes it.
            render_options o = ro;
            o.training = !keep || n == roles.size();
            return render_first(n, o, false);
          },
      .stops = {codec.info.stop.begin(), codec.info.stop.end()},
      .rewrite_hint =
          "the format rewrites earlier turns (Qwen3 drops reasoning before the last "
          "user message, harmony drops analysis and ends an earlier answer with "
          "<|end|> where the model sampled <|return|>)"};
  // The 2.x family's <|end|> closes a turn in a transcript.
  if (codec.family == "openchatml") r.stops.emplace_back("<|end|>");
  if (ro.drop_analysis) {
    // Harmony's drop rule, which a final answer at the end triggers, rewrites the history
    // before it: the turn follows the history its prompt had (with the rule as the prompt
    // applied it), so it is that history and the turn's own messages as rendered without
    // the rule (messages render one by one). 0.1-style endings that do not extend fall
    // back to the conversation rendered through the turn.
    // Harmony writes the generation prompt after the history and changes nothing else
    // (render_harmony; TokenRender.HarmonyGenerationPromptOnlyAppends holds it to that):
    // the history is the turn's prompt without it, not a render of its own.
    const std::string gen = "<|start|>" + ro.generation_role;
    r.render_sampled = [&, gen](std::size_t s, std::size_t n,
                                std::string_view prompt) -> result<std::string> {
      render_options o = ro;
      o.training = !keep || n == roles.size();
      o.drop_analysis = false;
      if (ro.dialect == dialect::harmony && prompt.ends_with(gen) && s > 0 && s < n) {
        if (auto turn = render_first.harmony_turn(s, n, o)) {
          std::string history(prompt.substr(0, prompt.size() - gen.size()));
          history += *turn;
          return history;
        }
        // Without the drop rule the first s messages are the first ends[s - 1] bytes of the
        // turn's text (training's <|return|> ends only the last message): no render of
        // their own.
        std::vector<std::size_t> ends;
        auto through = render_first.harmony_marked(n, o, ends);
        if (!through) return through;
        std::string history(prompt.substr(0, prompt.size() - gen.size()));
        history.append(*through, ends[s - 1]);
        return history;
      }
      auto through = render_first(n, o, false);
      if (!through) return through;
      o.training = false;
      auto plain = render_first(s, o, false);
      if (!plain) return plain;
      if (through->compare(0, plain->size(), *plain) != 0) return through;
      if (ro.dialect == dialect::harmony && prompt.ends_with(gen)) {
        std::string history(prompt.substr(0, prompt.size() - gen.size()));
        history.append(*through, plain->size());
        return history;
      }
      o.drop_analysis = true;
      auto history = render_first(s, o, false);
      if (!history) return history;
      history->append(*through, plain->size());
      return history;
    };
  }
  return detail::plan_examples(r, std::move(whole), to);
}

// The IDs of `text` (a rendering of `d`) with `regions` labelled.
result<token_sequence> encode_example(std::string_view text,
                                      const std::vector<detail::trained_region>& regions, dialect d,
                                      const tokenizer& tok, const token_render_options& to,
                                      std::vector<diagnostic>& warnings) {
  token_sequence seq;
  std::vector<segment> segs;
  if (to.policy == token_policy::harmony) {
    auto s = segments_of(text, d, tok, to.strict, warnings, true);
    if (!s) return s.error();
    segs = std::move(*s);
  }
  detail::encode_regions(
      text, regions,
      [&](std::size_t from, std::size_t till, std::vector<token_id>& out) {
        encode_range(text, segs, to, tok, from, till, out);
      },
      to, seq);
  return seq;
}

// The conversation `render_tokens` and `render_examples` render: the 2.x family renders
// split messages, split once here rather than in every render (plan_examples renders each
// turn's prompt); `back` names the caller's messages in diagnostics.
struct prepared {
  detail::origin_map origins;
  conversation own;  // the split form, or the caller's conversation when given up
  bool reshape = false;
  bool owned = false;
  const conversation* c = nullptr;

  // `given`: conv itself, given up by the caller (its texts are moved), or null.
  prepared(const conversation& conv, conversation* given, dialect d)
      : reshape(detail::codec_of(d).shape == detail::turn_shape::split &&
                detail::has_embedded(conv)),
        owned(reshape || given != nullptr) {
    // The split form is rendered only (split-family renderers never read the tools).
    if (reshape && given != nullptr) {
      own = detail::split_form(std::move(*given), &origins, detail::split_copy::no_tools);
    } else if (reshape) {
      own = detail::split_form(conv, &origins, detail::split_copy::no_tools);
    } else if (given != nullptr) {
      own = std::move(*given);
    }
    c = owned ? &own : &conv;
  }
  // The conversation to render, for a renderer to keep: given up when it is this one's.
  conversation take() { return owned ? std::move(own) : conversation(*c); }
  diagnostic back(diagnostic d) const {
    if (reshape) detail::relocate(d, origins);
    return d;
  }
  void back(std::vector<diagnostic>& ds) const {
    if (reshape) detail::relocate(ds, 0, origins);
  }
};

// Under the harmony policy control tokens come from the structure alone, so harmony's text
// may carry the 2.x escapes that segments_of reads back: content that spells a control
// token is written as ordinary tokens instead of being refused.
render_options token_render_of(const render_options& options, const token_render_options& to) {
  render_options ro = options;
  if (to.policy == token_policy::harmony) ro.openchatml_escapes = true;
  return ro;
}

}  // namespace

std::optional<trained_turns> trained_turns_of(std::string_view name) noexcept {
  if (name == "automatic") return trained_turns::automatic;
  if (name == "per-turn") return trained_turns::per_turn;
  if (name == "whole") return trained_turns::whole;
  if (name == "last") return trained_turns::last;
  if (name == "keep-reasoning") return trained_turns::keep_reasoning;
  return std::nullopt;
}

std::optional<truncation> truncation_of(std::string_view name) noexcept {
  if (name == "turns") return truncation::turns;
  if (name == "left") return truncation::left;
  if (name == "right") return truncation::right;
  return std::nullopt;
}

namespace {

// truncation::turns: `sequences` (render_examples' or render_tokens' work on a
// conversation) on the conversation with as few of its oldest user turns dropped as fit.
result<std::vector<token_sequence>> fit_turns(
    const conversation& conv, const token_render_options& to,
    const std::function<result<std::vector<token_sequence>>(const conversation&)>& sequences) {
  if (to.max_tokens == 0 || to.truncate != truncation::turns) return sequences(conv);
  const auto role_at = [&conv](std::size_t i) { return conv.messages[i].role; };
  const auto groups = detail::turn_groups(
      conv.messages.size(),
      [&](std::size_t i) { return role_at(i) == role::system || role_at(i) == role::developer; },
      [&](std::size_t i) { return role_at(i) == role::user; });
  return detail::fit_by_turns(
      groups, to.max_tokens,
      [&](std::size_t from, std::size_t till) -> result<std::vector<token_sequence>> {
        if (from == till) return sequences(conv);
        conversation c = conv;
        c.messages.erase(c.messages.begin() + static_cast<std::ptrdiff_t>(from),
                         c.messages.begin() + static_cast<std::ptrdiff_t>(till));
        // Diagnostics name the caller's messages.
        detail::origin_map origins(c.messages.size());
        for (std::size_t i = 0; i < origins.size(); ++i) {
          origins[i].message = i < from ? i : i + (till - from);
        }
        auto xs = sequences(c);
        if (!xs) {
          diagnostic d = xs.error();
          detail::relocate(d, origins);
          return d;
        }
        for (token_sequence& x : *xs) detail::relocate(x.diagnostics, 0, origins);
        return xs;
      });
}

// `given`: conv itself when the caller gives it up, or null.
result<std::vector<token_sequence>> examples_of(const conversation& conv, conversation* given,
                                                const render_options& options, const tokenizer& tok,
                                                const token_render_options& token_options) {
  token_render_options to = token_options;
  to.training = true;
  prepared p(conv, given, options.dialect);
  render_options ro = token_render_of(options, to);
  ro.training = true;
  ro.add_generation_prompt = false;
  ro.continue_final_message = false;
  if (to.turns == trained_turns::keep_reasoning) {
    ro.keep_reasoning = true;
    ro.drop_analysis = false;
  }
  std::vector<diagnostic> warnings;
  std::vector<role> roles;
  roles.reserve(p.c->messages.size());
  for (const message& m : p.c->messages) roles.push_back(m.role);
  prefix_renderer render_first(p.take());
  auto text = render_first(roles.size(), ro, false, &warnings);
  p.back(warnings);
  if (!text) return p.back(text.error());
  auto plan = plan_examples(roles, render_first, ro, std::move(*text), to);
  if (!plan) return p.back(plan.error());
  std::vector<token_sequence> out;
  out.reserve(plan->size());
  for (const detail::planned_example& x : *plan) {
    auto seq = encode_example(x.text, x.regions, options.dialect, tok, to, warnings);
    if (!seq) return seq.error();
    out.push_back(std::move(*seq));
  }
  if (!out.empty()) out.front().diagnostics = std::move(warnings);
  return out;
}

// render_tokens without training: the conversation's one sequence.
result<std::vector<token_sequence>> prompt_of(const conversation& conv,
                                              const render_options& options, const tokenizer& tok,
                                              const token_render_options& token_options) {
  const prepared p(conv, nullptr, options.dialect);
  std::vector<diagnostic> warnings;
  auto text = render(*p.c, token_render_of(options, token_options), &warnings);
  p.back(warnings);
  if (!text) return p.back(text.error());
  auto seq = encode_example(*text, {}, options.dialect, tok, token_options, warnings);
  if (!seq) return seq.error();
  seq->diagnostics = std::move(warnings);
  std::vector<token_sequence> out;
  out.push_back(std::move(*seq));
  return out;
}

}  // namespace

result<std::vector<token_sequence>> render_examples(const conversation& conv,
                                                    const render_options& options,
                                                    const tokenizer& tok,
                                                    const token_render_options& token_options) {
  return fit_turns(conv, token_options, [&](const conversation& c) {
    return examples_of(c, nullptr, options, tok, token_options);
  });
}

result<std::vector<token_sequence>> detail::render_examples_of(
    conversation&& conv, const render_options& options, const tokenizer& tok,
    const token_render_options& token_options) {
  if (token_options.max_tokens != 0 && token_options.truncate == truncation::turns) {
    return render_examples(conv, options, tok, token_options);  // renders cut copies
  }
  return examples_of(conv, &conv, options, tok, token_options);
}

result<token_sequence> render_tokens(const conversation& conv, const render_options& options,
                                     const tokenizer& tok,
                                     const token_render_options& token_options) {
  auto xs = token_options.training ? render_examples(conv, options, tok, token_options)
                                   : fit_turns(conv, token_options, [&](const conversation& c) {
                                       return prompt_of(c, options, tok, token_options);
                                     });
  if (!xs) return xs.error();
  if (xs->size() != 1) {
    return make_error(error_code::unrepresentable,
                      "training this conversation under the chosen policy takes " +
                          std::to_string(xs->size()) +
                          " examples; render_examples returns them all");
  }
  return std::move(xs->front());
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
  encode_range(markup, segs, token_options, tok, 0, markup.size(), seq.input_ids);
  seq.attention_mask.assign(seq.input_ids.size(), 1);
  return seq;
}

}  // namespace ocml
