// SPDX-License-Identifier: Apache-2.0
// GabGPT streaming decoder. A user segment runs to the next token; a think segment and
// the assistant segment after it form one assistant message, closed by <|end|>.
#include "core/emitter.hpp"
#include "dialects/gabgpt/gabgpt.hpp"

namespace ocml::detail::gabgpt {

namespace {

// The whitespace GabGPT lets stand between turns (not form feed or vertical tab).
bool gabgpt_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

enum class state : std::uint8_t { between, user, think, assistant };

class decoder_impl final : public stream_decoder, public token_stream::handler {
 public:
  decoder_impl(decoder_options o, decoder::sink s)
      : opt_(std::move(o)), ts_(kTokens), em_(opt_, std::move(s), ts_) {
    if (opt_.completion) {
      em_.begin(message{.role = role::assistant}, 0);
      st_ = opt_.completion_role == "think" ? state::think : state::assistant;
    }
  }

  void push(std::string_view bytes) override {
    total_ += bytes.size();
    if (!em_.failed()) ts_.push(bytes, *this);
  }
  void finish() override {
    if (!em_.failed()) finish_input();
    em_.finish_spans(total_);
  }
  void finish_input() {
    ts_.finish(*this);
    const std::size_t off = ts_.consumed();
    if (st_ == state::user) {
      em_.end(end_token::unspecified, off);
    } else if (st_ != state::between) {
      // Generation stops on <|end|> and leaves it out (generation rule 2): in completion
      // mode an open assistant segment at the end is the normal case.
      if (!opt_.completion) {
        em_.report(error_code::stream_truncated, em_.soft(), off,
                   "input ended inside an assistant turn (no <|end|>)");
      }
      em_.end(end_token::unterminated, off);
    }
    st_ = state::between;
  }
  [[nodiscard]] bool failed() const noexcept override { return em_.failed(); }
  [[nodiscard]] std::size_t offset() const noexcept override { return ts_.consumed(); }
  [[nodiscard]] bool stopped() const noexcept override { return em_.failed(); }

  void on_text(std::string_view t, std::size_t off) override {
    switch (st_) {
      case state::between:
        // A log may begin with raw user text (preparation rule 2); after <|end|> only
        // whitespace may stand.
        if (!seen_token_) {
          em_.begin(message{.role = role::user}, off);
          st_ = state::user;
          em_.text(t, off);
          return;
        }
        em_.between_turns(t, off, "text after <|end|>", gabgpt_space);
        return;
      case state::user:
      case state::assistant:
        em_.text(t, off);
        return;
      case state::think:
        em_.reasoning(t, off);
        return;
    }
  }

  void on_token(std::size_t id, std::size_t off) override {
    const std::size_t after = off + kTokens[id].size();
    handle_token(id, off, after);
    em_.claim_token(off, after);  // every GabGPT token is markup
  }

  void handle_token(std::size_t id, std::size_t off, std::size_t after) {
    seen_token_ = true;
    switch (id) {
      case user:
        close_open(off);
        em_.begin(message{.role = role::user}, after);
        st_ = state::user;
        return;
      case think:
        if (st_ == state::think || st_ == state::assistant) {
          if (!em_.recoverable(error_code::unexpected_token, off,
                               "<|think|> inside an assistant turn (new turn)"))
            return;
          em_.end(end_token::unterminated, off);
        } else if (st_ == state::user) {
          em_.end(end_token::unspecified, off);
        }
        em_.begin(message{.role = role::assistant}, after);
        st_ = state::think;
        return;
      case assistant:
        if (st_ == state::think) {  // the think -> assistant transition
          st_ = state::assistant;
          return;
        }
        if (st_ == state::assistant) {
          if (!em_.recoverable(error_code::unexpected_token, off,
                               "<|assistant|> inside an assistant segment (new turn)"))
            return;
          em_.end(end_token::unterminated, off);
        } else if (st_ == state::user) {
          em_.end(end_token::unspecified, off);
        }
        em_.begin(message{.role = role::assistant}, after);
        st_ = state::assistant;
        return;
      case end:
        if (st_ == state::between) {
          if (em_.recoverable(error_code::unexpected_token, off, "stray <|end|>")) {
            em_.skipped(after, "<|end|> outside any turn");
          }
          return;
        }
        em_.end(end_token::end, off);
        st_ = state::between;
        em_.allow_stray();
        return;
      default:
        return;
    }
  }

 private:
  void close_open(std::size_t off) {
    if (st_ == state::user) em_.end(end_token::unspecified, off);
    if (st_ == state::think || st_ == state::assistant) em_.end(end_token::unterminated, off);
    st_ = state::between;
  }

  decoder_options opt_;
  token_stream ts_;
  emitter em_;
  state st_ = state::between;
  bool seen_token_ = false;
  std::size_t total_ = 0;  // bytes pushed (the spans cover them all)
};

}  // namespace

std::unique_ptr<stream_decoder> make_decoder(decoder_options o, decoder::sink s) {
  return std::make_unique<decoder_impl>(std::move(o), std::move(s));
}

}  // namespace ocml::detail::gabgpt
