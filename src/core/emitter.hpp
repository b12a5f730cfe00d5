// SPDX-License-Identifier: Apache-2.0
// Event and diagnostic plumbing shared by every dialect decoder (the token_stream-based ones
// and the 2.x/harmony byte machine), and the byte spans of their events: text slices cover their
// own bytes; structure(), skipped(), call(), tools() cover from the end of the previous span (the
// cursor) to a given end; message markers take no bytes. A token a decoder's handler did not cover
// is structure (claim_token). Decoders that report spans must cover every byte they consume.
#pragma once

#include <string>
#include <string_view>

#include "core/scan.hpp"
#include "core/token_stream.hpp"
#include "core/utf8.hpp"
#include "ocml/decoder.hpp"

namespace ocml::detail {

class emitter {
 public:
  emitter(const decoder_options& o, decoder::sink s, line_tracker& lines)
      : opt_(o), out_(std::move(s)), lines_(lines) {}
  emitter(const decoder_options& o, decoder::sink s, token_stream& ts)
      : emitter(o, std::move(s), ts.lines()) {}

  [[nodiscard]] bool failed() const noexcept { return failed_; }
  [[nodiscard]] bool open() const noexcept { return open_; }
  [[nodiscard]] message& current() noexcept { return msg_; }
  [[nodiscard]] const decoder_options& options() const noexcept { return opt_; }
  /// The position of `off`, which must not lie before bytes already counted.
  [[nodiscard]] position where(std::size_t off) noexcept { return lines_.at(off); }

  void begin(message m, std::size_t off) {
    msg_ = std::move(m);
    open_ = true;
    utf8_.reset();
    utf8_reported_ = false;
    event e;
    e.kind = event_kind::message_begin;
    e.offset = off;
    e.message = &msg_;
    e.span = {cursor_, cursor_};
    emit(e);
  }
  /// Markup from the cursor up to `end` (nothing when the cursor is there already).
  void structure(std::size_t end) { cover(event_kind::structure, end, {}); }
  /// Bytes from the cursor up to `end` dropped, for the reason `why`.
  void skipped(std::size_t end, std::string_view why) { cover(event_kind::skipped, end, why); }
  /// A control token [off, end) that the handler of the token left uncovered is structure.
  void claim_token(std::size_t off, std::size_t end) {
    if (cursor_ == off && !failed_) structure(end);
  }
  /// After a strict error, or at the end: what is left of the input up to `end` is skipped.
  void finish_spans(std::size_t end) {
    if (failed_) skipped(end, "decoding stopped at an error");
  }
  [[nodiscard]] std::size_t cursor() const noexcept { return cursor_; }
  void text(std::string_view t, std::size_t off) {
    slice_impl(event_kind::content, t, off, nullptr);
  }
  /// Text that was held back: `start` is the position of `off`, which the stream has passed.
  void text_at(std::string_view t, std::size_t off, const position& start) {
    slice_impl(event_kind::content, t, off, &start);
  }
  void reasoning(std::string_view t, std::size_t off) {
    slice_impl(event_kind::reasoning, t, off, nullptr);
  }
  /// A text slice of any text-carrying kind (content, reasoning, reflection, introspection).
  void slice(event_kind k, std::string_view t, std::size_t off) { slice_impl(k, t, off, nullptr); }
  /// A slice that was held back: `start` is the position of `off`.
  void slice_at(event_kind k, std::string_view t, std::size_t off, const position& start) {
    slice_impl(k, t, off, &start);
  }
  /// A whole call; its span runs from the cursor to `end` (its tags and separator too).
  void call(const tool_call& c, std::size_t off, std::size_t end = kNoEnd) {
    event e;
    e.kind = event_kind::tool_call;
    e.offset = off;
    e.call = &c;
    e.span = {cursor_, end == kNoEnd ? cursor_ : end};
    emit(e);
  }
  /// A call begun (`c` without arguments), or the next part of its arguments (`text`),
  /// before the call is complete: no bytes, the call's tool_call event covers them.
  void call_progress(event_kind k, const tool_call* c, std::string_view text, std::size_t off) {
    event e;
    e.kind = k;
    e.offset = off;
    e.call = c;
    e.text = text;
    e.span = {cursor_, cursor_};
    emit(e);
  }
  void part(const document_part& p, std::size_t off, std::size_t end = kNoEnd) {
    event e;
    e.kind = event_kind::document_part;
    e.offset = off;
    e.part = &p;
    e.span = {cursor_, end == kNoEnd ? cursor_ : end};
    emit(e);
  }
  /// The YAML document header; its span runs from the cursor to `end`.
  void document_header(const ocml::document_header& h, std::size_t off, std::size_t end) {
    event e;
    e.kind = event_kind::document_header;
    e.offset = off;
    e.header = &h;
    e.span = {cursor_, end};
    emit(e);
  }
  void tools(const std::vector<tool>& t, std::size_t off, std::size_t end = kNoEnd) {
    event e;
    e.kind = event_kind::tools;
    e.offset = off;
    e.tools = &t;
    e.span = {cursor_, end == kNoEnd ? cursor_ : end};
    emit(e);
  }
  void end(end_token how, std::size_t off) {
    if (!open_) return;
    if (utf8_.incomplete() && !utf8_reported_) {
      report_at(error_code::invalid_utf8, soft(), utf8_.pending_at(), pending_pos_,
                "message ends inside a UTF-8 sequence");
    }
    open_ = false;
    event e;
    e.kind = event_kind::message_end;
    e.offset = off;
    e.end = how;
    e.message = &msg_;
    e.span = {cursor_, cursor_};
    emit(e);
  }
  void report(error_code code, severity lvl, std::size_t off, const std::string& text) {
    report_at(code, lvl, off, lines_.at(off), text);
  }
  /// For offsets before the stream's current position: the caller knows the position.
  void report_at(error_code code, severity lvl, std::size_t off, position p,
                 const std::string& text) {
    diagnostic d{code, lvl, off, p.line, p.column, text};
    event e;
    e.kind = event_kind::diagnostic;
    e.offset = off;
    e.diag = &d;
    emit(e);
  }
  /// Warning (recovered) in lenient mode; error that stops decoding in strict mode.
  bool recoverable(error_code code, std::size_t off, const std::string& text) {
    if (opt_.lenient) {
      report(code, severity::warning, off, "recovered: " + text);
      return true;
    }
    fail(code, off, text);
    return false;
  }
  void fail(error_code code, std::size_t off, const std::string& text) {
    report(code, severity::error, off, text);
    stop(off);
  }
  /// Stops decoding after an error already reported (closing an open message).
  void stop(std::size_t off = 0) {
    if (open_) end(end_token::unterminated, off);
    failed_ = true;
  }
  /// Checks that `have + add` bytes fit in `limit`; otherwise fails with E-LIMIT-EXCEEDED at
  /// the first byte past the limit (`off` is where the added bytes start), so the offset
  /// does not depend on how the input was chunked.
  bool fits(std::size_t have, std::size_t add, std::size_t limit, std::size_t off,
            const char* what) {
    if (have + add <= limit) return true;
    fail(error_code::limit_exceeded, off + (limit > have ? limit - have : 0),
         std::string(what) + " exceeds its limit of " + std::to_string(limit) + " bytes");
    return false;
  }

  /// Reports the first non-space byte of `t` (text outside any message, at `off`) as
  /// E-PARSE-STRAY-TEXT with `what`, once until allow_stray() (one report per gap between
  /// messages, however the gap was chunked).
  void stray(std::string_view t, std::size_t off, const char* what,
             bool (*space)(char) = is_space) {
    if (stray_reported_) return;
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (space(t[k])) continue;
      stray_reported_ = true;
      (void)recoverable(error_code::stray_text, off + k, what);
      return;
    }
  }
  /// Text outside any message: runs of white space (`space`) are structure, other runs are
  /// reported as stray (once per gap, E-PARSE-STRAY-TEXT) and skipped in lenient mode. The
  /// same at any chunking.
  void between_turns(std::string_view t, std::size_t off, const char* what,
                     bool (*space)(char) = is_space) {
    std::size_t k = 0;
    while (k < t.size()) {
      const bool blank = space(t[k]);
      std::size_t e = k;
      while (e < t.size() && space(t[e]) == blank) ++e;
      if (blank) {
        structure(off + e);
      } else {
        stray(t.substr(k, e - k), off + k, what, space);
        if (failed_) return;
        skipped(off + e, what);
      }
      k = e;
    }
  }
  /// A message was closed: text after it may be reported as stray again.
  void allow_stray() noexcept { stray_reported_ = false; }

  /// Severity of problems that leave the framing intact.
  [[nodiscard]] severity soft() const noexcept {
    return opt_.lenient ? severity::warning : severity::error;
  }

 private:
  void slice_impl(event_kind k, std::string_view t, std::size_t off, const position* start) {
    if (t.empty()) return;
    if (!utf8_reported_) {
      const std::size_t bad = utf8_.feed(t, off);
      const auto pos_of = [&](std::size_t at) {
        return start != nullptr ? advance(*start, t.substr(0, at - off)) : lines_.at(at);
      };
      if (bad != utf8_stream::npos) {
        utf8_reported_ = true;
        // A sequence begun in an earlier slice: its position was taken back then.
        const position p = bad >= off ? pos_of(bad) : pending_pos_;
        report_at(error_code::invalid_utf8, soft(), bad, p,
                  "invalid UTF-8 (bytes kept as they are)");
      } else if (utf8_.incomplete() && utf8_.pending_at() >= off) {
        pending_pos_ = pos_of(utf8_.pending_at());
      }
    }
    event e;
    e.kind = k;
    e.offset = off;
    e.text = t;
    e.span = {off, off + t.size()};
    emit(e);
  }
  void cover(event_kind k, std::size_t end, std::string_view why) {
    if (end <= cursor_) return;
    event e;
    e.kind = k;
    e.offset = cursor_;
    e.text = why;
    e.span = {cursor_, end};
    emit(e);
  }
  void emit(const event& e) {
    if (e.kind != event_kind::diagnostic && e.span.end > cursor_) cursor_ = e.span.end;
    if (out_) out_(e);
  }
  static constexpr std::size_t kNoEnd = static_cast<std::size_t>(-1);
  std::size_t cursor_ = 0;  // end of the last span

  const decoder_options& opt_;
  decoder::sink out_;
  line_tracker& lines_;
  message msg_;
  bool open_ = false;
  bool failed_ = false;
  utf8_stream utf8_;
  bool utf8_reported_ = false;
  bool stray_reported_ = false;
  position pending_pos_;  // where utf8_'s unfinished sequence begins
};

}  // namespace ocml::detail
