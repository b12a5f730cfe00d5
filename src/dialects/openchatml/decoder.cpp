// SPDX-License-Identifier: Apache-2.0
// The streaming decoder of the OpenChatML 2.x family (ocml-2.2, ocml-2.0, harmony).
//
// A byte-level state machine. Each push() scans with find_token_candidate (16 bytes a
// step); text between tokens is reported as content slices straight from the input.
// Only the bytes that may begin a control token at the end of a chunk (at most 15) are
// carried to the next push, so work and memory per byte are O(1) and the events do not
// depend on the chunking. Events, diagnostics, UTF-8 checks and byte spans go through the
// shared emitter (as in every other decoder): control tokens, headers and white space
// between messages are structure, an escape's '<' is structure and the token after it text.

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "core/document_header.hpp"
#include "core/emitter.hpp"
#include "core/json_extent.hpp"
#include "core/line_tracker.hpp"
#include "core/scan.hpp"
#include "core/stream_decoder.hpp"
#include "core/utf8.hpp"
#include "dialects/openchatml/header_parser.hpp"
#include "dialects/openchatml/render_common.hpp"
#include "interchange/simd_json.hpp"
#include "ocml/decoder.hpp"

namespace ocml {

namespace {
using detail::find_token_candidate;
using detail::match_status;
using detail::match_token;
using detail::token;

enum class state : std::uint8_t {
  doc_start,     // at the beginning: YAML header, or straight to messages
  doc_fenced,    // inside a "---" fenced YAML header
  doc_unfenced,  // YAML header running up to the first <|start|>
  between,       // between messages: whitespace, then <|start|>
  header,        // after <|start|>, up to <|message|>
  body,          // after <|message|>, up to a stop token
  literal,       // inside <|literal|> ... <|endliteral|>
  failed,        // a strict error stopped decoding
};

constexpr std::size_t kCarryProbe = 32;  // bytes of a new chunk joined to the carry
}  // namespace

class openchatml_decoder final : public detail::stream_decoder {
 public:
  decoder_options opt;
  state st = state::doc_start;
  std::size_t consumed = 0;  // absolute offset of the first byte not yet consumed
  std::string carry;         // unconsumed bytes of earlier pushes (a token prefix)
  bool finishing = false;
  detail::line_tracker lines;
  detail::emitter em;

  // Current message.
  std::string header_text;
  std::size_t header_offset = 0;  // offset of the header text (after <|start|>)
  detail::position header_pos;
  std::size_t body_offset = 0;
  detail::position body_pos;
  std::string body_buf;  // kept only for <|constrain|>json checks
  bool keep_body = false;
  bool first_header = true;  // completion mode: the first header has a preset role
  // Harmony, lenient: the header began at <|channel|> (no <|start|>assistant before it).
  bool implicit_role = false;
  // Harmony, lenient: a message made of text written outside any header (the model's
  // visible text); a header token ends it without a further warning.
  bool implicit_body = false;

  // Between messages / document header.
  std::string doc;
  std::size_t doc_offset = 0;
  std::size_t doc_line_start = 0;  // where the current line of `doc` begins
  detail::position doc_pos;

  // The 2.x escapes ("<<|x|>", <|literal|>…<|endliteral|>). Harmony has none: there a '<'
  // before a control token is text, and <|literal|> is text (unless openchatml_escapes).
  bool escapes = true;

  openchatml_decoder(decoder_options o, decoder::sink s)
      : opt(std::move(o)), em(opt, std::move(s), lines) {
    escapes = opt.dialect != dialect::harmony || opt.openchatml_escapes;
    if (opt.completion) {
      st = state::header;
      begin_header(0);
    } else if (opt.dialect == dialect::harmony) {
      st = state::between;
    }
  }

  // ---- reporting -------------------------------------------------------------------

  void report_at(error_code code, severity lvl, std::size_t off, detail::position pos,
                 const std::string& text) {
    em.report_at(code, lvl, off, pos, text);
  }
  void report(error_code code, severity lvl, std::size_t off, const std::string& text) {
    em.report(code, lvl, off, text);
  }
  // An error in strict mode (decoding stops), a recovered warning in lenient mode.
  // Returns true when decoding may go on.
  bool recoverable(error_code code, std::size_t off, const std::string& text) {
    if (em.recoverable(code, off, text)) return true;
    st = state::failed;
    return false;
  }
  // Stops decoding (an open message ends unterminated; the rest of the input is skipped).
  void fail(error_code code, std::size_t off, const std::string& text) {
    em.fail(code, off, text);
    st = state::failed;
  }

  // ---- message lifecycle -----------------------------------------------------------

  void begin_header(std::size_t text_offset) {
    header_text.clear();
    header_offset = text_offset;
    header_pos = lines.at(text_offset);
  }

  detail::header_parse_options header_options() const {
    detail::header_parse_options h;
    h.dialect = opt.dialect;
    h.lenient = opt.lenient;
    if (opt.completion && first_header) h.preset_role = opt.completion_role;
    if (implicit_role) h.preset_role = "assistant";
    if (opt.completion && opt.dialect == dialect::harmony) h.completion_role = opt.completion_role;
    return h;
  }

  void report_header_issues(const detail::parsed_header& ph) {
    for (const auto& is : ph.issues) {
      // Header issues sit inside the header text, which may span pushes: place them
      // by the header's start line (exact when the header is on one line, as is usual).
      const std::size_t off = header_offset + is.offset;
      report_at(is.code, is.level, off,
                detail::advance(header_pos, std::string_view(header_text).substr(0, is.offset)),
                is.message);
    }
  }

  // <|message|> seen at absolute offset `tok_off`; the body begins at `body_off`.
  bool open_body(std::size_t tok_off, std::size_t body_off) {
    detail::parsed_header ph = detail::parse_header(header_text, header_options());
    report_header_issues(ph);
    if (ph.failed) {
      em.stop();
      st = state::failed;
      return false;
    }
    (void)tok_off;
    first_header = false;
    implicit_role = false;
    start_body(std::move(ph.msg), body_off);
    return true;
  }

  // The body of `m` begins at `body_off`: everything before it (the header) is structure.
  void start_body(message m, std::size_t body_off) {
    implicit_body = false;
    body_offset = body_off;
    body_pos = lines.at(body_off);
    body_buf.clear();
    keep_body = m.constrain == "json";
    st = state::body;
    em.structure(body_off);
    em.begin(std::move(m), header_offset);
  }

  void content(std::string_view text, std::size_t off) {
    if (text.empty()) return;
    if (keep_body) {
      if (body_buf.size() + text.size() > opt.limits.max_buffered_body_bytes) {
        // The bytes within the limit are content, at any chunking; then the error.
        const std::size_t room = opt.limits.max_buffered_body_bytes - body_buf.size();
        body_buf.append(text.substr(0, room));
        em.text(text.substr(0, room), off);
        fail(error_code::limit_exceeded, off + room,
             "constrained body exceeds max_buffered_body_bytes (" +
                 std::to_string(opt.limits.max_buffered_body_bytes) + ")");
        return;
      }
      body_buf.append(text);
    }
    em.text(text, off);
  }

  void check_constraint() {
    if (!keep_body) return;
    // (A dom::parser's constructor argument is its capacity in bytes, not a depth: bodies
    // over 1 KiB were refused. Issue 23.) Depth first, then the thread's reused parser.
    std::string why;
    if (detail::json_too_deep(body_buf, opt.limits.max_json_depth) != std::string_view::npos) {
      why = "body nests deeper than " + std::to_string(opt.limits.max_json_depth) + " levels";
    } else if (auto doc = detail::parse_nested(body_buf); doc.error() != simdjson::SUCCESS) {
      why = std::string("body is not valid JSON (") + simdjson::error_message(doc.error()) + ")";
    }
    if (!why.empty()) {
      report_at(error_code::body_constraint_violation,
                opt.lenient ? severity::warning : severity::error, body_offset, body_pos,
                opt.lenient ? "recovered: " + why + "; kept as text" : why);
    }
  }

  void end_message(end_token how, std::size_t off) {
    if (how != end_token::unterminated) check_constraint();
    st = state::between;
    em.end(how, off);
    em.allow_stray();
  }

  // ---- scanning --------------------------------------------------------------------

  // Where held-back bytes start when a token candidate at j cannot be decided yet:
  // the candidate, plus one '<' before it that may make it an escape.
  [[nodiscard]] std::size_t hold_start(const char* p, std::size_t i, std::size_t j) const {
    return (escapes && j > i && p[j - 1] == '<') ? j - 1 : j;
  }

  // A control token of this dialect at c (n bytes available): without escapes, the 2.x
  // escape tokens are text.
  [[nodiscard]] detail::token_match match(const char* c, std::size_t n) const noexcept {
    const auto m = match_token(c, n);
    if (!escapes && m.status == match_status::matched &&
        (m.tok == token::literal || m.tok == token::endliteral)) {
      return {match_status::no_match, token::none, 0};
    }
    return m;
  }

  // Processes p[i, n) (absolute offset of p[0] is base). Returns bytes consumed;
  // stops early only when the rest may be a token prefix (and not finishing).
  std::size_t run(const char* p, std::size_t n, std::size_t base) {
    lines.set_buffer(p, base, n);
    std::size_t i = 0;
    while (i < n) {
      const std::size_t next = step(p, i, n, base);
      if (next == i && st_unchanged_) break;  // waiting for more bytes
      st_unchanged_ = true;
      i = next;
    }
    (void)lines.at(base + i);  // count this buffer's newlines once, as it is consumed
    return i;
  }
  bool st_unchanged_ = true;  // cleared by steps that switch state without consuming

  // One step of the state machine from p[i]; returns where the next step starts.
  std::size_t step(const char* p, std::size_t i, std::size_t n, std::size_t base) {
    switch (st) {
      case state::doc_start:
        return step_doc_start(p, i, n, base);
      case state::doc_fenced:
        return step_doc_fenced(p, i, n, base);
      case state::doc_unfenced:
        return step_doc_unfenced(p, i, n, base);
      case state::between:
        return step_between(p, i, n, base);
      case state::header:
        return step_header(p, i, n, base);
      case state::body:
        return step_body(p, i, n, base, false);
      case state::literal:
        return step_body(p, i, n, base, true);
      case state::failed:
        return n;
    }
    return n;
  }
  void switch_to(state s) {
    st = s;
    st_unchanged_ = false;
  }

  std::size_t step_doc_start(const char* p, std::size_t i, std::size_t n, std::size_t base) {
    std::size_t k = i;
    while (k < n && detail::is_space(p[k])) ++k;
    em.structure(base + k);  // leading white space
    if (k == n) {
      if (finishing) return n;
      return k;  // whitespace consumed; decide on the next byte
    }
    if (p[k] == '<') {
      switch_to(state::between);
      return k;
    }
    if (n - k < 3 && !finishing) return k;
    doc.clear();
    doc_line_start = 0;
    doc_offset = base + k;
    doc_pos = lines.at(doc_offset);
    if (n - k >= 3 && std::memcmp(p + k, "---", 3) == 0) {
      switch_to(state::doc_fenced);
    } else {
      switch_to(state::doc_unfenced);
    }
    return k;
  }

  bool doc_append(const char* p, std::size_t len, std::size_t off) {
    if (doc.size() + len > opt.limits.max_document_header_bytes) {
      fail(error_code::limit_exceeded, off + (opt.limits.max_document_header_bytes - doc.size()),
           "document header exceeds max_document_header_bytes (" +
               std::to_string(opt.limits.max_document_header_bytes) + ")");
      return false;
    }
    doc.append(p, len);
    return true;
  }

  // The document header `yaml`, whose bytes (fences included) end at `end`.
  void finish_doc(std::string_view yaml, std::size_t end) {
    document_header h;
    detail::yaml_error err;
    if (!detail::parse_document_header(yaml, h, err, opt.limits.max_document_header_bytes)) {
      detail::position pos = doc_pos;
      pos.line += err.line;
      if (err.line > 0) pos.column = err.column + 1;
      report_at(err.limit ? error_code::limit_exceeded : error_code::document_header, em.soft(),
                doc_offset, pos, "YAML document header: " + err.message);
      em.skipped(end, "a document header that is not valid YAML");
      return;
    }
    if (h.version.empty()) {
      report_at(error_code::document_header, em.soft(), doc_offset, doc_pos,
                "document header has no 'version'");
    }
    em.document_header(h, doc_offset, end);
  }

  // Fenced header: lines until one that is "---" or "..." (after the opening fence).
  std::size_t step_doc_fenced(const char* p, std::size_t i, std::size_t n, std::size_t base) {
    const void* nl = std::memchr(p + i, '\n', n - i);
    const std::size_t line_end =
        nl != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nl) - p) + 1 : n;
    if (!doc_append(p + i, line_end - i, base + i)) return n;
    if (nl == nullptr && !finishing) return line_end;
    std::string_view line = std::string_view(doc).substr(doc_line_start);
    while (!line.empty() && detail::is_space(line.back())) line.remove_suffix(1);
    if (doc_line_start > 0 && (line == "---" || line == "...")) {
      const std::size_t open_end = doc.find('\n') + 1;
      finish_doc(std::string_view(doc).substr(open_end, doc_line_start - open_end),
                 base + line_end);
      doc.clear();
      switch_to(state::between);
    }
    doc_line_start = doc.size();
    return line_end;
  }

  std::size_t step_doc_unfenced(const char* p, std::size_t i, std::size_t n, std::size_t base) {
    const char* c = find_token_candidate(p + i, p + n);
    const auto j = static_cast<std::size_t>(c - p);
    if (j == n) {
      if (!doc_append(p + i, n - i, base + i)) return n;
      return n;
    }
    const auto m = match(c, n - j);
    if (m.status == match_status::need_more && !finishing) {
      if (!doc_append(p + i, j - i, base + i)) return n;
      return j;
    }
    if (m.status == match_status::matched && m.tok == token::start) {
      if (!doc_append(p + i, j - i, base + i)) return n;
      finish_doc(doc, base + j);
      doc.clear();
      switch_to(state::between);
      return j;
    }
    if (!doc_append(p + i, j + 1 - i, base + i)) return n;
    return j + 1;
  }

  static constexpr std::size_t kUndecided = static_cast<std::size_t>(-1);

  // Harmony, lenient: where header residue that starts at p[k] ends: a channel or role word
  // right before <|channel|> (0: not residue; kUndecided: the bytes so far cannot tell).
  static std::size_t residue_end(const char* p, std::size_t k, std::size_t n) {
    static constexpr std::string_view kChannelToken = "<|channel|>";
    std::size_t e = k;
    while (e < n && e - k <= 16 && ((p[e] >= 'a' && p[e] <= 'z') || (p[e] >= 'A' && p[e] <= 'Z'))) {
      ++e;
    }
    if (e - k > 16 || e == k) return 0;
    if (e == n) return kUndecided;
    const std::string_view w(p + k, e - k);
    if (w != "analysis" && w != "commentary" && w != "final" && w != "assistant") return 0;
    const std::size_t avail = std::min(n - e, kChannelToken.size());
    if (std::string_view(p + e, avail) != kChannelToken.substr(0, avail)) return 0;
    return avail < kChannelToken.size() ? kUndecided : e;
  }

  [[nodiscard]] bool harmony_lenient() const noexcept {
    return opt.lenient && opt.dialect == dialect::harmony;
  }

  std::size_t step_between(const char* p, std::size_t i, std::size_t n, std::size_t base) {
    const char* c = find_token_candidate(p + i, p + n);
    const auto j = static_cast<std::size_t>(c - p);
    if (harmony_lenient()) {
      // Text outside any header is the assistant's visible text (a plain answer, a refusal,
      // filler between calls): a message of its own, never skipped.
      std::size_t k = i;
      while (k < j && detail::is_space(p[k])) ++k;
      if (k < j) {
        // A channel word typed twice ("…<|call|>commentary<|channel|>commentary to=…") is
        // header residue, not the assistant's text.
        const std::size_t residue = residue_end(p, k, n);
        if (residue == kUndecided && !finishing) {
          if (!gap(p, i, k, base)) return n;
          return k;  // wait for the bytes that decide it (at most 27)
        }
        if (residue != kUndecided && residue != 0) {
          if (!gap(p, i, k, base)) return n;
          report(error_code::stray_text, severity::warning, base + k,
                 "recovered: header residue '" + std::string(p + k, residue - k) +
                     "' before <|channel|> (skipped)");
          em.skipped(base + residue, "header residue before <|channel|>");
          return residue;
        }
        report(error_code::stray_text, severity::warning, base + k,
               "recovered: text outside any message (read as the assistant's visible text)");
        implicit_text_message(base + k);
        return k;
      }
    }
    if (!gap(p, i, j, base)) return n;
    if (j == n) return n;
    const auto m = match(c, n - j);
    if (m.status == match_status::need_more && !finishing) return j;
    if (m.status != match_status::matched) {
      if (harmony_lenient()) {
        report(error_code::stray_text, severity::warning, base + j,
               "recovered: text outside any message (read as the assistant's visible text)");
        implicit_text_message(base + j);
        return j;
      }
      if (!gap(p, j, j + 1, base)) return n;
      return j + 1;
    }
    if (m.tok == token::start) {
      begin_header(base + j + m.len);
      switch_to(state::header);
      return j + m.len;
    }
    if (m.tok == token::channel && harmony_lenient()) {
      implicit_header(p, j, m.len, base);
      return j + m.len;
    }
    if (!recoverable(error_code::unexpected_token, base + j,
                     "stray " + std::string(detail::token_text(m.tok)) + " outside a message")) {
      return n;
    }
    em.skipped(base + j + m.len, "a control token outside any message");
    return j + m.len;
  }

  // Harmony, lenient: <|channel|> at p[j] where a header should have begun with
  // <|start|>assistant (vLLM and SGLang see this as "unexpected token 200005 while expecting
  // start token 200006"): an assistant header that begins at the token.
  void implicit_header(const char* p, std::size_t j, std::size_t len, std::size_t base) {
    report(error_code::unexpected_token, severity::warning, base + j,
           "recovered: <|channel|> without <|start|>assistant (read as an assistant header)");
    begin_header(base + j);
    header_text.assign(p + j, len);
    implicit_role = true;
    switch_to(state::header);
  }

  // Harmony, lenient: an assistant message without a header whose body starts at `off`.
  void implicit_text_message(std::size_t off) {
    message m;
    m.role = role::assistant;
    first_header = false;
    header_offset = off;
    start_body(std::move(m), off);
    implicit_body = true;
    st_unchanged_ = false;
  }

  // Harmony, lenient completion: the first header holds text that no header begins with
  // (only white space, `to=…`, <|channel|> and the role itself start one): the output has
  // no header and the text is the answer. True when the header was turned into a body.
  bool header_is_text() {
    if (!(harmony_lenient() && opt.completion && first_header)) return false;
    const std::string_view t = header_text;
    std::size_t k = 0;
    while (k < t.size() && detail::is_space(t[k])) ++k;
    const auto starts = [](std::string_view r, std::string_view word) {
      return r.size() <= word.size() ? word.starts_with(r) : r.starts_with(word);
    };
    const auto header_like = [&](std::string_view r) {
      return r.empty() || r.front() == '<' || starts(r, "to=");
    };
    const std::string_view rest = t.substr(k);
    const std::string_view role_word = opt.completion_role;
    bool like = header_like(rest);
    if (!like && starts(rest, role_word)) {  // the role repeated: "assistant to=…"
      std::string_view after = rest.substr(std::min(rest.size(), role_word.size()));
      like = after.empty();
      if (!like && (detail::is_space(after.front()) || after.front() == '<')) {
        while (!after.empty() && detail::is_space(after.front())) after.remove_prefix(1);
        like = header_like(after);
      }
    }
    if (like) return false;
    report(error_code::parse_header, severity::warning, header_offset + k,
           "recovered: output without a header (read as the assistant's visible text)");
    const std::string body(rest);
    const std::size_t at = header_offset + k;  // implicit_text_message moves header_offset
    implicit_text_message(at);
    content(body, at);
    return true;
  }

  // Text between messages must be white space (structure); other text is reported once per
  // gap and skipped. Returns false when decoding stopped.
  bool gap(const char* p, std::size_t i, std::size_t j, std::size_t base) {
    if (j > i) {
      em.between_turns(std::string_view(p + i, j - i), base + i,
                       "text outside any message (skipped up to the next <|start|>)");
    }
    if (!em.failed()) return true;
    st = state::failed;
    return false;
  }

  bool header_append(const char* p, std::size_t len, std::size_t off) {
    if (header_text.size() + len > opt.limits.max_header_bytes) {
      fail(error_code::limit_exceeded, off + (opt.limits.max_header_bytes - header_text.size()),
           "message header exceeds max_header_bytes (" +
               std::to_string(opt.limits.max_header_bytes) + ")");
      return false;
    }
    header_text.append(p, len);
    return true;
  }

  std::size_t step_header(const char* p, std::size_t i, std::size_t n, std::size_t base) {
    const char* c = find_token_candidate(p + i, p + n);
    const auto j = static_cast<std::size_t>(c - p);
    // A '<' right before the candidate may make it an escape ("<<|end|>") once the header
    // turns out to be text: the body scan resumes at that '<'.
    const std::size_t lt = escapes && j > i && j < n && p[j - 1] == '<' ? j - 1 : j;
    // The bytes that fit first: whether a completion's first header is text is decided on
    // its first bytes, so whole and chunked input agree before the size limit is checked.
    const std::size_t room =
        opt.limits.max_header_bytes - std::min(opt.limits.max_header_bytes, header_text.size());
    const std::size_t head = std::min(lt - i, room);
    header_text.append(p + i, head);
    if (head > 0 && header_is_text()) return i + head;
    if (!header_append(p + i + head, lt - i - head, base + i + head)) return n;
    if (lt < j && !header_append(p + lt, j - lt, base + lt)) return n;
    if (j == n) return n;
    const auto m = match(c, n - j);
    if (m.status == match_status::need_more && !finishing) return j;
    if (m.status != match_status::matched) {
      if (!header_append(p + j, 1, base + j)) return n;
      return j + 1;
    }
    const std::size_t after = j + m.len;
    switch (m.tok) {
      case token::message:
        if (!open_body(base + j, base + after)) return n;
        st_unchanged_ = false;
        return after;
      case token::channel:
      case token::constrain:
        if (!header_append(p + j, m.len, base + j)) return n;
        return after;
      case token::start:
        // Doubled <|start|>: the first header is abandoned.
        if (!recoverable(
                error_code::parse_header, base + j,
                "<|start|> inside a header (earlier header '" + header_text + "' dropped)")) {
          return n;
        }
        first_header = false;
        em.skipped(base + j, "a header abandoned at a second <|start|>");
        begin_header(base + after);
        return after;
      case token::end:
      case token::return_:
      case token::call:
        return headless_message(m.tok, base + j) ? after : n;
      default:
        if (!recoverable(error_code::unexpected_token, base + j,
                         std::string(detail::token_text(m.tok)) + " inside a header")) {
          return n;
        }
        if (!header_append(p + j, m.len, base + j)) return n;
        return after;
    }
  }

  // A stop token closed a header that never reached <|message|> (refusals seen from gpt-oss).
  bool headless_message(token tok, std::size_t off) {
    const std::string tok_name(detail::token_text(tok));
    if (!opt.lenient) {
      fail(error_code::parse_header, off, tok_name + " before <|message|> in header");
      return false;
    }
    if (std::all_of(header_text.begin(), header_text.end(),
                    [](char ch) { return detail::is_space(ch); })) {
      // Nothing before the stop token: a stray token, not an empty message.
      report(error_code::parse_header, severity::warning, off,
             "recovered: " + tok_name + " with no header before it (skipped)");
      first_header = false;
      st = state::between;
      em.skipped(off + detail::token_text(tok).size(), "a stop token with no message");
      return true;
    }
    std::string body;
    detail::parsed_header ph = detail::parse_headless_message(header_text, header_options(), &body);
    report_header_issues(ph);
    if (ph.failed) {
      em.stop();
      st = state::failed;
      return false;
    }
    report(error_code::parse_header, severity::warning, off,
           "recovered: " + tok_name + " before <|message|>; header text read as the body");
    first_header = false;
    // The body is the header text's tail, which runs up to the stop token at `off`.
    const std::size_t body_at = off - body.size();
    start_body(std::move(ph.msg), body_at);
    content(body, body_at);
    end_message(tok == token::end    ? end_token::end
                : tok == token::call ? end_token::call
                                     : end_token::return_,
                off);
    em.structure(off + detail::token_text(tok).size());
    return true;
  }

  std::size_t step_body(const char* p, std::size_t i, std::size_t n, std::size_t base,
                        bool in_literal) {
    while (i < n) {
      const char* c = find_token_candidate(p + i, p + n);
      const auto j = static_cast<std::size_t>(c - p);
      if (j == n) {
        content(std::string_view(p + i, n - i), base + i);
        return n;
      }
      const auto m = match(c, n - j);
      if (m.status == match_status::need_more && !finishing) {
        const std::size_t h = in_literal ? j : hold_start(p, i, j);
        content(std::string_view(p + i, h - i), base + i);
        return h;
      }
      if (m.status != match_status::matched || (in_literal && m.tok != token::endliteral)) {
        // Not a token (or any token inside a literal block): plain text through '<'.
        content(std::string_view(p + i, j + 1 - i), base + i);
        i = j + 1;
        if (st == state::failed) return n;
        continue;
      }
      const std::size_t after = j + m.len;
      if (escapes && !in_literal && j > i && p[j - 1] == '<') {
        // "<<|x|>" is the escape for the literal text "<|x|>": its '<' is structure.
        content(std::string_view(p + i, j - 1 - i), base + i);
        if (st == state::failed) return n;
        em.structure(base + j);
        content(std::string_view(p + j, m.len), base + j);
        i = after;
        continue;
      }
      content(std::string_view(p + i, j - i), base + i);
      if (st == state::failed) return n;
      return on_body_token(m.tok, p, j, m.len, base) ? after : n;
    }
    return i;
  }

  // A control token inside a body. Returns false when decoding stopped.
  bool on_body_token(token tok, const char* p, std::size_t j, std::size_t len, std::size_t base) {
    const std::size_t off = base + j;
    switch (tok) {
      case token::end:
        end_message(end_token::end, off);
        break;
      case token::return_:
        end_message(end_token::return_, off);
        break;
      case token::call:
        end_message(end_token::call, off);
        break;
      case token::literal:
        st = state::literal;
        break;
      case token::endliteral:
        if (st == state::literal) {
          st = state::body;
          break;
        }
        [[fallthrough]];
      case token::channel:
        if (harmony_lenient()) {
          // A new header where <|end|><|start|>assistant went missing.
          end_message(end_token::unterminated, off);
          implicit_header(p, j, len, base);
          return true;
        }
        [[fallthrough]];
      case token::message:
      case token::constrain:
        if (!recoverable(
                error_code::unexpected_token, off,
                std::string(detail::token_text(tok)) + " inside a message body (kept as text)")) {
          return false;
        }
        content(std::string_view(p + j, len), off);
        break;
      case token::start:
        if (implicit_body) {  // the text written outside a header ends where a header begins
          end_message(end_token::unterminated, off);
          begin_header(off + len);
          st = state::header;
          break;
        }
        if (!recoverable(error_code::unexpected_token, off,
                         "<|start|> inside a message body (message closed unterminated)")) {
          return false;
        }
        end_message(end_token::unterminated, off);
        begin_header(off + len);
        st = state::header;
        break;
      case token::none:
        break;
    }
    em.claim_token(off, off + len);  // a token not kept as text is markup
    st_unchanged_ = false;
    return true;
  }

  void push(std::string_view bytes) override {
    if (st == state::failed) {
      consumed += bytes.size();
      return;
    }
    std::size_t pos = 0;  // position in `bytes` of the first byte not yet handled
    if (!carry.empty()) {
      // Resolve the carried prefix with the first bytes of the new chunk.
      const std::size_t take = std::min(bytes.size(), kCarryProbe);
      std::string joined = carry;
      joined.append(bytes.data(), take);
      const std::size_t carry_len = carry.size();
      const std::size_t used = run(joined.data(), joined.size(), consumed);
      consumed += used;
      carry.clear();
      if (used < carry_len) {
        // Undecided within the probe (only possible for tiny chunks): keep it all.
        joined.erase(0, used);
        joined.append(bytes.data() + take, bytes.size() - take);
        const std::size_t used2 =
            take == bytes.size() ? 0 : run(joined.data(), joined.size(), consumed);
        consumed += used2;
        carry = joined.substr(used2);
        return;
      }
      pos = used - carry_len;
    }
    const std::size_t used = run(bytes.data() + pos, bytes.size() - pos, consumed);
    consumed += used;
    carry.assign(bytes.data() + pos + used, bytes.size() - pos - used);
  }

  [[nodiscard]] bool failed() const noexcept override { return st == state::failed; }
  [[nodiscard]] std::size_t offset() const noexcept override { return consumed; }

  void finish() override {
    if (st != state::failed) finish_input();
    em.finish_spans(consumed);
  }

  void finish_input() {
    finishing = true;
    if (!carry.empty()) {
      std::string rest = std::move(carry);
      carry.clear();
      consumed += run(rest.data(), rest.size(), consumed);
    }
    const std::size_t off = consumed;
    switch (st) {
      case state::doc_fenced:
        report_at(error_code::document_header, em.soft(), doc_offset, doc_pos,
                  "document header '---' fence is never closed");
        em.skipped(off, "a document header whose fence is never closed");
        break;
      case state::doc_unfenced:
        finish_doc(doc, off);
        break;
      case state::header:
        if (opt.completion && first_header && header_text.empty()) break;  // empty completion
        report(error_code::stream_truncated, em.soft(), off, "input ended inside a message header");
        em.skipped(off, "a message header the input ended in");
        break;
      case state::body:
      case state::literal: {
        // Harmony closes a message at end of input (its parser's EOS rule); for 2.x a
        // message without a stop token is incomplete (2.2 §9).
        const bool soft = opt.lenient || opt.dialect == dialect::harmony;
        report(error_code::stream_truncated, soft ? severity::warning : severity::error, off,
               st == state::literal ? "input ended inside a <|literal|> block"
                                    : "input ended inside a message body (no stop token)");
        end_message(end_token::unterminated, off);
        break;
      }
      default:
        break;
    }
  }
};

namespace detail {
std::unique_ptr<stream_decoder> make_openchatml_decoder(decoder_options o, decoder::sink s) {
  return std::make_unique<openchatml_decoder>(std::move(o), std::move(s));
}
}  // namespace detail

}  // namespace ocml
