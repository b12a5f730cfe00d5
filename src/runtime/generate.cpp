// SPDX-License-Identifier: Apache-2.0
// The generation loop: stop rules, limits, cancellation and decoding while text arrives.
#include "ocml/generate.hpp"

#include <algorithm>

#include "core/utf8.hpp"
#include "dialects/registry.hpp"
#include "ocml/decoder.hpp"
#include "ocml/token_decoder.hpp"

namespace ocml {

namespace {

bool openchatml_family(dialect d) noexcept {
  return detail::codec_of(d).family == "openchatml";
}

using detail::utf8_cut;

// After this many bytes without any "<|", a 2.x completion has lost its control tokens.
constexpr std::size_t kStrippedProbe = 1024;

// One generation: the decoder, the patterns watched in the stream, the state of the rules.
class run {
 public:
  run(const prompt& p, const generate_options& o, const std::function<void(const delta&)>& sink)
      : p_(p),
        o_(o),
        think_(o.think ? detail::codec_of(o.dialect).think : nullptr),
        proj_({.call_id_seed = o.call_id_seed}, [this, &sink](const delta& d) {
          if (d.kind == delta_kind::call_begin) call_open_ = true;
          if (d.kind == delta_kind::message_end) call_open_ = false;
          if (sink) sink(d);
        }) {
    const decoder_options dopt{
        .dialect = o.dialect,
        .lenient = o.lenient,
        .completion = true,
        .completion_role = think_ != nullptr ? std::string(think_->role) : "assistant"};
    const auto on = [this](const event& e) { on_event(e); };
    if (o.tokens != nullptr) {
      tdec_.emplace(*o.tokens, dopt, on);
      init_tokens(*o.tokens);
      return;
    }
    dec_.emplace(dopt, on);
    for (const auto& s : p.stop) patterns_.push_back({s, true});
    for (const auto& s : o.stop) {
      if (!s.empty()) patterns_.push_back({s, true, true});
    }
    if (openchatml_family(o.dialect)) patterns_.push_back({"<|end|>", false});
    if (think_ != nullptr) patterns_.push_back({std::string(think_->answer), false});
  }

  generation go(engine& engine);

 private:
  struct pattern {
    std::string text;
    bool stop;  // a stop sequence (cut, not fed) or a watched token (fed, then rules checked)
    bool user = false;  // the caller's stop string: cut, and never put back
  };

  // Token mode: the stop IDs, and the answer token's for a think round's watch (GabGPT).
  void init_tokens(const tokenizer& tok) {
    const auto need = [&](std::string_view t) -> std::optional<token_id> {
      const auto id = tok.id_of(t);
      if (!id && !setup_error_) {
        setup_error_ = make_error(error_code::token_unknown,
                                  "stop token '" + std::string(t) + "' is not one ID of the " +
                                      std::string(tok.name()) + " vocabulary");
        setup_error_->line = 0;
      }
      return id;
    };
    for (const auto& s : p_.stop) {
      if (const auto id = need(s)) stop_ids_.push_back(*id);
    }
    if (think_ != nullptr) assistant_id_ = need(think_->answer);
  }

  void on_event(const event& e) {
    collector_(e);
    proj_(e);
    if (e.kind == event_kind::message_end && openchatml_family(o_.dialect) &&
        e.end == end_token::end && final_open_) {
      final_done_ = true;  // a final answer closed by <|end|> ends the response
    }
    if (e.kind == event_kind::message_begin) {
      final_open_ = e.message->role == role::assistant && e.message->recipient.empty() &&
                    e.message->effective_channel() == "final";
    }
  }

  // Feeds completion bytes to the decoder (within max_bytes).
  void feed(std::string_view s) {
    if (o_.max_bytes != 0 && text_.size() + s.size() > o_.max_bytes) {
      s = s.substr(0, utf8_cut(s, o_.max_bytes - text_.size()));
      over_limit_ = true;
    }
    text_.append(s);
    dec_->push(s);
    // Every watched pattern of the 2.x family begins with "<|", so a held-back '<' keeps
    // "<|" from being split between two feeds.
    if (!saw_token_ && s.find("<|") != std::string_view::npos) saw_token_ = true;
    if (openchatml_family(o_.dialect) && !saw_token_ && text_.size() >= kStrippedProbe) {
      stripped_ = true;
    }
  }

  // Token mode: feeds one sampled ID (within max_bytes: a token that does not fit is not fed).
  void feed_id(token_id id) {
    const std::string_view bytes = o_.tokens->token_bytes(id);
    if (o_.max_bytes != 0 && text_.size() + bytes.size() > o_.max_bytes) {
      over_limit_ = true;
      return;
    }
    ids_.push_back(id);
    text_.append(bytes);
    tdec_->push_tokens(std::span<const token_id>(&id, 1));
  }

  [[nodiscard]] bool is_stop_id(token_id id) const {
    return std::find(stop_ids_.begin(), stop_ids_.end(), id) != stop_ids_.end();
  }

  // A think round (GabGPT) before the answer's token: a stop here calls for the second round, and
  // the stop is not written back.
  [[nodiscard]] bool awaiting_answer() const { return think_ != nullptr && !saw_assistant_; }

  // Puts back a stop sequence the engine cut (it is not the model's own text).
  void restore(std::string_view stop) {
    const bool saw = saw_token_;
    feed(stop);
    saw_token_ = saw;
  }

  [[nodiscard]] bool should_stop() const {
    return over_limit_ || stripped_ || final_done_ || user_stop_ || !matched_.empty();
  }

  bool on_text(std::string_view chunk);
  bool on_tokens(std::span<const token_id> ids);
  void end_round(const result<model_finish>& r, generation& g);
  void end_token_round(const model_finish& f, generation& g);

  const prompt& p_;
  const generate_options& o_;
  const detail::think_round* think_;  // null unless the dialect thinks in a round of its own
  collector collector_;
  projection proj_;
  std::optional<decoder> dec_;         // text mode
  std::optional<token_decoder> tdec_;  // token mode
  std::vector<pattern> patterns_;
  std::vector<token_id> stop_ids_, ids_;
  std::optional<token_id> assistant_id_;
  std::optional<diagnostic> setup_error_;
  std::string text_;     // completion bytes fed so far
  std::string held_;     // received bytes that may begin a pattern
  std::string matched_;  // the stop sequence found in the stream
  bool call_open_ = false, final_open_ = false, final_done_ = false;
  bool saw_assistant_ = false, over_limit_ = false, stripped_ = false, cancelled_ = false;
  bool engine_failed_ = false, truncated_ = false, length_ = false;
  bool saw_token_ = false;  // the model's own text held a control token
  bool user_stop_ = false;  // a stop string of the caller's ended the text
};

bool run::on_text(std::string_view chunk) {
  if (o_.cancel != nullptr && o_.cancel->cancelled()) {
    cancelled_ = true;
    return false;
  }
  held_.append(chunk);
  const std::string_view w = held_;
  std::size_t used = 0;
  for (;;) {
    std::size_t at = std::string_view::npos;
    const pattern* hit = nullptr;
    for (const auto& pat : patterns_) {
      const std::size_t pos = w.find(pat.text, used);
      if (pos < at) {
        at = pos;
        hit = &pat;
      }
    }
    if (hit == nullptr) break;
    if (hit->stop) {
      feed(w.substr(used, at - used));
      if (hit->user) {
        user_stop_ = true;
      } else if (!over_limit_) {
        matched_ = hit->text;
      }
      held_.clear();
      return false;
    }
    feed(w.substr(used, at + hit->text.size() - used));
    used = at + hit->text.size();
    if (think_ != nullptr && hit->text == think_->answer) saw_assistant_ = true;
    if (should_stop()) {
      held_.clear();
      return false;
    }
  }
  // Hold back the longest tail that could still become a pattern.
  std::size_t keep = 0;
  for (const auto& pat : patterns_) {
    for (std::size_t k = std::min(pat.text.size() - 1, w.size() - used); k > keep; --k) {
      if (w.substr(w.size() - k) == std::string_view(pat.text).substr(0, k)) {
        keep = k;
        break;
      }
    }
  }
  feed(w.substr(used, w.size() - keep - used));
  held_.erase(0, held_.size() - keep);
  return !should_stop();
}

bool run::on_tokens(std::span<const token_id> ids) {
  if (o_.cancel != nullptr && o_.cancel->cancelled()) {
    cancelled_ = true;
    return false;
  }
  for (const token_id id : ids) {
    if (is_stop_id(id)) {
      matched_ = o_.tokens->token_bytes(id);
      if (!awaiting_answer()) feed_id(id);
      return false;
    }
    feed_id(id);
    if (assistant_id_ && id == *assistant_id_) saw_assistant_ = true;
    if (should_stop()) return false;
  }
  return true;
}

// Token mode: the engine stopped on a stop ID it left out of its output: put it back.
void run::end_token_round(const model_finish& f, generation& g) {
  if (f.reason == engine_stop::length) {
    length_ = true;
    return;
  }
  if (f.reason == engine_stop::eof) {
    truncated_ = true;
    return;
  }
  std::optional<token_id> stop;
  if (f.stop_token && is_stop_id(*f.stop_token)) stop = f.stop_token;
  if (!stop && stop_ids_.size() == 1) stop = stop_ids_.front();
  if (!stop && !stop_ids_.empty()) {
    const std::string_view guess = call_open_ ? "<|call|>" : "<|return|>";
    stop = o_.tokens->id_of(guess);
    if (!stop) stop = stop_ids_.front();
    g.diagnostics.push_back({.code = error_code::engine,
                             .level = severity::warning,
                             .message = "the engine did not say which stop token ended its "
                                        "output; assumed " +
                                        std::string(o_.tokens->token_bytes(*stop))});
  }
  if (!stop) return;
  matched_ = o_.tokens->token_bytes(*stop);
  if (!awaiting_answer()) feed_id(*stop);
}

void run::end_round(const result<model_finish>& r, generation& g) {
  if (!r) {
    g.diagnostics.push_back(r.error());
    engine_failed_ = true;
    return;
  }
  if (cancelled_ || over_limit_ || stripped_ || final_done_ || user_stop_) return;
  if (tdec_) {
    if (matched_.empty()) end_token_round(*r, g);
    return;
  }
  if (!matched_.empty()) {
    if (!awaiting_answer()) restore(matched_);
    return;
  }
  feed(held_);
  held_.clear();
  if (r->reason == engine_stop::length) {
    length_ = true;
    return;
  }
  if (r->reason == engine_stop::eof) {
    truncated_ = true;
    return;
  }
  if (o_.callers_stop(r->stop_sequence)) {
    user_stop_ = true;  // the caller's stop: left out, as the engine left it out
    return;
  }
  // The engine stopped and cut the stop sequence from its text: put it back.
  std::string stop = r->stop_sequence;
  if (std::find(p_.stop.begin(), p_.stop.end(), stop) == p_.stop.end()) stop.clear();
  if (stop.empty() && p_.stop.size() == 1) stop = p_.stop.front();
  if (stop.empty() && !p_.stop.empty()) {
    stop = call_open_ ? "<|call|>" : "<|return|>";
    g.diagnostics.push_back(
        {.code = error_code::engine,
         .level = severity::warning,
         .message = "the engine did not say which stop sequence ended its text; assumed " + stop});
  }
  matched_ = stop;
  if (!awaiting_answer()) restore(stop);
}

generation run::go(engine& engine) {
  generation g;
  model_request req{
      .prompt = p_.text, .stop = p_.stop, .max_tokens = o_.max_tokens, .cancel = o_.cancel};
  for (const auto& s : o_.stop) {
    if (!s.empty()) req.stop.push_back(s);
  }
  if (tdec_) {
    if (setup_error_) {
      g.diagnostics.push_back(*setup_error_);
      g.finish = finish_reason::error;
      return g;
    }
    auto enc = encode_markup(p_.text, o_.dialect, *o_.tokens, {.policy = o_.policy});
    if (!enc) {
      g.diagnostics.push_back(enc.error());
      g.finish = finish_reason::error;
      return g;
    }
    for (auto& d : enc->diagnostics) g.diagnostics.push_back(std::move(d));
    req.prompt_ids = std::move(enc->input_ids);
    g.prompt_tokens = req.prompt_ids.size();
    req.stop_token_ids = stop_ids_;
    req.stop.clear();  // the engine stops on IDs; a string stop would cut inside its text
  }
  const std::size_t prompt_ids = req.prompt_ids.size();
  const auto sink = [this](std::string_view t) { return on_text(t); };
  const auto token_sink = [this](std::span<const token_id> ids) { return on_tokens(ids); };
  for (;;) {
    ++g.rounds;
    end_round(tdec_ ? engine.complete_tokens(req, token_sink) : engine.complete(req, sink), g);
    // A think round (GabGPT): the model stopped without ever writing the answer's token.
    const bool second_round = awaiting_answer() && g.rounds == 1 && !matched_.empty() &&
                              !cancelled_ && !over_limit_ && !engine_failed_;
    if (!second_round) break;
    matched_.clear();
    if (tdec_) {
      feed_id(*assistant_id_);
    } else {
      feed(think_->answer);
    }
    saw_assistant_ = true;
    req.prompt = p_.text + text_;
    req.prompt_ids.resize(prompt_ids);
    req.prompt_ids.insert(req.prompt_ids.end(), ids_.begin(), ids_.end());
  }
  if (o_.cancel != nullptr && o_.cancel->cancelled()) cancelled_ = true;
  if (tdec_) {
    tdec_->finish();
  } else {
    dec_->finish();
  }
  proj_.finish();
  parse_result parsed = collector_.take();
  g.messages = std::move(parsed.conversation.messages);
  const bool cut_short = cancelled_ || over_limit_ || length_ || user_stop_;
  bool decoder_truncated = false;
  for (auto& d : parsed.diagnostics) {
    if (d.code == error_code::stream_truncated && engine_failed_) continue;  // said already
    if (d.code == error_code::stream_truncated) {
      decoder_truncated = true;
      if (cut_short) {
        d.level = severity::warning;  // expected: the limit or the client cut it
      } else if (truncated_) {
        d.level = severity::error;  // the engine's stream broke off (harmony reads it leniently)
      }
    }
    g.diagnostics.push_back(std::move(d));
  }
  if (over_limit_) {
    // Said here, not guessed by the caller from the text's size: in token mode a token that
    // does not fit is not fed, so the text can stop well short of the limit.
    g.diagnostics.push_back({.code = error_code::limit_exceeded,
                             .level = severity::warning,
                             .offset = text_.size(),
                             .line = 0,
                             .message = "the completion reached max_bytes (" +
                                        std::to_string(o_.max_bytes) + "): cut off"});
  }
  if (truncated_ && !decoder_truncated) {
    g.diagnostics.push_back({.code = error_code::stream_truncated,
                             .offset = text_.size(),
                             .message = "the engine's stream ended without a stop token"});
  }
  if (!tdec_ && (stripped_ || (openchatml_family(o_.dialect) && !text_.empty() && !saw_token_))) {
    g.diagnostics.push_back(
        {.code = error_code::engine_tokens_stripped,
         .message = "the completion holds no control token: the engine strips special tokens "
                    "(vLLM: skip_special_tokens=false)"});
  }
  const bool failed = std::any_of(g.diagnostics.begin(), g.diagnostics.end(),
                                  [](const auto& d) { return d.level == severity::error; });
  if (cancelled_) {
    g.finish = finish_reason::cancelled;
  } else if (over_limit_ || length_) {
    g.finish = finish_reason::length;
  } else if (user_stop_ && !engine_failed_) {
    g.finish = finish_reason::stop;
  } else if (failed || engine_failed_) {
    g.finish = finish_reason::error;
  } else {
    g.finish = proj_.natural_finish();
  }
  g.text = std::move(text_);
  g.token_ids = std::move(ids_);
  return g;
}

}  // namespace

generation generate(engine& engine, const prompt& p, const generate_options& options,
                    const std::function<void(const delta&)>& on_delta) {
  run r(p, options, on_delta);
  return r.go(engine);
}

// ---- scripted_engine ------------------------------------------------------------------------

scripted_engine::scripted_engine(std::vector<scripted_response> responses)
    : responses_(std::move(responses)) {}

result<const scripted_response*> scripted_engine::take(const model_request& request) {
  requests_.push_back(request);
  if (requests_.size() > responses_.size()) {
    return make_error(error_code::engine, "scripted model: no reply left for request " +
                                              std::to_string(requests_.size()));
  }
  return &responses_[requests_.size() - 1];
}

result<model_finish> scripted_engine::complete(const model_request& request,
                                               const chunk_sink& on_text) {
  const auto next = take(request);
  if (!next) return next.error();
  const scripted_response& r = **next;
  std::string_view t = r.text;
  model_finish f;
  std::size_t cut = std::string_view::npos;
  for (const auto& s : r.ignore_stops ? std::vector<std::string>{} : request.stop) {
    const std::size_t pos = s.empty() ? std::string_view::npos : t.find(s);
    if (pos < cut) {
      cut = pos;
      f.stop_sequence = s;
    }
  }
  if (cut != std::string_view::npos) t = t.substr(0, cut);
  if (request.max_tokens != 0 && t.size() > request.max_tokens) {
    t = t.substr(0, request.max_tokens);
    f.reason = engine_stop::length;
    f.stop_sequence.clear();
  } else if (cut == std::string_view::npos && r.drop_connection) {
    f.reason = engine_stop::eof;
  }
  const std::size_t step = std::max<std::size_t>(r.chunk, 1);
  for (std::size_t i = 0; i < t.size(); i += step) {
    if (!on_text(t.substr(i, step))) break;
  }
  return f;
}

result<model_finish> engine::complete_tokens(const model_request& /*request*/,
                                             const token_sink& /*on_tokens*/) {
  diagnostic d = make_error(error_code::engine, "this model streams text, not token IDs");
  d.line = 0;
  return d;
}

result<model_finish> scripted_engine::complete_tokens(const model_request& request,
                                                      const token_sink& on_tokens) {
  const auto next = take(request);
  if (!next) return next.error();
  const scripted_response& r = **next;
  std::span<const token_id> t = r.ids;
  model_finish f;
  if (!r.ignore_stops) {
    const auto& stops = request.stop_token_ids;
    const auto hit = std::find_first_of(t.begin(), t.end(), stops.begin(), stops.end());
    if (hit != t.end()) {
      f.stop_token = *hit;
      t = t.first(static_cast<std::size_t>(hit - t.begin()) + (r.stop_token_in_output ? 1 : 0));
    }
  }
  if (request.max_tokens != 0 && t.size() > request.max_tokens) {
    t = t.first(request.max_tokens);
    f.reason = engine_stop::length;
    f.stop_token.reset();
  } else if (!f.stop_token && r.drop_connection) {
    f.reason = engine_stop::eof;
  }
  const std::size_t step = std::max<std::size_t>(r.chunk, 1);
  for (std::size_t i = 0; i < t.size(); i += step) {
    if (!on_tokens(t.subspan(i, std::min(step, t.size() - i)))) break;
  }
  return f;
}

}  // namespace ocml
