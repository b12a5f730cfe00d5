// SPDX-License-Identifier: Apache-2.0
#include "dialects/openchatml/header_parser.hpp"

#include <array>
#include <utility>

#include "core/scan.hpp"

namespace ocml::detail {

namespace {

struct word {
  std::string_view text;
  std::size_t offset;
};

std::vector<word> split_words(std::string_view s, std::size_t base) {
  std::vector<word> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    const std::size_t b = i;
    while (i < s.size() && !is_space(s[i])) ++i;
    if (i > b) out.push_back({s.substr(b, i - b), base + b});
  }
  return out;
}

enum class segment_kind { start, channel, constrain };
struct segment {
  segment_kind kind;
  std::string_view text;
  std::size_t offset;  // of the segment text
  std::size_t token_offset;
};

std::vector<segment> split_segments(std::string_view text) {
  std::vector<segment> segs;
  segment cur{segment_kind::start, {}, 0, 0};
  std::size_t seg_begin = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const char* c = find_token_candidate(text.data() + i, text.data() + text.size());
    const auto j = static_cast<std::size_t>(c - text.data());
    if (j >= text.size()) break;
    const token_match m = match_token(c, text.size() - j);
    if (m.status == match_status::matched &&
        (m.tok == token::channel || m.tok == token::constrain)) {
      cur.text = text.substr(seg_begin, j - seg_begin);
      cur.offset = seg_begin;
      segs.push_back(cur);
      cur = {m.tok == token::channel ? segment_kind::channel : segment_kind::constrain, {}, 0, j};
      i = seg_begin = j + m.len;
    } else {
      i = j + 1;
    }
  }
  cur.text = text.substr(seg_begin);
  cur.offset = seg_begin;
  segs.push_back(cur);
  return segs;
}

class header_builder {
 public:
  header_builder(const header_parse_options& opt, parsed_header& out) : opt_(opt), out_(out) {}

  void issue(error_code code, std::size_t off, std::string msg, bool recoverable = true) {
    const bool warn = recoverable && opt_.lenient;
    out_.issues.push_back({code, warn ? severity::warning : severity::error, off,
                           warn ? "recovered: " + msg : std::move(msg)});
    if (!warn) out_.failed = true;
  }

  void set(std::string& field, std::string_view key, const word& w, std::string_view value) {
    if (value.empty()) {
      issue(error_code::parse_header, w.offset, "empty value for '" + std::string(key) + "='");
      return;
    }
    if (!field.empty()) {
      if (field == value) {
        issue(error_code::parse_header, w.offset, "duplicated '" + std::string(key) + "='");
      } else {
        issue(error_code::parse_header, w.offset,
              "conflicting '" + std::string(key) + "=' (kept '" + field + "')");
      }
      return;
    }
    field = value;
  }

  void attribute(const word& w, std::string_view key, std::string_view value) {
    message& m = out_.msg;
    if (key == "to") return set(m.recipient, key, w, value);
    if (key == "call_id") return set(m.call_id, key, w, value);
    if (key == "name") return set(m.name, key, w, value);
    if (key == "intent") return set(m.intent, key, w, value);
    if (key == "content_type") return set(m.content_type, key, w, value);
    for (const auto& kv : m.extra) {
      if (kv.first == key) {
        issue(error_code::parse_header, w.offset, "duplicated '" + std::string(key) + "='");
        return;
      }
    }
    m.extra.emplace_back(std::string(key), std::string(value));
  }

  // A word without '=': harmony reads it as recipient (start header) or content type
  // (after the channel); 2.x reads it that way only in lenient mode.
  void bare_word(const word& w, bool after_channel) {
    message& m = out_.msg;
    const bool harmony = opt_.dialect == dialect::harmony;
    std::string* field = nullptr;
    std::string what;
    if (harmony && !after_channel) {
      // Only `to=` names a recipient: a stray word is not a tool to call.
      issue(error_code::parse_header, w.offset,
            "bare word '" + std::string(w.text) +
                "' before <|channel|> is not a recipient (only to= names one)");
      return;
    }
    if (!after_channel && m.recipient.empty()) {
      field = &m.recipient;
      what = "bare recipient";
    } else if (m.content_type.empty()) {
      field = &m.content_type;
      what = "content type after the channel";
    }
    if (field == nullptr) {
      issue(error_code::parse_header, w.offset,
            "unexpected '" + std::string(w.text) + "' in header", harmony);
      return;
    }
    if (!harmony) {
      issue(error_code::parse_header, w.offset,
            what + " '" + std::string(w.text) + "' (2.x wants key=value)");
      if (!opt_.lenient) return;
    }
    *field = w.text;
  }

  void words(const std::vector<word>& ws, std::size_t first, bool after_channel) {
    for (std::size_t k = first; k < ws.size(); ++k) {
      const auto eq = ws[k].text.find('=');
      if (eq == std::string_view::npos || eq == 0) {
        bare_word(ws[k], after_channel);
      } else {
        attribute(ws[k], ws[k].text.substr(0, eq), ws[k].text.substr(eq + 1));
      }
    }
  }

  void role_word(const word& w) {
    if (resolve_role_word(w.text, out_.msg)) return;
    if (opt_.completion_role && repeats(w.text, *opt_.completion_role)) {
      issue(error_code::parse_header, w.offset,
            "role word '" + std::string(w.text) + "' (read as " + *opt_.completion_role + ")");
      if (auto r = parse_role(*opt_.completion_role)) out_.msg.role = *r;
      return;
    }
    // Harmony reads an unknown author (e.g. "browser.search") as a tool named so.
    out_.msg.role = role::tool;
    out_.msg.name = w.text;
    if (opt_.dialect != dialect::harmony) {
      issue(error_code::parse_header, w.offset,
            "unknown role '" + std::string(w.text) + "' (read as a tool reply)");
    }
  }

 private:
  const header_parse_options& opt_;
  parsed_header& out_;
};

}  // namespace

bool repeats(std::string_view w, std::string_view unit) {
  if (unit.empty() || w.size() < 2 * unit.size() || w.size() % unit.size() != 0) return false;
  for (std::size_t i = 0; i < w.size(); i += unit.size()) {
    if (w.substr(i, unit.size()) != unit) return false;
  }
  return true;
}

bool resolve_role_word(std::string_view w, message& msg) {
  if (auto r = parse_role(w)) {
    msg.role = *r;
    return true;
  }
  if (w.starts_with("functions.") && w.size() > 10) {
    msg.role = role::tool;
    msg.name = w;
    return true;
  }
  const auto colon = w.find(':');
  if (colon != std::string_view::npos && colon + 1 < w.size()) {
    if (auto r = parse_role(w.substr(0, colon))) {
      msg.role = *r;
      msg.name = w.substr(colon + 1);
      return true;
    }
  }
  return false;
}

parsed_header parse_header(std::string_view text, const header_parse_options& opt) {
  parsed_header out;
  header_builder b(opt, out);
  const std::vector<segment> segs = split_segments(text);
  bool saw_channel = false;
  bool saw_constrain = false;
  for (const segment& s : segs) {
    const std::vector<word> ws = split_words(s.text, s.offset);
    switch (s.kind) {
      case segment_kind::start: {
        std::size_t first = 0;
        if (opt.preset_role) {
          if (auto r = parse_role(*opt.preset_role)) out.msg.role = *r;
          // Harmony tolerates the role repeated at the start of a completion header.
          if (!ws.empty() && ws[0].text == *opt.preset_role) first = 1;
        } else if (ws.empty()) {
          // A completion holds the assistant's messages only: a role-less header is its
          // (lenient harmony; the peers read it so). Anywhere else it cannot be read.
          const bool recover = opt.completion_role && opt.lenient;
          b.issue(error_code::parse_header, s.offset,
                  recover ? "header has no role (read as " + *opt.completion_role + ")"
                          : std::string("header has no role"),
                  recover);
          if (!recover) return out;
          if (auto r = parse_role(*opt.completion_role)) out.msg.role = *r;
        } else {
          b.role_word(ws[0]);
          first = 1;
        }
        b.words(ws, first, false);
        break;
      }
      case segment_kind::channel: {
        const bool harmony = opt.dialect == dialect::harmony;
        if (saw_channel && !harmony) {
          b.issue(error_code::parse_header, s.token_offset, "second <|channel|> in header");
          break;
        }
        if (saw_channel) {
          // gpt-oss sometimes writes a stray header ("<|channel|>commentary to=assistant")
          // before the real one: the header starts again at the last <|channel|>, and what
          // came before it says nothing about this message (decisions 65).
          b.issue(error_code::parse_header, s.token_offset,
                  "second <|channel|> in header (the header starts again there; '" +
                      std::string(text.substr(0, s.token_offset)) + "' dropped)");
          out.msg.channel.clear();
          out.msg.recipient.clear();
          out.msg.content_type.clear();
          out.msg.constrain.clear();
          saw_constrain = false;
        }
        saw_channel = true;
        if (ws.empty() || ws[0].offset != s.offset) {
          // Harmony, lenient: "<|channel|><|message|>" is a message without a channel.
          b.issue(error_code::parse_header, s.token_offset, "<|channel|> without a channel name",
                  harmony);
          if (harmony && !ws.empty()) b.words(ws, 0, true);
          break;
        }
        if (opt.dialect != dialect::harmony && !known_channel(ws[0].text)) {
          b.issue(error_code::parse_header, ws[0].offset,
                  "unknown channel '" + std::string(ws[0].text) + "'");
        }
        out.msg.channel = ws[0].text;
        b.words(ws, 1, true);
        break;
      }
      case segment_kind::constrain: {
        if (saw_constrain) {
          b.issue(error_code::parse_header, s.token_offset, "second <|constrain|> in header");
          break;
        }
        saw_constrain = true;
        if (ws.empty()) {
          b.issue(error_code::parse_header, s.token_offset, "<|constrain|> without a type", false);
          break;
        }
        out.msg.constrain = ws[0].text;
        if (opt.dialect == dialect::harmony) {
          b.words(ws, 1, true);  // `<|constrain|>json to=functions.f`: either order
        } else if (ws.size() > 1) {
          b.issue(error_code::parse_header, ws[1].offset,
                  "unexpected '" + std::string(ws[1].text) + "' after <|constrain|> type");
        }
        break;
      }
    }
  }
  // Harmony's "all" recipient is a broadcast, i.e. none (its renderer omits `to=all`).
  if (opt.dialect == dialect::harmony && out.msg.recipient == "all") out.msg.recipient.clear();
  // `to=assistant` (or another role) on the assistant's own message addresses a role, not a
  // tool: gpt-oss writes it now and then; it is never a call.
  if (opt.dialect == dialect::harmony && out.msg.role == role::assistant &&
      parse_role(out.msg.recipient)) {
    b.issue(error_code::parse_header, 0,
            "to=" + out.msg.recipient + " addresses a role, not a tool (read without a recipient)");
    out.msg.recipient.clear();
  }
  if (out.msg.role == role::tool && out.msg.name.empty() && opt.dialect == dialect::harmony) {
    b.issue(error_code::parse_header, 0, "tool message without a tool name");
  }
  return out;
}

parsed_header parse_headless_message(std::string_view text, const header_parse_options& opt,
                                     std::string* body) {
  parsed_header out;
  std::size_t i = 0;
  while (i < text.size() && is_space(text[i])) ++i;
  std::size_t role_end = i;
  if (opt.preset_role) {
    if (auto r = parse_role(*opt.preset_role)) out.msg.role = *r;
  } else {
    while (role_end < text.size() && !is_space(text[role_end]) && text[role_end] != '<') {
      ++role_end;
    }
    if (!resolve_role_word(text.substr(i, role_end - i), out.msg)) {
      out.issues.push_back({error_code::parse_header, severity::error, i, "header has no role"});
      out.failed = true;
      return out;
    }
  }
  std::string_view rest = text.substr(role_end);
  const std::string_view chan = token_text(token::channel);
  if (rest.starts_with(chan)) {
    rest.remove_prefix(chan.size());
    std::size_t e = 0;
    while (e < rest.size() && !is_space(rest[e]) && rest[e] != '<') ++e;
    out.msg.channel = rest.substr(0, e);
    rest.remove_prefix(e);
  }
  while (!rest.empty() && is_space(rest.front())) rest.remove_prefix(1);
  *body = rest;
  return out;
}

bool known_channel(std::string_view c) {
  return c == "analysis" || c == "commentary" || c == "final";
}

}  // namespace ocml::detail
