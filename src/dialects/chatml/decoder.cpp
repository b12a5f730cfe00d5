// ChatML streaming decoder (Qwen2.5 + Hermes tool calls).
#include <string>

#include "core/emitter.hpp"
#include "core/scan.hpp"
#include "dialects/chatml/chatml.hpp"
#include "interchange/json_util.hpp"
#include "interchange/pyjson.hpp"

namespace ocml::detail::chatml {

namespace {

enum class state : std::uint8_t {
  between,     // outside messages
  role_line,   // after <|im_start|>, up to the newline
  user_start,  // first bytes of a user body: text, or <tool_response> blocks
  body,        // message text
  call,        // inside <tool_call>
  after_call,  // between </tool_call> and the next <tool_call> or <|im_end|>
  response,    // inside <tool_response>
  after_resp,  // between </tool_response> and the next block or <|im_end|>
};

class decoder_impl final : public stream_decoder, public token_stream::handler {
 public:
  decoder_impl(decoder_options o, decoder::sink s)
      : opt_(std::move(o)), ts_(kTokens), em_(opt_, std::move(s), ts_) {
    if (opt_.completion) {
      role_ = opt_.completion_role;
      open_body(0);
    }
  }

  void push(std::string_view bytes) override {
    if (!em_.failed()) ts_.push(bytes, *this);
  }
  void finish() override {
    if (em_.failed()) return;
    ts_.finish(*this);
    const std::size_t off = ts_.consumed();
    if (st_ == state::between) return;
    const bool soft = opt_.lenient || opt_.completion;
    em_.report(error_code::stream_truncated, soft ? severity::warning : severity::error, off,
               st_ == state::role_line ? "input ended inside a role line"
                                       : "input ended inside a message (no <|im_end|>)");
    if (st_ == state::call) em_.text(buf_, call_off_);
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
        return;
      case state::after_call:
        if (after_call_nl_) {  // the separator before the next <tool_call>
          after_call_nl_ = false;
          if (t.front() == '\n') {
            t.remove_prefix(1);
            ++off;
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
      case state::response:
        if (strip_leading_nl_) {
          strip_leading_nl_ = false;
          if (t.front() == '\n') {
            t.remove_prefix(1);
            ++off;
          }
        }
        body_text(t, off);
        return;
    }
  }

  void on_token(std::size_t id, std::size_t off) override {
    const std::size_t after = off + kTokens[id].size();
    switch (st_) {
      case state::between:
        if (id == im_start) {
          role_.clear();
          header_off_ = after;
          header_pos_ = em_.where(after);
          st_ = state::role_line;
        } else {
          (void)em_.recoverable(error_code::unexpected_token, off,
                                "stray " + kTokens[id] + " outside a message");
        }
        return;
      case state::role_line:
        if (id == im_end && open_body(after)) {
          if (st_ == state::user_start) begin(role::user, body_off_);
          close(off);
          return;
        }
        em_.fail(error_code::parse_header, off, kTokens[id] + " inside a role line");
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
        if (id == call_close) {
          finish_call();
          st_ = state::after_call;
          after_call_nl_ = true;
        } else {
          unexpected(id, off);
        }
        return;
      case state::after_call:
        after_call_nl_ = false;
        if (id == call_open) {
          start_call(after);
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
    }
  }

 private:
  void begin(role r, std::size_t off) {
    message m;
    m.role = r;
    em_.begin(std::move(m), off);
  }

  // Parses the role line; sets up the body. False when decoding stopped.
  bool open_body(std::size_t body_off) {
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
    if (rr == role::user) {
      st_ = state::user_start;
      return true;
    }
    begin(rr, header_off_);
    is_system_ = rr == role::system;
    buf_.clear();
    st_ = state::body;
    return true;
  }

  void whitespace_only(std::string_view t, std::size_t off) {
    em_.stray(t, off, "text outside any message");
  }

  // Text of a body. The newline the template puts before a tag is held back until we know
  // whether a tag follows. System bodies are kept whole: the tools block is cut at the end.
  void body_text(std::string_view t, std::size_t off) {
    if (t.empty()) return;
    if (is_system_) {
      if (!em_.fits(buf_.size(), t.size(), opt_.limits.max_buffered_body_bytes, off,
                    "system message"))
        return;
      buf_.append(t);
      return;
    }
    flush_nl();
    if (t.back() == '\n') {
      em_.text(t.substr(0, t.size() - 1), off);
      pending_nl_ = true;
      nl_off_ = off + t.size() - 1;
    } else {
      em_.text(t, off);
    }
  }
  void flush_nl() {
    if (pending_nl_) em_.text("\n", nl_off_);
    pending_nl_ = false;
  }

  void body_token(std::size_t id, std::size_t off, std::size_t after) {
    const role r = em_.current().role;
    if (id == im_end && st_ == state::body) {
      if (is_system_) flush_system(off);
      flush_nl();
      close(off);
    } else if (id == call_open && r == role::assistant && st_ == state::body) {
      pending_nl_ = false;  // the template's separator
      start_call(after);
    } else if (id == resp_close && st_ == state::response) {
      pending_nl_ = false;
      em_.end(end_token::end, off);
      st_ = state::after_resp;
    } else if (id != im_start && id != im_end &&
               !(r == role::tool && st_ == state::response && id == resp_open)) {
      // Tags that mean nothing in this role are text (the renderer refuses only the ones
      // that would: tool tags in assistant turns, response tags in user and tool turns).
      body_text(kTokens[id], off);
    } else {
      unexpected(id, off);
    }
  }

  void unexpected(std::size_t id, std::size_t off) {
    if (!em_.recoverable(error_code::unexpected_token, off,
                         kTokens[id] + " out of place (kept as text)")) {
      return;
    }
    if (st_ == state::call) {
      buf_ += kTokens[id];
    } else if (em_.open()) {
      flush_nl();
      em_.text(kTokens[id], off);
    }
  }

  void close(std::size_t off) {
    em_.end(end_token::end, off);
    st_ = state::between;
    em_.allow_stray();
  }

  void start_call(std::size_t after) {
    buf_.clear();
    call_off_ = after;
    call_pos_ = em_.where(after);
    st_ = state::call;
  }

  void start_response() {
    st_ = state::response;
    strip_leading_nl_ = true;
    pending_nl_ = false;
  }

  void finish_call() {
    std::string_view body(buf_);
    if (body.starts_with('\n')) body.remove_prefix(1);
    if (body.ends_with('\n')) body.remove_suffix(1);
    tool_call tc;
    std::string why;
    if (!read_call_json(body, {.raw_string_arguments = false, .missing_arguments = "{}"}, tc,
                        why)) {
      em_.report_at(error_code::body_constraint_violation, em_.soft(), call_off_, call_pos_,
                    "<tool_call> is not {\"name\", \"arguments\"} JSON: " + why);
      tc.arguments = std::string(body);
    }
    em_.call(tc, call_off_);
  }

  void flush_system(std::size_t off) {
    std::string_view body(buf_);
    const auto head = body.find(kToolsHead);
    if (head != std::string_view::npos && body.ends_with(kToolsTail)) {
      std::string_view list = body.substr(head + kToolsHead.size());
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
        em_.tools(tools_, body_off_ + head);
        body = body.substr(0, head);
      } else {
        em_.report_at(error_code::parse_header, em_.soft(), body_off_ + head,
                      advance(body_pos_, std::string_view(buf_).substr(0, head)),
                      "system tools block is not one JSON tool per line");
      }
    }
    em_.text_at(body, body_off_, body_pos_);
    buf_.clear();
    (void)off;
  }

  decoder_options opt_;
  token_stream ts_;
  emitter em_;
  state st_ = state::between;
  std::string role_;
  std::string buf_;
  std::vector<tool> tools_;
  std::size_t header_off_ = 0;
  std::size_t body_off_ = 0;
  std::size_t call_off_ = 0;
  std::size_t nl_off_ = 0;
  position call_pos_;
  position body_pos_;
  position header_pos_;
  bool after_call_nl_ = false;
  bool after_call_reported_ = false;
  bool pending_nl_ = false;
  bool is_system_ = false;
  bool strip_leading_nl_ = false;
};

}  // namespace

std::unique_ptr<stream_decoder> make_decoder(decoder_options o, decoder::sink s) {
  return std::make_unique<decoder_impl>(std::move(o), std::move(s));
}

}  // namespace ocml::detail::chatml
