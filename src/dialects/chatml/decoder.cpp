// SPDX-License-Identifier: Apache-2.0
// ChatML streaming decoder (Qwen2.5 + Hermes tool calls).
#include <string>

#include "core/emitter.hpp"
#include "core/json_extent.hpp"
#include "core/scan.hpp"
#include "dialects/call_stream.hpp"
#include "dialects/chatml/chatml.hpp"
#include "interchange/json_util.hpp"
#include "interchange/pyjson.hpp"

namespace ocml::detail::chatml {

namespace {

enum class state : std::uint8_t {
  between,      // outside messages
  role_line,    // after <|im_start|>, up to the newline
  user_start,   // first bytes of a user body: text, or <tool_response> blocks
  body,         // message text
  call,         // inside <tool_call>
  after_call,   // between </tool_call> and the next <tool_call> or <|im_end|>
  response,     // inside <tool_response>
  after_resp,   // between </tool_response> and the next block or <|im_end|>
  think,        // Qwen3: inside <think> (reasoning)
  maybe_think,  // Qwen3 completion: text held until </think> says it was reasoning
};

class decoder_impl final : public stream_decoder, public token_stream::handler {
 public:
  decoder_impl(decoder_options o, decoder::sink s, const variant& v)
      : opt_(std::move(o)),
        ts_(v.think ? kThinkTokens : kTokens),
        em_(opt_, std::move(s), ts_),
        think_(v.think),
        tools_head_(v.tools_head) {
    if (opt_.completion) {
      role_ = opt_.completion_role;
      open_body(0);
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
    if (st_ == state::between) return;
    if (st_ == state::role_line) em_.skipped(off, "a role line the input ended in");
    if (st_ == state::maybe_think) {
      flush_maybe_think();
    } else if (st_ == state::think) {
      held_nl_ = 0;  // the reasoning's trailing newlines, as before </think>
      em_.structure(off);
    }
    if (st_ == state::call) {
      // A call the model never closed (EOS right after its JSON is common in the wild).
      if (!unclosed_call(error_code::stream_truncated, off, "input ended inside <tool_call>"))
        return;
    } else {
      const bool soft = opt_.lenient || opt_.completion;
      em_.report(error_code::stream_truncated, soft ? severity::warning : severity::error, off,
                 st_ == state::role_line ? "input ended inside a role line"
                                         : "input ended inside a message (no <|im_end|>)");
    }
    if (is_system_) flush_system(off);
    flush_nl();
    em_.end(end_token::unterminated, off);
  }
  [[nodiscard]] bool failed() const noexcept override { return em_.failed(); }
  [[nodiscard]] std::size_t offset() const noexcept override { return ts_.consumed(); }
  [[nodiscard]] bool stopped() const noexcept override { return em_.failed(); }

  void on_text(std::string_view t, std::size_t off) override {
    switch (st_) {
      case state::between:
      case state::after_resp:
        whitespace_only(t, off);
        return;
      case state::role_line: {
        const auto nl = t.find('\n');
        const std::string_view part = t.substr(0, nl);
        if (!em_.fits(role_.size(), part.size(), opt_.limits.max_header_bytes, off, "role line"))
          return;
        role_ += part;
        if (nl == std::string_view::npos) return;
        if (!open_body(off + nl + 1)) return;
        if (nl + 1 < t.size()) on_text(t.substr(nl + 1), off + nl + 1);
        return;
      }
      case state::user_start:
        begin(role::user, body_off_);
        st_ = state::body;
        [[fallthrough]];
      case state::body:
        body_text(t, off);
        return;
      case state::call:
        if (!em_.fits(buf_.size(), t.size(), opt_.limits.max_buffered_body_bytes, off, "tool call"))
          return;
        buf_.append(t);
        ext_.feed(t);
        if (opt_.lenient && ext_.current() == json_extent::state::not_object) {
          // Prose that mentions the tag ("wrap each call in a <tool_call> tag"): text.
          em_.report_at(error_code::body_constraint_violation, severity::warning, call_tag_off_,
                        call_tag_pos_,
                        "recovered: <tool_call> is not followed by a JSON object (kept as text)");
          revert_call(false);
          return;
        }
        if (opt_.stream_arguments) calls_.scan(buf_);
        return;
      case state::after_call:
        if (after_call_nl_) {  // the separator before the next <tool_call>
          after_call_nl_ = false;
          if (t.front() == '\n') {
            t.remove_prefix(1);
            ++off;
            em_.structure(off);
          }
        }
        if (t.empty()) return;
        if (!after_call_reported_ &&
            !em_.recoverable(error_code::stray_text, off,
                             "text after </tool_call> (kept as content)")) {
          return;
        }
        after_call_reported_ = true;
        em_.text(t, off);
        return;
      case state::think:
        think_text(t, off);
        return;
      case state::maybe_think:
        if (buf_.empty()) {
          held_off_ = off;
          held_pos_ = em_.where(off);
        }
        if (!em_.fits(buf_.size(), t.size(), opt_.limits.max_buffered_body_bytes, off,
                      "text before </think>"))
          return;
        buf_.append(t);
        return;
      case state::response:
        if (strip_leading_nl_) {
          strip_leading_nl_ = false;
          if (t.front() == '\n') {
            t.remove_prefix(1);
            ++off;
            em_.structure(off);
          }
        }
        body_text(t, off);
        return;
    }
  }

  void on_token(std::size_t id, std::size_t off) override {
    const std::size_t after = off + tok(id).size();
    handle_token(id, off, after);
    // A token the handler did not cover (as text, or inside a call or held text) is markup.
    if (!holding()) em_.claim_token(off, after);
  }

  // True while bytes are held back to be covered later (a call, a Qwen3 system turn, text
  // before </think>).
  [[nodiscard]] bool holding() const noexcept {
    return st_ == state::call || st_ == state::maybe_think || (st_ == state::body && is_system_);
  }

  void handle_token(std::size_t id, std::size_t off, std::size_t after) {
    switch (st_) {
      case state::between:
        if (id == im_start) {
          role_.clear();
          header_off_ = after;
          header_pos_ = em_.where(after);
          st_ = state::role_line;
        } else if (em_.recoverable(error_code::unexpected_token, off,
                                   "stray " + tok(id) + " outside a message")) {
          em_.skipped(after, "a control token outside any message");
        }
        return;
      case state::role_line:
        if (id == im_end && open_body(after)) {
          if (st_ == state::user_start) begin(role::user, body_off_);
          close(off);
          return;
        }
        em_.fail(error_code::parse_header, off, tok(id) + " inside a role line");
        return;
      case state::user_start:
        if (id == resp_open) {
          begin(role::tool, off);
          start_response();
          return;
        }
        begin(role::user, body_off_);
        st_ = state::body;
        on_token(id, off);
        return;
      case state::body:
      case state::response:
        body_token(id, off, after);
        return;
      case state::call:
        if (ext_.in_string() && id != im_end) {
          // A tag inside a JSON string is part of the string.
          buf_ += tok(id);
          if (opt_.stream_arguments) calls_.scan(buf_);
        } else if (id == call_close) {
          if (!finish_call(true, after)) return;
          st_ = state::after_call;
          after_call_nl_ = true;
        } else if (id == im_end) {
          if (unclosed_call(error_code::unexpected_token, off, "<|im_end|> inside <tool_call>"))
            close(off);
        } else if (id == call_open && opt_.lenient && ext_.complete()) {
          em_.report(error_code::unexpected_token, severity::warning, off,
                     "recovered: <tool_call> without </tool_call> before the next <tool_call>");
          (void)finish_call(false, off);
          if (!em_.failed()) start_call(off, after);
        } else {
          unexpected(id, off);
        }
        return;
      case state::after_call:
        after_call_nl_ = false;
        if (id == call_open) {
          start_call(off, after);
        } else if (id == im_end) {
          close(off);
        } else {
          unexpected(id, off);
        }
        return;
      case state::after_resp:
        if (id == resp_open) {
          begin(role::tool, off);
          start_response();
        } else if (id == im_end) {
          st_ = state::between;
        } else {
          unexpected(id, off);
        }
        return;
      case state::think:
        if (id == think_close) {
          end_think(off);
        } else if (id == im_end) {
          if (!em_.recoverable(error_code::unexpected_token, off,
                               "<|im_end|> inside <think> (reasoning kept)")) {
            return;
          }
          held_nl_ = 0;
          em_.structure(off);
          close(off);
        } else {
          think_text(tok(id), off);  // a tag inside <think> is reasoning text, never a call
        }
        return;
      case state::maybe_think:
        if (id == think_close) {
          // The prompt opened the block: what came before </think> was reasoning.
          const std::string held = std::move(buf_);
          buf_.clear();
          st_ = state::think;
          lead_ = true;
          think_text(held, held_off_, &held_pos_);
          end_think(off);
        } else if (id == think_open && is_blank(buf_)) {
          buf_.clear();
          em_.structure(off);  // white space before <think>
          start_think();
        } else {
          flush_maybe_think();
          on_token(id, off);
        }
        return;
    }
  }

 private:
  void begin(role r, std::size_t off) {
    strip_lead_ = false;
    role_now_ = r;
    message m;
    m.role = r;
    em_.begin(std::move(m), off);
  }

  // Parses the role line; sets up the body. False when decoding stopped.
  bool open_body(std::size_t body_off) {
    em_.structure(body_off);  // the role line
    body_off_ = body_off;
    body_pos_ = em_.where(body_off);
    pending_nl_ = false;
    is_system_ = false;
    const auto r = parse_role(role_);
    if (!r) {
      em_.report_at(error_code::parse_header, opt_.lenient ? severity::warning : severity::error,
                    header_off_, header_pos_,
                    (opt_.lenient ? "recovered: " : "") + std::string("unknown role '") + role_ +
                        "' (read as user)");
      if (!opt_.lenient) {
        em_.stop();
        return false;
      }
    }
    const role rr = r.value_or(role::user);
    role_now_ = rr;
    if (rr == role::user) {
      st_ = state::user_start;
      return true;
    }
    is_system_ = rr == role::system;
    // A system turn whose head is not Qwen2.5's may be only a tools block: no message.
    if (!(is_system_ && tools_head_ != kToolsHead)) begin(rr, header_off_);
    buf_.clear();
    st_ = state::body;
    fresh_ = true;
    strip_lead_ = false;
    if (think_ && rr == role::assistant && opt_.completion && body_off == 0) {
      if (opt_.think == think_start::open) {
        start_think();
      } else if (opt_.think == think_start::detect) {
        st_ = state::maybe_think;
      }
    }
    return true;
  }

  void whitespace_only(std::string_view t, std::size_t off) {
    em_.between_turns(t, off, "text outside any message");
  }

  // Text of a body. The newline the template puts before a tag is held back until we know
  // whether a tag follows. System bodies are kept whole: the tools block is cut at the end.
  // `start`: the position of `off` when the text was held back (the stream has passed it).
  void body_text(std::string_view t, std::size_t off, const position* start = nullptr) {
    position at = start != nullptr ? *start : position{};
    if (strip_lead_) {  // the content after </think> starts after its newlines
      std::size_t k = 0;
      while (k < t.size() && t[k] == '\n') ++k;
      if (start != nullptr) at = advance(at, t.substr(0, k));
      t.remove_prefix(k);
      off += k;
      em_.structure(off);
      if (t.empty()) return;
      strip_lead_ = false;
    }
    if (t.empty()) return;
    fresh_ = false;
    if (is_system_) {
      if (!em_.fits(buf_.size(), t.size(), opt_.limits.max_buffered_body_bytes, off,
                    "system message"))
        return;
      buf_.append(t);
      return;
    }
    flush_nl();
    const bool nl = t.back() == '\n';
    const std::string_view now = nl ? t.substr(0, t.size() - 1) : t;
    if (start != nullptr) {
      em_.text_at(now, off, at);
    } else {
      em_.text(now, off);
    }
    if (nl) {
      pending_nl_ = true;
      nl_off_ = off + now.size();
      // Taken now: a call that turns back into text (revert_call) needs it later.
      nl_pos_ = start != nullptr ? advance(at, now) : em_.where(nl_off_);
    }
  }
  void flush_nl() {
    if (pending_nl_) em_.text_at("\n", nl_off_, nl_pos_);
    pending_nl_ = false;
  }

  void body_token(std::size_t id, std::size_t off, std::size_t after) {
    const role r = role_now_;  // (a Qwen3 system turn is begun only when it ends)
    if (id == think_open && r == role::assistant && st_ == state::body && fresh_) {
      start_think();
      return;
    }
    fresh_ = false;
    strip_lead_ = false;  // only the text straight after </think> loses its newlines
    if (id == im_end && st_ == state::body) {
      if (is_system_) flush_system(off);
      flush_nl();
      close(off);
    } else if (id == call_open && r == role::assistant && st_ == state::body) {
      start_call(off, after);
    } else if (id == resp_close && st_ == state::response) {
      pending_nl_ = false;  // the template's "\n" before </tool_response>
      em_.structure(off);
      em_.end(end_token::end, off);
      st_ = state::after_resp;
    } else if (id != im_start && id != im_end &&
               !(r == role::tool && st_ == state::response && id == resp_open)) {
      // Tags that mean nothing in this role are text (the renderer refuses only the ones
      // that would: tool tags in assistant turns, response tags in user and tool turns).
      body_text(tok(id), off);
    } else {
      unexpected(id, off);
    }
  }

  void unexpected(std::size_t id, std::size_t off) {
    if (!em_.recoverable(error_code::unexpected_token, off,
                         tok(id) + " out of place (kept as text)")) {
      return;
    }
    if (st_ == state::call) {
      buf_ += tok(id);
    } else if (em_.open() || is_system_) {
      body_text(tok(id), off);  // in order with held system text
    } else {
      em_.skipped(off + tok(id).size(), "a control token outside any message");
    }
  }

  void close(std::size_t off) {
    flush_nl();  // a newline held at the end of the turn is its text (e.g. a reverted call's)
    em_.end(end_token::end, off);
    st_ = state::between;
    em_.allow_stray();
  }

  // `<tool_call>` at `tag`, its body from `after`. The newline before the tag is the
  // template's separator, unless the call turns out to be text.
  void start_call(std::size_t tag, std::size_t after) {
    call_nl_ = pending_nl_;
    pending_nl_ = false;
    call_text_off_ = call_nl_ ? nl_off_ : tag;
    call_tag_off_ = tag;
    call_tag_pos_ = em_.where(tag);
    call_text_pos_ = call_nl_ ? nl_pos_ : call_tag_pos_;
    buf_.clear();
    ext_.reset();
    call_off_ = after;
    call_pos_ = em_.where(after);
    st_ = state::call;
    calls_.start(call_off_, call_pos_);
  }

  // A call the stream began whose JSON then broke, or was cut off (lenient): it stays that
  // call, as a stream cannot take back what it sent (docs/decisions.md 94).
  void keep_begun_call(std::size_t end, const std::string& why) {
    std::string_view body(buf_);
    if (body.ends_with('\n')) body.remove_suffix(1);
    calls_.emit_kept(body, end, why);
    buf_.clear();
  }

  // The call's bytes as they were written (its separator, tag, body and, when `closed`, its
  // close tag) become text of the message, in lenient mode.
  void revert_call(bool closed) {
    std::string t = call_nl_ ? "\n" : "";
    t += kTokens[call_open];
    t += buf_;
    if (closed) t += kTokens[call_close];
    buf_.clear();
    st_ = state::body;
    // A final newline is held back as body text's is (a tag may follow it).
    const bool nl = !closed && t.back() == '\n';
    if (nl) t.pop_back();
    em_.text_at(t, call_text_off_, call_text_pos_);
    if (nl) {
      pending_nl_ = true;
      nl_off_ = call_text_off_ + t.size();
      nl_pos_ = detail::advance(call_text_pos_, std::string_view(t));
    }
  }

  // A call cut off by <|im_end|> or the end of input (`why`, reported with `code`): its JSON
  // complete is a call, else its text; an error in strict mode. False when decoding stopped.
  bool unclosed_call(error_code code, std::size_t off, const char* why) {
    const bool begun = !ext_.complete() && calls_.begun(buf_);
    if (!em_.recoverable(code, off,
                         std::string(why) + ((ext_.complete() || begun) && opt_.lenient
                                                 ? " (read as an unclosed call)"
                                                 : " (kept as text)"))) {
      return false;
    }
    if (begun) {
      keep_begun_call(off, why);
    } else if (!ext_.complete() || !finish_call(false, off)) {
      if (st_ == state::call) revert_call(false);
    }
    return true;
  }

  void start_response() {
    st_ = state::response;
    strip_leading_nl_ = true;
    pending_nl_ = false;
  }

  // Reads the buffered call (`closed`: its </tool_call> was seen). A body that is not a
  // call is an error in strict mode and its text in lenient mode. False when decoding
  // stopped, or (lenient) when the call became text.
  // `end`: where the call's bytes end (after its close tag, or where it was cut off).
  bool finish_call(bool closed, std::size_t end) {
    std::string_view body(buf_);
    if (body.starts_with('\n')) body.remove_prefix(1);
    if (body.ends_with('\n')) body.remove_suffix(1);
    tool_call tc;
    std::string why;
    std::string repaired;
    if (!read_call_json(body,
                        {.raw_string_arguments = false,
                         .missing_arguments = "{}",
                         .repair = opt_.lenient,
                         .max_depth = opt_.limits.max_json_depth},
                        tc, why, &repaired)) {
      const std::string what = "<tool_call> is not {\"name\", \"arguments\"} JSON: " + why;
      if (!opt_.lenient) {
        em_.report_at(error_code::body_constraint_violation, severity::error, call_off_, call_pos_,
                      what);
        em_.stop(call_off_);
        return false;
      }
      if (calls_.begun(buf_)) {
        keep_begun_call(end, what);
        return true;
      }
      em_.report_at(error_code::body_constraint_violation, severity::warning, call_off_, call_pos_,
                    "recovered: " + what + " (kept as text)");
      revert_call(closed);
      return false;
    }
    if (!repaired.empty()) {
      repaired.resize(repaired.size() - 2);
      em_.report_at(error_code::body_constraint_violation, severity::warning, call_off_, call_pos_,
                    "recovered: " + repaired);
    }
    em_.call(tc, call_off_, end);
    buf_.clear();
    return true;
  }

  [[nodiscard]] const std::string& tok(std::size_t id) const {
    return (think_ ? kThinkTokens : kTokens)[id];
  }
  static bool is_blank(std::string_view s) {
    return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
  }

  void start_think() {
    st_ = state::think;
    lead_ = true;
    held_nl_ = 0;
    fresh_ = false;
  }
  // </think> at `off`.
  void end_think(std::size_t off) {
    held_nl_ = 0;  // "\n</think>": the template's, not the reasoning's
    em_.structure(off);
    st_ = state::body;
    strip_lead_ = true;
  }
  // Reasoning text: the newlines after <think> and before </think> are the template's.
  // `start`: the position of `off` when the text was held back (the stream has passed it).
  void think_text(std::string_view t, std::size_t off, const position* start = nullptr) {
    position at = start != nullptr ? *start : position{};
    const auto emit = [&](std::string_view piece, std::size_t piece_off) {
      if (start == nullptr) {
        em_.reasoning(piece, piece_off);
        return;
      }
      em_.slice_at(event_kind::reasoning, piece, piece_off,
                   detail::advance(at, t.substr(0, piece_off - off)));
    };
    if (lead_) {
      std::size_t k = 0;
      while (k < t.size() && t[k] == '\n') ++k;
      if (start != nullptr) at = detail::advance(at, t.substr(0, k));
      t.remove_prefix(k);
      off += k;
      em_.structure(off);
      if (t.empty()) return;
      lead_ = false;
    }
    std::size_t k = t.size();
    while (k > 0 && t[k - 1] == '\n') --k;
    if (k > 0) {
      static constexpr std::string_view kNewlines = "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n";
      for (std::size_t nl_at = held_off_; held_nl_ > 0;) {
        // Held newlines never hold a bad byte: no position is needed for them.
        const std::size_t n = std::min(held_nl_, kNewlines.size());
        em_.reasoning(kNewlines.substr(0, n), nl_at);
        nl_at += n;
        held_nl_ -= n;
      }
      emit(t.substr(0, k), off);
    }
    if (k < t.size()) {
      if (held_nl_ == 0) held_off_ = off + k;
      held_nl_ += t.size() - k;
    }
  }
  // Qwen3 completion: no </think> came, so the held text was the answer.
  void flush_maybe_think() {
    st_ = state::body;
    if (!buf_.empty()) {
      const std::string held = std::move(buf_);
      buf_.clear();
      body_text(held, held_off_, &held_pos_);
    }
  }

  // Where the tools block begins in a system body (npos: none), and where the system text
  // before it ends.
  [[nodiscard]] std::pair<std::size_t, std::size_t> tools_block(std::string_view body) const {
    if (tools_head_ == kToolsHead) {
      const auto head = body.find(kToolsHead);
      return {head, head};
    }
    if (body.starts_with(tools_head_)) return {0, 0};
    const std::string sep = "\n\n" + std::string(tools_head_);
    const auto at = body.find(sep);
    return at == std::string_view::npos ? std::pair{at, at} : std::pair{at + 2, at};
  }

  void flush_system(std::size_t off) {
    std::string_view body(buf_);
    const auto [head, text_end] = tools_block(body);
    const bool own_head = tools_head_ != kToolsHead;
    if (head != std::string_view::npos && body.ends_with(kToolsTail)) {
      std::string_view list = body.substr(head + tools_head_.size());
      list.remove_suffix(kToolsTail.size());
      json arr = json::array();
      bool ok = true;
      while (!list.empty()) {
        if (list.front() != '\n') {
          ok = false;
          break;
        }
        list.remove_prefix(1);
        const auto nl = list.find('\n');
        const std::string_view line = list.substr(0, nl);
        auto parsed = try_parse_json(line);
        if (!parsed) {
          ok = false;
          break;
        }
        arr.push_back(std::move(*parsed));
        list.remove_prefix(nl == std::string_view::npos ? list.size() : nl);
      }
      std::string err;
      if (ok && read_tools(arr, tools_, err)) {
        // In input order: the system text (unless the turn is only the tools block, which
        // holds no system message in Qwen3's markup), then the block.
        if (!(own_head && head == 0)) {
          if (own_head) begin(role::system, header_off_);
          em_.text_at(body.substr(0, text_end), body_off_, body_pos_);
        }
        em_.tools(tools_, body_off_ + head, body_off_ + body.size());
        buf_.clear();
        return;
      }
      em_.report_at(error_code::parse_header, em_.soft(), body_off_ + head,
                    advance(body_pos_, std::string_view(buf_).substr(0, head)),
                    "system tools block is not one JSON tool per line");
    }
    if (own_head) begin(role::system, header_off_);
    em_.text_at(body, body_off_, body_pos_);
    buf_.clear();
    (void)off;
  }

  decoder_options opt_;
  token_stream ts_;
  emitter em_;
  state st_ = state::between;
  std::string role_;
  role role_now_ = role::user;  // the role of the turn being read
  std::string buf_;
  std::vector<tool> tools_;
  std::size_t header_off_ = 0;
  std::size_t body_off_ = 0;
  std::size_t call_off_ = 0;
  std::size_t call_tag_off_ = 0;
  std::size_t call_text_off_ = 0;
  std::size_t nl_off_ = 0;
  json_extent ext_;
  call_stream calls_{em_, opt_};  // the open call's arguments, streamed
  bool call_nl_ = false;
  position call_pos_;
  position nl_pos_;
  position held_pos_;
  position call_tag_pos_;
  position call_text_pos_;
  position body_pos_;
  position header_pos_;
  bool after_call_nl_ = false;
  bool after_call_reported_ = false;
  bool pending_nl_ = false;
  bool is_system_ = false;
  bool strip_leading_nl_ = false;
  std::size_t total_ = 0;  // bytes pushed (the spans cover them all)
  // Qwen3.
  bool think_ = false;
  std::string_view tools_head_;
  bool fresh_ = false;       // nothing written yet in the assistant body
  bool lead_ = false;        // at the start of the reasoning (its newlines are skipped)
  bool strip_lead_ = false;  // after </think> (the content's leading newlines are skipped)
  std::size_t held_nl_ = 0;  // trailing newlines of the reasoning, held
  std::size_t held_off_ = 0;
};

}  // namespace

std::unique_ptr<stream_decoder> make_decoder(decoder_options o, decoder::sink s, const variant& v) {
  return std::make_unique<decoder_impl>(std::move(o), std::move(s), v);
}

}  // namespace ocml::detail::chatml
