// SPDX-License-Identifier: Apache-2.0
// render_tokens: a rendered conversation as token IDs. The decoder reads the rendered text
// back, so that each byte is known as a control token, text, or (in the 2.x family's
// bodies) escape syntax; training cuts the sequence where each trained turn's generation
// prompt ends and where its stop token ends, and encodes the pieces one by one, so that the
// prompt of every turn is a prefix of the sequence in IDs as well as in text.
#include <algorithm>
#include <array>
#include <optional>

#include "api/trained_turns.hpp"
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

result<std::vector<detail::trained_region>> trained_regions(const conversation& conv,
                                                            const render_options& ro,
                                                            std::string_view text,
                                                            const token_render_options& to) {
  const auto& codec = detail::codec_of(ro.dialect);
  detail::turn_renders r{
      .messages = conv.messages.size(),
      .is_assistant = [&conv](std::size_t i) { return conv.messages[i].role == role::assistant; },
      .render_first =
          [&](std::size_t n, bool generation_prompt) {
            return render_first(conv, n, ro, generation_prompt);
          },
      .stops = {codec.info.stop.begin(), codec.info.stop.end()},
      .rewrite_hint =
          "the format rewrites earlier turns (Qwen3 drops reasoning before the last "
          "user message, harmony's drop_analysis drops analysis before a final "
          "answer); train the last turn only, or keep the analysis"};
  // The 2.x family's <|end|> closes a turn in a transcript.
  if (codec.family == "openchatml") r.stops.emplace_back("<|end|>");
  return detail::trained_regions(r, text, to);
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
  std::vector<detail::trained_region> regions;
  if (token_options.training) {
    auto r = trained_regions(c, ro, *text, token_options);
    if (!r) return back(r.error());
    regions = std::move(*r);
  }
  detail::encode_regions(
      *text, regions,
      [&](std::size_t from, std::size_t to, std::vector<token_id>& out) {
        encode_range(*text, segs, token_options.policy, tok, from, to, out);
      },
      token_options, seq);
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
