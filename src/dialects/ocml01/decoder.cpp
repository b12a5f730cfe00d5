// SPDX-License-Identifier: Apache-2.0
// OpenChatML 0.1 streaming decoder: chats ([BOS] messages [EOS]) and documents
// (fill-in-the-middle, multi-file). Spans: tokens and role lines are structure; a call
// covers its token and body, a document part its tokens and text; a system message is
// held to its end (its generated function list is cut off as a tools event).
#include "core/emitter.hpp"
#include "core/held_text.hpp"
#include "core/scan.hpp"
#include "dialects/ocml01/ocml01.hpp"
#include "interchange/json_util.hpp"
#include "interchange/pyjson.hpp"

namespace ocml::detail::ocml01 {

namespace {

std::vector<std::string> token_table(const decoder_options& o) {
  std::vector<std::string> t = kFixedTokens;
  t.push_back(o.bos.empty() ? std::string("\x01\x02[no-bos]") : o.bos);
  t.push_back(o.eos.empty() ? std::string("\x01\x02[no-eos]") : o.eos);
  return t;
}

enum class state : std::uint8_t {
  start,
  between,
  role_line,
  body,
  thought,
  call,
  document,
  done,
};

class decoder_impl final : public stream_decoder, public token_stream::handler {
 public:
  decoder_impl(decoder_options o, decoder::sink s)
      : opt_(std::move(o)), ts_(token_table(opt_)), em_(opt_, std::move(s), ts_) {
    if (opt_.completion) {
      role_line_ = opt_.completion_role;
      st_ = state::role_line;
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
    switch (st_) {
      case state::start:
        if (!lead_.empty()) start_document(lead_off_);
        [[fallthrough]];
      case state::document:
        if (st_ == state::document) emit_part(off);
        return;
      case state::between:
      case state::done:
        return;
      default:
        if (!opt_.completion) {
          em_.report(error_code::stream_truncated, em_.soft(), off,
                     "input ended inside a message (no <|im_end|>)");
        }
        if (st_ == state::role_line) em_.skipped(off, "a role line the input ended in");
        if (st_ == state::call) finish_call(off);
        if (role_ == role::system && st_ != state::role_line) flush_system(off);
        em_.end(end_token::unterminated, off);
    }
  }
  [[nodiscard]] bool failed() const noexcept override { return em_.failed(); }
  [[nodiscard]] std::size_t offset() const noexcept override { return ts_.consumed(); }
  [[nodiscard]] bool stopped() const noexcept override { return em_.failed(); }

  void on_text(std::string_view t, std::size_t off) override {
    switch (st_) {
      case state::start:
        if (lead_.empty()) {
          lead_off_ = off;
          lead_pos_ = em_.where(off);
        }
        lead_.append(t);
        if (t.find_first_not_of(" \t\r\n") != std::string_view::npos) start_document(lead_off_);
        return;
      case state::between:
      case state::done:
        em_.between_turns(t, off, "text outside any message");
        return;
      case state::role_line: {
        const auto nl = t.find('\n');
        const std::string_view part = t.substr(0, nl);
        if (!em_.fits(role_line_.size(), part.size(), opt_.limits.max_header_bytes, off, "header"))
          return;
        role_line_ += part;
        if (nl == std::string_view::npos) return;
        if (!open_body(off + nl + 1)) return;
        if (nl + 1 < t.size()) on_text(t.substr(nl + 1), off + nl + 1);
        return;
      }
      case state::body:
        body_text(t, off);
        return;
      case state::thought:
        em_.slice(thought_kind_, t, off);
        return;
      case state::call:
        buf_.append(t);
        return;
      case state::document:
        doc_text(t, off);
        return;
    }
  }

  void on_token(std::size_t id, std::size_t off) override {
    const std::size_t after = off + ts_.token_text(id).size();
    handle_token(id, off, after);
    // A token the handler did not cover (as text, or inside held bytes) is markup.
    if (!holding()) em_.claim_token(off, after);
  }

  // True while bytes are held back to be covered later (leading white space, a role line,
  // a call, a document part, a system message).
  [[nodiscard]] bool holding() const noexcept {
    return st_ == state::start || st_ == state::role_line || st_ == state::call ||
           st_ == state::document || (st_ == state::body && role_ == role::system);
  }

  void handle_token(std::size_t id, std::size_t off, std::size_t after) {
    switch (st_) {
      case state::start:
        // Only white space can have come before the token: it is structure.
        if (id == bos && !seen_bos_) {
          seen_bos_ = true;
          lead_.clear();
          em_.structure(after);
          return;
        }
        if (id == im_start) {
          em_.structure(off);
          st_ = state::between;
          handle_token(id, off, after);
          return;
        }
        if (id == eos && lead_.find_first_not_of(" \t\r\n") == std::string::npos) {
          em_.structure(after);
          st_ = state::done;  // "[BOS][EOS]": an empty chat
          return;
        }
        start_document(lead_.empty() ? off : lead_off_);
        handle_token(id, off, after);
        return;
      case state::between:
        if (id == im_start) {
          role_line_.clear();
          header_off_ = after;
          header_pos_ = em_.where(after);
          st_ = state::role_line;
        } else if (id == eos) {
          st_ = state::done;
        } else if (em_.recoverable(error_code::unexpected_token, off,
                                   "stray " + ts_.token_text(id) + " outside a message")) {
          em_.skipped(after, "a control token outside any message");
        }
        return;
      case state::done:
        if (em_.recoverable(error_code::unexpected_token, off, "text after " + opt_.eos)) {
          em_.skipped(after, "a control token after the end of the chat");
        }
        return;
      case state::role_line:
        em_.fail(error_code::parse_header, off, ts_.token_text(id) + " inside a message header");
        return;
      case state::body:
        body_token(id, off, after);
        return;
      case state::thought:
        if (id == thought_end_) {
          strip_nl_ = true;
          st_ = state::body;
        } else {
          unexpected(id, off);
        }
        return;
      case state::call:
        finish_call(off);
        st_ = state::body;
        body_token(id, off, after);
        return;
      case state::document:
        doc_token(id, off);
        return;
    }
  }

 private:
  bool open_body(std::size_t body_off) {
    body_off_ = body_off;
    body_pos_ = em_.where(body_off);
    em_.structure(body_off);  // <|im_start|> and the role line
    std::string_view line(role_line_);
    const auto sp = line.find(' ');
    const std::string_view role_word = line.substr(0, sp);
    message m;
    const auto r = parse_role(role_word);
    if (!r || *r == role::developer) {
      em_.report_at(error_code::parse_header, severity::error, header_off_, header_pos_,
                    "role '" + std::string(role_word) + "' is not system, tool, user or assistant");
      em_.stop();
      return false;
    }
    m.role = *r;
    if (sp != std::string_view::npos) {
      const std::string_view attr = line.substr(sp + 1);
      if (!attr.starts_with("name=") || attr.size() == 5 ||
          attr.find_first_of(" \t\r") != std::string_view::npos) {
        em_.report_at(error_code::parse_header, severity::error, header_off_ + sp + 1,
                      advance(header_pos_, line.substr(0, sp + 1)),
                      "expected 'name=X' (a name without whitespace) after the role");
        em_.stop();
        return false;
      }
      m.name = attr.substr(5);
    }
    role_ = m.role;
    held_.clear();
    strip_nl_ = false;
    output_start_ = m.role == role::tool;
    if (role_ == role::system) {
      sys_msg_ = std::move(m);
    } else {
      em_.begin(std::move(m), header_off_);
    }
    st_ = state::body;
    return true;
  }

  void body_text(std::string_view t, std::size_t off) {
    if (t.empty()) return;
    output_start_ = false;
    if (strip_nl_) {
      strip_nl_ = false;
      if (t.front() == '\n') {
        t.remove_prefix(1);
        ++off;
        if (role_ != role::system) em_.structure(off);  // the newline after a token
      }
    }
    if (role_ == role::system) {
      held_.append(t, off, em_.where(off));
      return;
    }
    em_.text(t, off);
  }

  void body_token(std::size_t id, std::size_t off, std::size_t after) {
    if (id == im_end) {
      if (role_ == role::system) flush_system(off);
      em_.end(end_token::end, off);
      st_ = state::between;
      em_.allow_stray();
      return;
    }
    if (role_ == role::system) {
      // Tokens stay verbatim in system text (function lists, instructions); thought flags
      // are flags only at its very end (where they are written), decided at <|im_end|>.
      if (id == flag_reflect || id == flag_introspect || id == flag_reason) {
        flags_.push_back({held_.size(), id});
      }
      held_.append(ts_.token_text(id), off, em_.where(off));
      return;
    }
    if (role_ == role::assistant &&
        (id == start_reflect || id == start_introspect || id == start_reason)) {
      thought_end_ = id + 1;
      thought_kind_ = id == start_reflect      ? event_kind::reflection
                      : id == start_introspect ? event_kind::introspection
                                               : event_kind::reasoning;
      st_ = state::thought;
      return;
    }
    if (role_ == role::assistant && id == function_call) {
      buf_.clear();
      call_off_ = after;
      call_pos_ = em_.where(after);
      st_ = state::call;
      return;
    }
    if (role_ == role::tool && id == function_output && output_start_) {
      output_start_ = false;
      strip_nl_ = true;
      return;
    }
    unexpected(id, off);
  }

  void unexpected(std::size_t id, std::size_t off) {
    if (em_.recoverable(error_code::unexpected_token, off,
                        ts_.token_text(id) + " out of place (kept as text)")) {
      if (st_ == state::thought) {
        em_.slice(thought_kind_, ts_.token_text(id), off);
      } else {
        body_text(ts_.token_text(id), off);
      }
    }
  }

  // The call's span covers its token and body, up to `end` (the next token or the end).
  void finish_call(std::size_t end) {
    std::string_view body(buf_);
    if (body.starts_with('\n')) body.remove_prefix(1);
    if (body.ends_with('\n')) body.remove_suffix(1);
    tool_call tc;
    std::string why;
    if (!read_call_json(body, {.max_depth = opt_.limits.max_json_depth}, tc, why)) {
      // Never a nameless call: the block is text, its token included, as written.
      em_.report_at(error_code::body_constraint_violation, em_.soft(), call_off_, call_pos_,
                    "<|function_call|> is not {\"arguments\", \"name\"} JSON: " + why +
                        (opt_.lenient ? " (kept as text)" : ""));
      const std::string& tok = ts_.token_text(function_call);
      em_.text_at(tok + buf_, call_off_ - tok.size(),
                  {call_pos_.line, call_pos_.column - tok.size()});
      return;
    }
    em_.call(tc, call_off_, end);
  }

  // System messages: tools come from every function list; a list ocml generated (one
  // JSON tool per line at the very end) is taken out of the content again (its bytes are
  // the tools event's). `end`: where the message's held bytes end.
  void flush_system(std::size_t end) {
    // Flags at the very end of the text, in order.
    std::size_t text_end = held_.size();
    std::size_t first_flag = flags_.size();
    while (first_flag > 0) {
      const flag_at& f = flags_[first_flag - 1];
      if (f.at + ts_.token_text(f.id).size() != text_end) break;
      text_end = f.at;
      --first_flag;
    }
    for (std::size_t k = first_flag; k < flags_.size(); ++k) {
      static const char* names[] = {"reflect", "introspect", "reason"};
      sys_msg_.flags.emplace_back(names[flags_[k].id - flag_reflect]);
    }
    flags_.clear();
    const std::string_view held = std::string_view(held_.str()).substr(0, text_end);
    std::vector<tool> tools = tools_in_function_lists(held);
    std::string_view content = held;
    bool cut = false;  // a function list at the end is the tools event's, not text
    if (!tools.empty()) {
      const std::string block = function_list_block(tools);
      if (content.ends_with(block)) {
        content.remove_suffix(block.size());
        cut = true;
      } else if (content == std::string_view(block).substr(1)) {
        content = {};
        cut = true;
      }
      tools_ = std::move(tools);
      if (!cut) em_.tools(tools_, body_off_);
    }
    const bool bare = sys_msg_.name.empty() && sys_msg_.flags.empty() && content.empty();
    if (!(bare && cut)) {
      em_.begin(sys_msg_, header_off_);
      held_.emit(em_, 0, content.size());
    }
    if (cut) em_.tools(tools_, body_off_, held_.offset_of(text_end));
    em_.structure(end);  // the flags after the text
    held_.clear();
  }

  // ---- documents --------------------------------------------------------------------

  void start_document(std::size_t off) {
    st_ = state::document;
    part_ = document_part{};
    part_off_ = off;
    part_pos_ = lead_.empty() ? em_.where(off) : lead_pos_;
    where_ = &part_.text;
    if (!lead_.empty()) doc_text(lead_, lead_off_);
    lead_.clear();
  }
  void doc_text(std::string_view t, std::size_t off) {
    const std::size_t have =
        part_.text.size() + part_.prefix.size() + part_.middle.size() + part_.suffix.size();
    if (!em_.fits(have, t.size(), opt_.limits.max_buffered_body_bytes, off, "document part"))
      return;
    where_->append(t);
  }
  void doc_token(std::size_t id, std::size_t off) {
    const bool fim_order_ok = (id == fim_prefix && !part_.fim) ||
                              (id == fim_middle && where_ == &part_.prefix) ||
                              (id == fim_suffix && where_ == &part_.middle);
    if (id == fim_prefix || id == fim_middle || id == fim_suffix) {
      if (!fim_order_ok) {
        if (em_.recoverable(error_code::unexpected_token, off,
                            ts_.token_text(id) + " out of order (kept as text)")) {
          doc_text(ts_.token_text(id), off);
        }
        return;
      }
      part_.fim = true;
      where_ = id == fim_prefix ? &part_.prefix : id == fim_middle ? &part_.middle : &part_.suffix;
      return;
    }
    if (id == file_sep) {
      emit_part(off);
      part_ = document_part{};
      part_off_ = off;
      part_pos_ = em_.where(off);
      where_ = &part_.text;
      return;
    }
    if (id == eos) return;
    if (em_.recoverable(error_code::unexpected_token, off,
                        ts_.token_text(id) + " inside a document (kept as text)")) {
      doc_text(ts_.token_text(id), off);
    }
  }
  // The part's span runs from the cursor to `end` (the next file separator, or the end).
  void emit_part(std::size_t end) {
    if (part_.fim && where_ != &part_.suffix) {
      em_.report_at(error_code::stream_truncated, em_.soft(), part_off_, part_pos_,
                    "fill-in-the-middle part without <|fim_middle|> and <|fim_suffix|>");
    }
    em_.part(part_, part_off_, end);
  }

  decoder_options opt_;
  token_stream ts_;
  emitter em_;
  state st_ = state::start;
  role role_ = role::user;
  message sys_msg_;
  std::string role_line_;
  std::string buf_;  // a call's body
  held_text held_;   // a system message's text
  struct flag_at {
    std::size_t at;  // where in held_
    std::size_t id;
  };
  std::vector<flag_at> flags_;  // thought flag tokens in held_
  event_kind thought_kind_ = event_kind::reasoning;
  std::string lead_;
  std::vector<tool> tools_;
  document_part part_;
  std::string* where_ = nullptr;
  std::size_t thought_end_ = 0;
  std::size_t header_off_ = 0;
  std::size_t body_off_ = 0;
  std::size_t call_off_ = 0;
  std::size_t part_off_ = 0;
  std::size_t lead_off_ = 0;
  position call_pos_;
  position part_pos_;
  position header_pos_;
  position body_pos_;
  position lead_pos_;
  bool seen_bos_ = false;
  bool strip_nl_ = false;
  bool output_start_ = false;
  std::size_t total_ = 0;  // bytes pushed (the spans cover them all)
};

}  // namespace

std::unique_ptr<stream_decoder> make_decoder(decoder_options o, decoder::sink s) {
  return std::make_unique<decoder_impl>(std::move(o), std::move(s));
}

}  // namespace ocml::detail::ocml01
