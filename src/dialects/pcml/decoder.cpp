// SPDX-License-Identifier: Apache-2.0
// PCML streaming decoder. Text inside <call> is held back and the whole call is emitted
// when </call> closes it (PCML technical memo §5.1), its arguments streamed before that
// (call_stream); a system container is held to its end
// (a container holding only <tools> is no message). Spans: tags, metadata and the newline
// after </think> are structure, a call and a tools block cover their tags.
#include <string>

#include "core/emitter.hpp"
#include "core/held_text.hpp"
#include "core/scan.hpp"
#include "dialects/call_stream.hpp"
#include "dialects/pcml/pcml.hpp"
#include "interchange/json_util.hpp"
#include "interchange/pyjson.hpp"

namespace ocml::detail::pcml {

namespace {

enum class state : std::uint8_t { between, meta, body, think, call, tools, ended };

std::vector<std::pair<std::string, std::string>> parse_meta(std::string_view m) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t i = 0;
  while (i < m.size()) {
    while (i < m.size() && is_space(m[i])) ++i;
    if (i >= m.size()) break;
    const auto eq = m.find('=', i);
    std::string key(m.substr(i, eq - i));
    std::string value;
    i = eq + 2;  // past ="
    while (i < m.size() && m[i] != '"') {
      if (m[i] == '\\' && i + 1 < m.size()) ++i;
      value.push_back(m[i++]);
    }
    ++i;  // closing quote
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

class decoder_impl final : public stream_decoder, public token_stream::handler {
 public:
  decoder_impl(decoder_options o, decoder::sink s)
      : opt_(std::move(o)), ts_(kTokens), em_(opt_, std::move(s), ts_) {
    if (opt_.completion) open_container(ast_open, 0);
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
    if (st_ == state::meta) resolve_meta(false, off);
    if (st_ == state::ended && opt_.completion) {  // "<end>" and no [/AST]: a finished turn
      em_.end(end_token::end, off);
      return;
    }
    em_.report(error_code::stream_truncated,
               opt_.lenient || opt_.completion ? severity::warning : severity::error, off,
               "input ended inside " + kTokens[open_tag_]);
    if (st_ == state::call && (opt_.lenient || opt_.completion) && calls_.begun(buf_)) {
      keep_begun_call(off, "input ended inside <call>");  // streamed already: a call
    } else if (st_ == state::call) {  // a call cut short is text, its tag and separator included
      const std::string& open = kTokens[call_open];
      if (call_nl_) em_.text("\n", nl_off_);
      em_.text_at(open + buf_, call_off_ - open.size(),
                  {call_pos_.line, call_pos_.column - open.size()});
    }
    if (role_ == role::system) flush_system();
    if (st_ == state::tools) em_.skipped(off, "an unclosed <tools> block");
    flush_nl();
    em_.end(st_ == state::ended ? end_token::end : end_token::unterminated, off);
  }
  [[nodiscard]] bool failed() const noexcept override { return em_.failed(); }
  [[nodiscard]] std::size_t offset() const noexcept override { return ts_.consumed(); }
  [[nodiscard]] bool stopped() const noexcept override { return em_.failed(); }

  void on_text(std::string_view t, std::size_t off) override {
    switch (st_) {
      case state::between:
      case state::ended:
        whitespace_only(t, off);
        return;
      case state::meta: {
        // Text that cannot be metadata is content (of any length); only what still reads
        // as metadata is held, up to max_header_bytes. Longer "metadata" is content too:
        // the decision falls on the same byte whatever the chunking.
        const std::size_t room = meta_room();
        const std::string_view head = t.substr(0, room);
        meta_buf_.append(head);
        if (meta_.feed(head) == meta_scanner::status::invalid || t.size() > room) {
          resolve_meta(false, off);
          if (t.size() > head.size()) on_text(t.substr(head.size()), off + head.size());
        }
        return;
      }
      case state::body:
        body_text(t, off, false);
        return;
      case state::think:
        body_text(t, off, true);
        return;
      case state::call:
      case state::tools:
        if (!em_.fits(buf_.size(), t.size(), opt_.limits.max_buffered_body_bytes, off, "block"))
          return;
        buf_.append(t);
        if (st_ == state::call && opt_.stream_arguments) calls_.scan(buf_);
        return;
    }
  }

  void on_token(std::size_t id, std::size_t off) override {
    const std::size_t after = off + kTokens[id].size();
    handle_token(id, off, after);
    // A token the handler did not cover (as text, or inside held text) is markup.
    if (!holding()) em_.claim_token(off, after);
  }

  // Bytes of metadata that may still be held (max_header_bytes).
  [[nodiscard]] std::size_t meta_room() const noexcept {
    const std::size_t limit = opt_.limits.max_header_bytes;
    return limit > meta_buf_.size() ? limit - meta_buf_.size() : 0;
  }
  static bool is_open_tag(std::size_t id) noexcept {
    return id == sys_open || id == usr_open || id == ast_open || id == obs_open;
  }

  // True while bytes are held back to be covered later (metadata, a call, a tools block,
  // a system container).
  [[nodiscard]] bool holding() const noexcept {
    return st_ == state::meta || st_ == state::call || st_ == state::tools ||
           (st_ == state::body && role_ == role::system);
  }

  void handle_token(std::size_t id, std::size_t off, std::size_t after) {
    switch (st_) {
      case state::between:
        if (id == sys_open || id == usr_open || id == ast_open || id == obs_open) {
          open_container(id, after);
        } else if (em_.recoverable(error_code::unexpected_token, off,
                                   "stray " + kTokens[id] + " outside a container")) {
          em_.skipped(after, "a tag outside any container");
        }
        return;
      case state::meta:
        // Tags inside a quoted value are text, except the container's own closing tag and
        // any opening tag (a value left open cannot swallow the messages after it).
        if (meta_.in_value() && id != open_tag_ + 1 && !is_open_tag(id) &&
            kTokens[id].size() <= meta_room()) {
          meta_buf_ += kTokens[id];
          (void)meta_.feed(kTokens[id]);
          return;
        }
        if (id == sep && meta_.complete()) {
          resolve_meta(true, after);
          return;
        }
        resolve_meta(false, off);
        handle_token(id, off, after);
        return;
      case state::body:
        body_token(id, off, after);
        return;
      case state::think:
        if (id == think_close) {
          st_ = state::body;
          strip_nl_ = true;
        } else {
          unexpected(id, off);
        }
        return;
      case state::call:
        if (id == call_close) {
          finish_call(after);
          st_ = state::body;
        } else {
          unexpected(id, off);
        }
        return;
      case state::tools:
        if (id == tools_close) {
          finish_tools(after);
          st_ = state::body;
        } else {
          unexpected(id, off);
        }
        return;
      case state::ended:
        if (id == ast_close) {
          close(off);
        } else if (em_.recoverable(error_code::unexpected_token, off,
                                   kTokens[id] + " after <end> (turn closed)")) {
          close(off);
          handle_token(id, off, after);
        }
        return;
    }
  }

 private:
  void open_container(std::size_t id, std::size_t after) {
    open_tag_ = id;
    role_ = id == sys_open   ? role::system
            : id == usr_open ? role::user
            : id == ast_open ? role::assistant
                             : role::tool;
    header_off_ = after;
    header_pos_ = em_.where(after);
    meta_buf_.clear();
    meta_.reset();
    buf_.clear();
    held_.clear();
    blocks_.clear();
    pending_nl_ = false;
    strip_nl_ = false;
    st_ = state::meta;
  }

  // Ends the metadata question: `has_meta` when [SEP] closed it, else the buffered text
  // was content all along.
  void resolve_meta(bool has_meta, std::size_t off) {
    message m;
    m.role = role_;
    std::string replay;
    if (has_meta) {
      for (auto& [k, v] : parse_meta(meta_buf_)) {
        if (k == "name" && m.name.empty()) {
          m.name = v;
        } else if (k == "id" && m.call_id.empty()) {
          m.call_id = v;
        } else {
          m.extra.emplace_back(k, v);
        }
      }
    } else {
      replay = std::move(meta_buf_);
    }
    em_.structure(has_meta ? off : header_off_);  // the tag, and metadata with its [SEP]
    meta_buf_.clear();
    st_ = state::body;
    if (role_ == role::system) {
      sys_msg_ = std::move(m);  // begun at [/SYS]: a [SYS] holding only <tools> is no message
    } else {
      em_.begin(std::move(m), header_off_);
    }
    if (!replay.empty()) body_text(replay, header_off_, false, &header_pos_);
  }

  void whitespace_only(std::string_view t, std::size_t off) {
    em_.between_turns(t, off,
                      st_ == state::ended ? "text after <end>" : "text outside any container");
  }

  void body_text(std::string_view t, std::size_t off, bool reasoning,
                 const position* start = nullptr) {
    if (t.empty()) return;
    if (role_ == role::system && !reasoning) {
      held_.append(t, off, start != nullptr ? *start : em_.where(off));
      return;
    }
    if (strip_nl_ && !reasoning) {
      strip_nl_ = false;
      if (t.front() == '\n') {
        t.remove_prefix(1);
        ++off;
        em_.structure(off);  // the newline after </think>
        if (t.empty()) return;
      }
    }
    if (reasoning) {
      em_.reasoning(t, off);
      return;
    }
    if (role_ != role::assistant) {
      if (start != nullptr) {
        em_.text_at(t, off, *start);
      } else {
        em_.text(t, off);
      }
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
    const bool ast = role_ == role::assistant;
    if (id == open_tag_ + 1) {  // the matching closing tag
      if (ast && !em_.recoverable(error_code::unexpected_token, off, "[/AST] without <end>")) {
        return;
      }
      if (role_ == role::system) flush_system();
      flush_nl();
      close(off);
    } else if (ast && id == think_open) {
      flush_nl();
      st_ = state::think;
    } else if (ast && id == call_open) {
      call_nl_ = pending_nl_;  // the separator before a call (text if the call is not one)
      pending_nl_ = false;
      strip_nl_ = false;
      buf_.clear();
      call_off_ = after;
      call_pos_ = em_.where(after);
      st_ = state::call;
      calls_.start(call_off_, call_pos_);
    } else if (ast && id == end_tag) {
      flush_nl();
      end_off_ = off;
      st_ = state::ended;
    } else if (role_ == role::system && id == tools_open) {
      buf_.clear();
      tools_off_ = after;
      tools_pos_ = em_.where(after);
      st_ = state::tools;
    } else {
      unexpected(id, off);
    }
  }

  void unexpected(std::size_t id, std::size_t off) {
    if (!em_.recoverable(error_code::unexpected_token, off,
                         kTokens[id] + " out of place (kept as text)")) {
      return;
    }
    if (st_ == state::call || st_ == state::tools) {
      buf_ += kTokens[id];
      if (st_ == state::call && opt_.stream_arguments) calls_.scan(buf_);
    } else {
      body_text(kTokens[id], off, st_ == state::think);
    }
  }

  void close(std::size_t off) {
    em_.end(end_token::end, st_ == state::ended ? end_off_ : off);
    st_ = state::between;
    em_.allow_stray();
  }

  // The call's span covers its tags: from the cursor (at <call>) to `end`, after </call>.
  void finish_call(std::size_t end) {
    tool_call tc;
    std::string why;
    if (!read_call_json(buf_, {.read_id = true, .max_depth = opt_.limits.max_json_depth}, tc,
                        why)) {
      if (opt_.lenient && calls_.begun(buf_)) {
        keep_begun_call(end, "<call> is not {\"id\", \"name\", \"arguments\"} JSON: " + why);
        return;
      }
      // Never a nameless call: the block is text, tags included, as written.
      em_.report_at(error_code::body_constraint_violation, em_.soft(), call_off_, call_pos_,
                    "<call> is not {\"id\", \"name\", \"arguments\"} JSON: " + why +
                        (opt_.lenient ? " (kept as text)" : ""));
      const std::string& open = kTokens[call_open];
      if (call_nl_) em_.text("\n", nl_off_);
      em_.text_at(open + buf_ + kTokens[call_close], call_off_ - open.size(),
                  {call_pos_.line, call_pos_.column - open.size()});
      buf_.clear();
      return;
    }
    em_.call(tc, call_off_, end);
    buf_.clear();
  }

  // A call the stream began whose JSON then broke, or was cut off: it stays that call, as
  // a stream cannot take back what it sent (docs/decisions.md 94).
  void keep_begun_call(std::size_t end, const std::string& why) {
    calls_.emit_kept(buf_, end, why);
    buf_.clear();
  }

  // A <tools> block of a system container, ending at `end` (after </tools>): read now,
  // emitted in input order when the container ends.
  void finish_tools(std::size_t end) {
    std::string err;
    block b;
    if (auto parsed = try_parse_json(buf_)) {
      json arr = std::move(*parsed);
      if (read_tools(arr, b.tools, err)) {
        for (auto& t : b.tools) t.source = nullptr;  // PCML writes name/description/parameters
        b.ok = true;
      }
    } else {
      err = "not JSON";
    }
    if (!err.empty()) {
      em_.report_at(error_code::body_constraint_violation, em_.soft(), tools_off_, tools_pos_,
                    "<tools> " + err);
    }
    if (!held_.empty() && held_.str().back() == '\n') held_.pop_back();  // its separator
    b.at = held_.size();
    b.off = tools_off_;
    b.end = end;
    blocks_.push_back(std::move(b));
    buf_.clear();
  }

  // The system container ended: its message (unless it held only tools), its text and its
  // tools blocks, in input order.
  void flush_system() {
    const bool bare = sys_msg_.name.empty() && sys_msg_.call_id.empty() && sys_msg_.extra.empty();
    if (!(held_.empty() && !blocks_.empty() && bare)) em_.begin(sys_msg_, header_off_);
    std::size_t from = 0;
    for (const block& b : blocks_) {
      held_.emit(em_, from, b.at);
      from = b.at;
      if (b.ok) {
        tools_ = b.tools;
        em_.tools(tools_, b.off, b.end);
      } else {
        em_.skipped(b.end, "a <tools> block that is not a JSON tool list");
      }
    }
    held_.emit(em_, from, held_.size());
    held_.clear();
    blocks_.clear();
  }

  decoder_options opt_;
  token_stream ts_;
  emitter em_;
  meta_scanner meta_;
  state st_ = state::between;
  role role_ = role::user;
  std::size_t open_tag_ = 0;
  std::string meta_buf_;
  std::string buf_;
  held_text held_;  // a system container's text
  struct block {
    std::size_t at = 0;   // where in held_ it stood
    std::size_t off = 0;  // input offset after its <tools>
    std::size_t end = 0;  // input offset after its </tools>
    bool ok = false;
    std::vector<tool> tools;
  };
  std::vector<block> blocks_;
  std::vector<tool> tools_;
  std::size_t total_ = 0;  // bytes pushed (the spans cover them all)
  message sys_msg_;
  std::size_t header_off_ = 0;
  std::size_t call_off_ = 0;
  std::size_t tools_off_ = 0;
  std::size_t end_off_ = 0;
  std::size_t nl_off_ = 0;
  position call_pos_;
  position tools_pos_;
  position header_pos_;
  bool pending_nl_ = false;
  bool strip_nl_ = false;
  bool call_nl_ = false;
  call_stream calls_{em_, opt_, {.read_id = true}};  // the open call's arguments, streamed
};

}  // namespace

std::unique_ptr<stream_decoder> make_decoder(decoder_options o, decoder::sink s) {
  return std::make_unique<decoder_impl>(std::move(o), std::move(s));
}

}  // namespace ocml::detail::pcml
