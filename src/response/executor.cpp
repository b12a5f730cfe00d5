// SPDX-License-Identifier: Apache-2.0
// The response-template executor. The scan follows transformers' ResponseParser: the open
// explicit region watches only its own close; otherwise every open and the implicit field's
// close are watched; the earliest committable delimiter wins (longest on a tie, opens before
// closes); bytes from the first pending (partial) delimiter on are held back.
#include "response/executor.hpp"

#include <algorithm>
#include <charconv>

#include "core/utf8.hpp"
#include "interchange/json_util.hpp"

namespace ocml::resp {

namespace {

constexpr std::size_t kUnknown = static_cast<std::size_t>(-2);
// The longest a delimiter may be while it is incomplete (the bytes it holds back).
constexpr std::size_t kMaxHold = std::size_t{64} << 10;
// Below this, an unfinished delimiter is looked at again at every push.
constexpr std::size_t kRecheckFrom = 256;

bool nonempty(const json& v) {
  if (v.is_null()) return false;
  if (v.is_string()) return !v.get_ref<const std::string&>().empty();
  if (v.is_array() || v.is_object()) return !v.empty();
  return true;
}

// Leftmost literal at or after `from` (the longest on a tie: `lits` is longest first).
std::pair<std::size_t, std::size_t> find_literal(std::string_view hay, std::size_t from,
                                                 const std::vector<std::string>& lits) {
  std::size_t best = std::string_view::npos;
  std::size_t len = 0;
  for (const auto& lit : lits) {
    const std::size_t p = hay.find(lit, from);
    if (p < best) {
      best = p;
      len = lit.size();
    }
  }
  return {best, len};
}

}  // namespace

bool executor::ends_message(std::string_view text) const {
  if (spec_->implicit < 0) return false;
  const auto& lits = spec_->fields[static_cast<std::size_t>(spec_->implicit)].close.lits;
  return std::find(lits.begin(), lits.end(), text) != lits.end();
}

executor::executor(std::shared_ptr<const spec> s, const response_parser_options& o,
                   response_parser::sink sink)
    : spec_(std::move(s)), sink_(std::move(sink)), lenient_(o.lenient) {
  if (o.tools != nullptr) {
    tools_ = read_tools(*o.tools);
    has_tools_ = !tools_.empty();
  }
  output_ = spec_->defaults;
  current_ = spec_->implicit;
  cache_.resize(spec_->fields.size() * 2);
  floor_.assign(spec_->fields.size() * 2, 0);
  too_long_said_.assign(spec_->fields.size() * 2, false);
  read_prefix(o.prefix);
}

void executor::emit(response_event& e) {
  e.from_prefix = from_prefix_;
  if (sink_) sink_(e);
}

void executor::report(error_code code, std::size_t offset, detail::position at, std::string message,
                      bool always_warning) {
  diagnostic d;
  d.code = code;
  d.level = lenient_ || always_warning ? severity::warning : severity::error;
  d.offset = offset;
  d.line = at.line;
  d.column = at.column;
  d.message = std::move(message);
  diags_.push_back(d);
  if (d.level == severity::error && !first_error_) first_error_ = d;
  response_event e;
  e.kind = response_event_kind::diagnostic;
  e.span = {offset, offset};
  e.diag = &diags_.back();
  emit(e);
}

void executor::read_prefix(std::string_view prefix) {
  from_prefix_ = true;
  std::size_t cut = 0;
  bool anchored = false;
  const delimiter& a = spec_->anchor;
  if (!a.lits.empty()) {
    for (std::size_t at = 0;;) {
      const auto [p, len] = find_literal(prefix, at, a.lits);
      if (p == std::string_view::npos) break;
      cut = at = p + len;
      anchored = true;
    }
  } else if (a.re != nullptr) {
    regex_match m;
    for (std::size_t at = 0; at <= prefix.size();) {
      if (a.re->search(prefix, at, false, m) != search_status::found) break;
      cut = m.end;
      anchored = true;
      at = m.end > m.start ? m.end : m.end + 1;
    }
  }
  buf_.assign(prefix);
  if (!prefix.empty() && !a.none() && !anchored) {
    report(error_code::response_template, 0, lc_,
           "the start anchor is not in the prefix: the whole prefix is read", true);
  }
  if (cut > 0) {
    response_event e;
    e.kind = response_event_kind::history;
    e.span = {0, cut};
    e.text = bytes(0, cut);
    emit(e);
    lc_ = detail::advance(lc_, e.text);
    pos_ = cut;
  }
  process(false);
  trim_buffer();
  from_prefix_ = false;
}

void executor::trim_buffer() {
  // What a pattern may look behind the scan stays (a lookbehind or \b then sees the same
  // bytes whatever the chunking: issue 26).
  const std::size_t keep = std::min(spec_->lookbehind, pos_ - base_);
  buf_.erase(0, pos_ - base_ - keep);
  base_ = pos_ - keep;
}

std::size_t executor::json_end() {
  using st = detail::json_extent::state;
  if (scan_end_ != static_cast<std::size_t>(-1) || scan_.current() == st::not_object) {
    return scan_end_;
  }
  const std::size_t from = std::max(scan_at_, pos_);
  const std::string_view rest = std::string_view(buf_).substr(from - base_);
  const std::size_t n = scan_.feed_until_complete(rest);
  scan_at_ = from + n;
  if (scan_.complete()) scan_end_ = scan_at_;
  return scan_end_;
}

void executor::scan_items(std::string_view added) {
  const std::size_t pending = body_.size() - item_at_;
  const std::size_t grown = body_.size() - item_seen_;
  const bool closer = added.find_first_of("<>") != std::string_view::npos && pending <= 512;
  if (!closer && grown < std::max<std::size_t>(32, pending / 4)) return;
  item_seen_ = body_.size();
  const field_spec& f = spec_->fields[static_cast<std::size_t>(current_)];
  while (itemize_ && item_at_ <= body_.size()) {
    regex_match m;
    if (f.content.tag->search(body_, item_at_, true, m) != search_status::found || m.partial) {
      return;
    }
    std::string key;
    json value;
    content_error err;
    if (!xml_item(m, f.content, key, value, err)) {
      if (!err.text.empty()) itemize_ = false;  // the close says why
    } else if (!emit_item(f, std::move(key), std::move(value))) {
      return;
    }
    item_at_ = m.end > m.start ? m.end : m.end + 1;
  }
}

bool executor::emit_item(const field_spec& f, std::string key, json value) {
  // XML-style parameters: a repeated key stops the items (the close has the merged value).
  // JSON arguments: both go out, and the close says the parse kept the last.
  if (f.content.type != content_type::json && !item_keys_.insert(key).second) {
    itemize_ = false;
    return false;
  }
  if (has_tools_) coerce_argument(item_tool_, key, value, tools_);
  if (f.untyped_json) json_untyped_argument(item_tool_, key, value, tools_);
  ++items_sent_;
  // One object reused (its two slots keep their storage): no allocation per argument.
  if (!item_.is_object()) item_ = {{"key", nullptr}, {"value", nullptr}};
  item_["key"] = std::move(key);
  item_["value"] = std::move(value);
  response_event e;
  e.kind = response_event_kind::region_item;
  e.span = {pos_, pos_};
  e.field = f.name;
  e.value = &item_;
  emit(e);
  return true;
}

namespace {

// A member's key or value: strings without \\u, and small integers, without the parser.
std::optional<json> quick_json(std::string_view token) {
  if (detail::json_string_form(token) != detail::string_form::other) {
    return json(detail::json_string_value(token));
  }
  if (detail::json_plain_integer(token)) {
    std::int64_t n = 0;
    std::from_chars(token.data(), token.data() + token.size(), n);
    return json(n);
  }
  return detail::try_parse_json(token);
}

bool is_arguments_key(std::string_view k) {
  return k == "\"arguments\"" || k == "\"parameters\"";
}

}  // namespace

void executor::begin_json_call(const field_spec& f) {
  // A call to an undeclared tool that will be text is not begun.
  if (item_tool_.empty() || (f.declared_only && has_tools_ && !tools_.contains(item_tool_))) {
    itemize_ = false;
    return;
  }
  item_begun_ = true;
  response_event e;
  e.kind = response_event_kind::region_call;
  e.span = {pos_, pos_};
  e.field = f.name;
  e.call_name = item_tool_;
  if (f.json_call_id) e.text = item_id_;
  emit(e);
}

void executor::scan_json_items() {
  const field_spec& f = spec_->fields[static_cast<std::size_t>(current_)];
  const std::string_view body = body_;
  const auto part = [&](std::size_t b, std::size_t e) { return body.substr(b, e - b); };
  const int args_depth = f.json_call ? 2 : 1;
  const auto on_member = [&](const detail::json_member& m) {
    if (!itemize_) return;
    const std::string_view key = part(m.key_begin, m.key_end);
    if (m.depth == 1 && f.json_call) {
      if (key == "\"name\"" || key == "\"tool_name\"") {
        auto v = quick_json(part(m.value_begin, m.value_end));
        if (v && v->is_string() && item_tool_.empty()) {
          item_tool_ = v->get<std::string>();
        } else {
          itemize_ = false;  // no name, or two: the close decides
        }
      } else if (key == "\"id\"" && f.json_call_id) {
        auto v = detail::try_parse_json(part(m.value_begin, m.value_end));
        if (v && v->is_string()) item_id_ = v->get<std::string>();
        if (item_begun_) {
          report(error_code::response_content, body_at_, body_lc_,
                 "field '" + f.name +
                     "': the call's id comes after its arguments began to stream, so the "
                     "stream gave the call a generated id",
                 true);
        }
      } else if (is_arguments_key(key) && args_from_ != npos) {
        if (!item_begun_) begin_json_call(f);  // {} (or no argument streamed)
        args_end_ = m.value_end;
      } else if (is_arguments_key(key)) {
        itemize_ = false;  // arguments that are no object (a JSON string): whole at the close
      }
      return;
    }
    if (m.depth != args_depth) return;
    if (f.json_call && !is_arguments_key(part(m.parent_key_begin, m.parent_key_end))) return;
    if (item_begun_ && !sink_) {
      args_from_ = m.value_end;  // tracking only (partial_call's rescan)
      return;
    }
    const std::optional<json> k = quick_json(key);
    std::optional<json> v = quick_json(part(m.value_begin, m.value_end));
    if (!k || !k->is_string() || !v) {
      itemize_ = false;  // the close says why
      return;
    }
    // The call begins with its first argument, so a body broken before it stays text.
    if (!item_begun_) begin_json_call(f);
    if (!itemize_) return;
    if (!sink_) {
      // Nobody listened and the body broke (json_call_begun): a valid first argument is
      // what would have begun the call; the scan stops there (partial_call reads the rest).
      itemize_ = false;
      return;
    }
    if (emit_item(f, k->get<std::string>(), std::move(*v))) args_from_ = m.value_end;
  };
  const auto on_open = [&](std::size_t kb, std::size_t ke, char c, std::size_t at) {
    if (!f.json_call || !itemize_ || item_begun_ || !is_arguments_key(part(kb, ke))) return;
    if (c != '{' || item_tool_.empty()) {
      itemize_ = false;
      return;
    }
    args_from_ = args_open_ = at + 1;
  };
  const auto st = members_.feed(body, on_member, on_open);
  if (item_begun_ && f.json_call && args_end_ == npos) {
    std::size_t kb = 0;
    std::size_t ke = 0;
    std::size_t end = 0;
    if (members_.ended_value(kb, ke, end) && is_arguments_key(part(kb, ke))) args_end_ = end;
  }
  if (st == detail::json_members::status::invalid) {
    itemize_ = false;
  } else if (st == detail::json_members::status::done && !f.json_call && itemize_) {
    if (!item_begun_) begin_json_call(f);  // named call with {} arguments
    args_end_ = body.size();
  }
}

bool executor::json_call_begun(const field_spec& f) {
  if (sink_ || item_begun_ || f.content.type != content_type::json || !itemize_) {
    return item_begun_;
  }
  // Nobody listened, so the body was not scanned: read it now as the stream would have.
  members_.reset();
  args_from_ = args_end_ = args_open_ = npos;
  scan_json_items();
  return item_begun_;
}

void executor::track_arguments(const field_spec& f) {
  const std::string_view body = body_;
  const auto part = [&](std::size_t b, std::size_t e) { return body.substr(b, e - b); };
  const int depth = f.json_call ? 2 : 1;
  args_from_ = args_end_ = npos;
  detail::json_members scan;
  const auto st = scan.feed(
      body,
      [&](const detail::json_member& m) {
        if (f.json_call && m.depth == 1 && args_end_ == npos && args_open_ != npos &&
            is_arguments_key(part(m.key_begin, m.key_end))) {
          args_end_ = m.value_end;
        } else if (m.depth == depth && args_end_ == npos &&
                   (!f.json_call || is_arguments_key(part(m.parent_key_begin, m.parent_key_end)))) {
          args_from_ = m.value_end;
        }
      },
      [&](std::size_t kb, std::size_t ke, char c, std::size_t at) {
        if (f.json_call && c == '{' && args_open_ == npos && is_arguments_key(part(kb, ke))) {
          args_open_ = at + 1;
        }
      });
  if (args_from_ == npos) args_from_ = args_open_;  // no complete argument: from its '{'
  std::size_t kb = 0;
  std::size_t ke = 0;
  std::size_t end = 0;
  if (f.json_call && args_end_ == npos && scan.ended_value(kb, ke, end) &&
      is_arguments_key(part(kb, ke))) {
    args_end_ = end;
  } else if (!f.json_call && st == detail::json_members::status::done) {
    args_end_ = body.size();
  }
}

json executor::partial_call(const field_spec& f) {
  if (args_open_ == npos) {  // a named call: its body is the arguments
    const std::size_t brace = body_.find('{');
    args_open_ = brace == npos ? body_.size() : brace + 1;
  }
  if (!sink_) track_arguments(f);
  item_args_ = json::object();
  if (args_from_ != npos && args_from_ > args_open_ && args_from_ <= body_.size()) {
    // The arguments that were complete, typed as the stream sent them.
    std::string obj = body_.substr(args_open_ - 1, args_from_ - args_open_ + 1) + "}";
    if (auto v = detail::try_parse_json(obj); v && v->is_object()) {
      for (auto& [key, value] : v->items()) {
        if (has_tools_) coerce_argument(item_tool_, key, value, tools_);
        if (f.untyped_json) json_untyped_argument(item_tool_, key, value, tools_);
        item_args_[key] = value;
      }
    }
  }
  // The arguments: the object, when it closed; else the members streamed so far as the
  // stream sent them, then the rest as written (an unfinished member), never dropped.
  json args = item_args_;
  // The object closed, and nothing but white space (and a JSON call's own '}') follows it:
  // the object. Anything else after it stays, written out after the arguments.
  bool closed = args_end_ != npos && args_end_ <= body_.size();
  if (closed) {
    std::string_view rest = detail::py_strip_ws(std::string_view(body_).substr(args_end_));
    if (f.json_call && !rest.empty() && rest.front() == '}') {
      rest = detail::py_strip_ws(rest.substr(1));
    }
    closed = rest.empty();
  }
  if (!closed) {
    std::string text = dump_json(item_args_);
    text.pop_back();  // the '}'
    std::size_t from = args_from_;
    if (from == npos) {
      from = body_.find('{');
      from = from == npos ? body_.size() : from + 1;
    }
    text.append(body_, std::min(from, body_.size()));
    args = std::move(text);
  }
  json value;
  if (!f.json_call) {
    std::string err;
    if (!apply_transform(f, caps_, std::move(args), value, err)) return json();
    return value;
  }
  if (!f.json_call_id) {
    return {{"type", "function"}, {"function", {{"name", item_tool_}, {"arguments", args}}}};
  }
  value = {{"name", item_tool_}, {"arguments", args}};
  if (!item_id_.empty()) value["id"] = item_id_;
  return value;
}

std::string executor::as_written() const {
  return open_text_ + body_ + close_text_;
}

const executor::found& executor::search(std::size_t slot, const delimiter& d, bool eos) {
  // A loop, not a recursion: a too-long match moves the look one byte on, and the input
  // (not the stack) bounds how often (issue 23: 200 000 bytes overflowed the stack).
  for (;;) {
    bool again = false;
    const found& f = search_once(slot, d, eos, again);
    if (!again) return f;
  }
}

const executor::found& executor::search_once(std::size_t slot, const delimiter& d, bool eos,
                                             bool& again) {
  found& f = cache_[slot];
  const std::size_t end = base_ + buf_.size();
  if (f.valid && f.eos == eos && f.from <= pos_ && (!f.any || f.start >= pos_)) {
    if (f.until == end) return f;
    // A long unfinished pattern match is looked at again only once the input has grown by a
    // quarter of it: each look re-reads what it holds, so this keeps the work per pushed
    // byte constant (a short one, as every real delimiter is, is looked at every push).
    const std::size_t held = f.until - f.start;
    if (d.re != nullptr && f.pending && !eos && held >= kRecheckFrom && end - f.until < held / 4) {
      return f;
    }
  }
  // Where each literal next occurs stays true while the buffer is the same and the scan
  // has not passed it (a far literal, such as <|im_end|> beside </tool_call>, is then looked
  // for once per buffer, not once per region).
  std::vector<std::size_t> next = std::move(f.next);
  if (f.next_until != end || next.size() != d.lits.size()) next.assign(d.lits.size(), kUnknown);
  f = found{};
  f.next_until = end;
  f.valid = true;
  f.from = pos_;
  f.until = end;
  f.eos = eos;
  const std::string_view hay = buf_;
  const std::size_t from = pos_ - base_;
  if (d.eos) {
    f.any = true;
    f.start = f.end = end;
    f.pending = !eos;
    return f;
  }
  if (!d.lits.empty()) {
    std::size_t best = std::string_view::npos;
    std::size_t len = 0;
    for (std::size_t i = 0; i < d.lits.size(); ++i) {
      if (next[i] == kUnknown || (next[i] != std::string_view::npos && next[i] < pos_)) {
        const std::size_t p = hay.find(d.lits[i], from);
        next[i] = p == std::string_view::npos ? p : base_ + p;
      }
      if (next[i] != std::string_view::npos && next[i] - base_ < best) {
        best = next[i] - base_;
        len = d.lits[i].size();
      }
    }
    f.next = std::move(next);
    std::size_t part = std::string_view::npos;
    if (!eos) {
      for (const auto& lit : d.lits) {
        const std::size_t lo = hay.size() >= lit.size() ? hay.size() - lit.size() + 1 : 0;
        for (std::size_t s = std::max(lo, from); s < hay.size() && s < part; ++s) {
          if (std::string_view(lit).starts_with(hay.substr(s))) {
            part = s;
            break;
          }
        }
      }
    }
    if (part != std::string_view::npos && (best == std::string_view::npos || part <= best)) {
      f.any = f.pending = true;
      f.start = base_ + part;
      f.end = end;
    } else if (best != std::string_view::npos) {
      f.any = true;
      f.start = base_ + best;
      f.end = base_ + best + len;
    }
    return f;
  }
  // A pattern sees only whole characters: a sequence cut short at the end is held back.
  const std::size_t lim = eos ? hay.size() : detail::utf8_whole(hay);
  const std::size_t start = std::max(from, floor_[slot] > base_ ? floor_[slot] - base_ : 0);
  regex_match m;
  const search_status st =
      lim < start ? search_status::none : d.re->search(hay.substr(0, lim), start, !eos, m);
  if (st == search_status::limit) {
    // Backtracking without end (such as `(?P<name>\w+).*?` on a long word): this pattern
    // matches nowhere in what the buffer holds now.
    report(error_code::limit_exceeded, pos_, lc_,
           "a delimiter pattern exceeded PCRE2's match limit: it matches nowhere before byte " +
               std::to_string(end),
           true);
    floor_[slot] = end;
    f.valid = false;
    return f;
  }
  if (st == search_status::none) {
    // Hard partial matching reports any match the end cut short, so none starts before
    // `lim`: later searches begin there, and each byte is read about once.
    floor_[slot] = std::max(floor_[slot], base_ + std::max(lim, start));
    if (lim < hay.size()) {
      f.any = f.pending = true;
      f.start = base_ + std::max(lim, start);
      f.end = end;
    }
    return f;
  }
  // The match found, as this slot's answer.
  const auto take = [&](regex_match& x, bool is_pending) -> const found& {
    if (!is_pending) too_long_said_[slot] = false;
    f.any = true;
    f.start = base_ + x.start;
    f.end = base_ + x.end;
    f.pending = is_pending;
    f.caps = std::move(x.groups);
    return f;
  };
  floor_[slot] = std::max(floor_[slot], base_ + m.start);
  const bool pending = !eos && (m.partial || m.end == lim);
  if ((pending ? lim : m.end) - m.start > kMaxHold) {
    // A delimiter is at most 64 KiB, whole or still unfinished (so a stream never holds
    // more, and chunking cannot change which one is found): a longer one is none.
    if (!too_long_said_[slot]) {
      report(error_code::limit_exceeded, base_ + m.start, lc_,
             "a delimiter of " + std::to_string((pending ? lim : m.end) - m.start) +
                 (pending ? " bytes and still unfinished" : " bytes") +
                 " is longer than 64 KiB: not a delimiter",
             true);
      too_long_said_[slot] = true;
    }
    f.valid = false;
    again = true;
    if (pending) {
      // Every match still unfinished that starts more than 64 KiB before the end is too
      // long as well: rather than look again one byte on (quadratic on a long run of what
      // the pattern takes, such as newlines before </think>), look once for a finished
      // match in between, else start where a match may still be short enough.
      const std::size_t tail = lim > kMaxHold ? lim - kMaxHold : 0;
      regex_match c;
      const bool complete =
          d.re->search(hay.substr(0, lim), m.start + 1, false, c) == search_status::found &&
          c.start < tail;
      if (complete && c.end - c.start <= kMaxHold) {
        again = false;
        floor_[slot] = base_ + c.start;
        f.valid = true;
        return take(c, false);
      }
      floor_[slot] = base_ + (complete ? c.start + 1 : std::max(m.start + 1, tail));
      return f;
    }
    // A finished match too long: one that starts less than 64 KiB before its end is the
    // first that can be short enough where a run of what the pattern takes ends there (the
    // newlines before </think>), so the look goes on from there, not one byte on (which
    // re-read the run once per byte: 4 s on 200 000 newlines). Decision 75.
    floor_[slot] = base_ + std::max(m.start + 1, m.end - kMaxHold);
    return f;
  }
  return take(m, pending);
}

void executor::accumulate(std::size_t from, std::size_t to) {
  response_event e;
  e.text = bytes(from, to);
  e.span = {from, to};
  if (current_ < 0) {
    e.kind = response_event_kind::unclaimed;
    emit(e);
  } else {
    const field_spec& f = spec_->fields[static_cast<std::size_t>(current_)];
    if (!opened_) open_region(current_, {});  // the implicit field opens at its first byte
    body_.append(e.text);
    if (!f.once && !answered_) {
      answered_ = e.text.find_first_not_of(" \t\r\n") != std::string_view::npos;
    }
    e.kind = response_event_kind::region_chunk;
    e.field = f.name;
    e.dirty = !f.content.streamable();
    emit(e);
  }
  lc_ = detail::advance(lc_, bytes(from, to));
  pos_ = to;
  if (itemize_ && current_ >= 0) {
    if (spec_->fields[static_cast<std::size_t>(current_)].content.type == content_type::json) {
      if (sink_) scan_json_items();  // nobody listens: read only if the body breaks
    } else {
      scan_items(bytes(from, to));
    }
  }
}

void executor::structure(std::size_t from, std::size_t to, int field) {
  if (to > from) {
    response_event e;
    e.kind = response_event_kind::structure;
    e.span = {from, to};
    e.text = bytes(from, to);
    e.field = spec_->fields[static_cast<std::size_t>(field)].name;
    emit(e);
    lc_ = detail::advance(lc_, e.text);
  }
  pos_ = to;
}

void executor::open_region(int field, captures caps) {
  current_ = field;
  caps_ = std::move(caps);
  body_.clear();
  opened_ = true;
  body_at_ = pos_;
  body_lc_ = lc_;
  scan_.reset();
  scan_at_ = pos_;
  scan_end_ = static_cast<std::size_t>(-1);
  response_event e;
  e.kind = response_event_kind::region_open;
  e.span = {pos_, pos_};
  const field_spec& f = spec_->fields[static_cast<std::size_t>(field)];
  e.field = f.name;
  e.strip = f.content.strip;
  itemize_ = item_begun_ = false;
  item_at_ = item_seen_ = 0;
  item_keys_.clear();
  items_sent_ = 0;
  item_tool_.clear();
  item_id_.clear();
  members_.reset();
  args_from_ = args_end_ = args_open_ = npos;
  if (f.json_call) itemize_ = true;  // begun when its name and arguments are seen
  if (!f.stream_name.empty()) {
    for (const auto& [n, v] : caps_) {
      if (n == f.stream_name) item_tool_ = v;
    }
    // A call to an undeclared tool that will be text is not begun.
    itemize_ =
        !item_tool_.empty() && !(f.declared_only && has_tools_ && !tools_.contains(item_tool_));
    // XML-style parameters: the call begins here. JSON arguments: at the first argument.
    if (itemize_ && f.content.type != content_type::json) {
      e.call_name = item_tool_;
      item_begun_ = true;
    }
  }
  if (f.join) {
    const auto it = output_.find(f.name);
    if (it != output_.end() && it->is_string()) e.separator = *f.join;
  }
  emit(e);
}

void executor::close_region() {
  const auto reset = [this] {
    current_ = spec_->implicit;
    caps_.clear();
    body_.clear();
    open_text_.clear();
    close_text_.clear();
    opened_ = false;
  };
  if (current_ < 0 || !opened_) {
    reset();
    return;
  }
  const field_spec& f = spec_->fields[static_cast<std::size_t>(current_)];
  // A value is JSON, so UTF-8: a byte that is not is an error (strict) or U+FFFD (lenient),
  // as a tokenizer's decode would have written it.
  const auto* raw = reinterpret_cast<const unsigned char*>(body_.data());
  const std::size_t bad = detail::utf8_first_invalid(raw, body_.size(), false, nullptr);
  if (bad != body_.size()) {
    report(error_code::invalid_utf8, body_at_ + bad,
           detail::advance(body_lc_, std::string_view(body_).substr(0, bad)),
           "field '" + f.name + "': invalid UTF-8" + (lenient_ ? " (replaced by U+FFFD)" : ""));
    body_ = detail::valid_utf8(body_);
  }
  for (auto& [name, v] : caps_) {
    const auto* b = reinterpret_cast<const unsigned char*>(v.data());
    if (detail::utf8_first_invalid(b, v.size(), false, nullptr) != v.size()) {
      v = detail::valid_utf8(v);
    }
  }
  json parsed;
  json value;
  content_error why;
  std::string err;
  const bool keep = lenient_ || f.text_fallback;
  bool fell_back = false;
  const bool parsed_ok = parse_content(body_, f.content, parsed, why);
  // The generation ended inside a call the stream has begun: it stays a call, its arguments
  // as far as they were written, as OpenAI's API sends a call max_tokens cut (issue 26).
  // A body that breaks after the stream began its call is that call too: a stream cannot
  // take back what it sent (docs/decisions.md 94).
  const bool partial =
      !parsed_ok && keep && json_call_begun(f) && !(value = partial_call(f)).is_null();
  if (partial) {
    report(why.code, body_at_, body_lc_,
           "field '" + f.name + "': " +
               (at_eos_ ? "the generation ended inside the call to '"
                        : "the body broke after the stream began the call to '") +
               item_tool_ + "': it is kept as a call, its arguments as written (" +
               std::to_string(item_args_.size()) + " complete)",
           true);
  } else if (!parsed_ok) {
    report(why.code, body_at_, body_lc_,
           "field '" + f.name + "': " + why.text +
               (keep ? " (its text, delimiters included, is kept as a string)" : ""),
           f.text_fallback);
    // The text as the model wrote it, not put through the transform: a transform of a
    // string wrapped it in JSON the model never wrote ({"type": "function", "function":
    // "<the text>"}), and that JSON was what reached the content.
    value = as_written();
    fell_back = true;
  } else if (!apply_transform(f, caps_, std::move(parsed), value, err)) {
    report(error_code::response_content, body_at_, body_lc_, "field '" + f.name + "': " + err,
           f.text_fallback);
    value = as_written();
    fell_back = true;
  } else if (f.declared_only && has_tools_ && !declared_calls(value, tools_)) {
    report(error_code::response_content, body_at_, body_lc_,
           "field '" + f.name + "': a call to a tool the request did not declare is kept as text",
           true);
    value = as_written();
    fell_back = true;
  }
  if (has_tools_ && !partial) coerce_tool_calls(value, tools_);
  if (items_sent_ > 0 && !fell_back && !partial && value.is_object() &&
      f.content.type == content_type::json) {
    const auto fn = value.find("function");
    const json& call = fn != value.end() && fn->is_object() ? *fn : value;
    auto args = call.find("arguments");
    if (args == call.end()) args = call.find("parameters");
    if (args != call.end() && args->is_object() && args->size() < items_sent_) {
      report(error_code::response_content, body_at_, body_lc_,
             "field '" + f.name +
                 "': an argument is written twice; the stream sent both, the parse keeps the "
                 "last (as Python's json.loads)",
             true);
    }
  }
  if (f.untyped_json && !fell_back && !partial) json_untyped_values(value, tools_);
  if (from_prefix_) {
    // A region the prompt opened and closed is the prompt's (Seed-OSS's budget note, an
    // empty <think></think>): events, but no value of the generation.
    emit_close(f.name, value);
    reset();
    return;
  }
  if (fell_back && spec_->implicit >= 0 && current_ != spec_->implicit) {
    // Kept as text where it stood: appended to the implicit field (the content), as the
    // stream sends it (issue 26: it went to the end of the content).
    const std::string& to = spec_->fields[static_cast<std::size_t>(spec_->implicit)].name;
    auto c = output_.find(to);
    if (c != output_.end() && c->is_string()) {
      *c = c->get<std::string>() + value.get<std::string>();
    } else {
      output_[to] = value;
    }
    emit_close(f.name, value);
    reset();
    return;
  }
  auto it = output_.find(f.name);
  if (f.join) {
    if (!value.is_string()) {
      report(error_code::response_content, body_at_, body_lc_,
             "field '" + f.name + "': 'join' requires each match to parse to a string");
      value = value.dump();
    }
    if (it == output_.end() || !it->is_string()) {
      output_[f.name] = value;
    } else {
      *it = it->get<std::string>() + *f.join + value.get<std::string>();
    }
  } else if (f.repeats) {
    if (it == output_.end() || !it->is_array()) output_[f.name] = json::array();
    output_[f.name].push_back(value);
  } else if (it != output_.end() && nonempty(*it) && nonempty(value)) {
    // Matched again: both values are kept (texts joined, others listed), because a stream
    // has already sent the first and cannot take it back; transformers keeps only the last
    // (docs/decisions.md 92).
    report(error_code::response_content, body_at_, body_lc_,
           "field '" + f.name + "' matched again: both values are kept", true);
    if (it->is_string() && value.is_string()) {
      *it = it->get<std::string>() + value.get<std::string>();
    } else {
      if (!it->is_array() || f.name != "tool_calls") *it = json::array({*it});
      if (value.is_array() && f.name == "tool_calls") {
        for (auto& v : value) it->push_back(std::move(v));
      } else {
        it->push_back(value);
      }
    }
  } else if (it == output_.end() || !nonempty(*it)) {
    output_[f.name] = value;
  }
  emit_close(f.name, value);
  reset();
}

void executor::emit_close(std::string_view field, const json& value) {
  response_event e;
  e.kind = response_event_kind::region_close;
  e.span = {pos_, pos_};
  e.field = field;
  e.value = &value;
  emit(e);
}

void executor::process(bool eos) {
  const auto& fields = spec_->fields;
  const std::size_t end = base_ + buf_.size();
  // A character the buffer's end cuts short is held back whole (no event splits one).
  const std::size_t whole = eos ? end : base_ + detail::utf8_whole(buf_);
  for (;;) {
    std::size_t hold = std::max(whole, pos_);
    const found* best = nullptr;
    int best_field = -1;
    bool best_open = false;
    const auto consider = [&](int fi, bool open) {
      const field_spec& fs = fields[static_cast<std::size_t>(fi)];
      const found& f =
          search(static_cast<std::size_t>(fi) * 2 + (open ? 0 : 1), open ? fs.open : fs.close, eos);
      if (!f.any) return;
      if (f.pending) {
        hold = std::min(hold, f.start);
        return;
      }
      // A zero-width close of the implicit field before it holds anything closes nothing.
      if (!open && !opened_ && f.start == f.end && f.start == pos_) return;
      // x-ocml-once: text of the answer before it means it is too late to open.
      if (open && fs.once && !answered_ && current_ >= 0 &&
          !fields[static_cast<std::size_t>(current_)].once &&
          bytes(pos_, f.start).find_first_not_of(" \t\r\n") != std::string_view::npos) {
        return;
      }
      if (best != nullptr) {
        const std::size_t bl = best->end - best->start;
        const std::size_t fl = f.end - f.start;
        if (f.start != best->start) {
          if (f.start > best->start) return;
        } else if (fl != bl) {
          if (fl < bl) return;
        } else if (open != best_open) {
          if (!open) return;
        } else if (fs.name >= fields[static_cast<std::size_t>(best_field)].name) {
          return;
        }
      }
      best = &f;
      best_field = fi;
      best_open = open;
    };
    found json_close;
    if (current_ >= 0 && current_ != spec_->implicit) {
      const field_spec& cf = fields[static_cast<std::size_t>(current_)];
      if (!cf.close.none()) consider(current_, false);
      for (std::size_t i = 0; spec_->has_inside && i < fields.size(); ++i) {
        if (fields[i].inside == current_) consider(static_cast<int>(i), true);
      }
      const std::size_t je = cf.json_end && opened_ ? json_end() : static_cast<std::size_t>(-1);
      // The JSON value's end is a close of no bytes; a delimiter there is taken with it.
      if (je != static_cast<std::size_t>(-1) && je <= hold &&
          (best == nullptr || je < best->start)) {
        json_close.any = true;
        json_close.start = json_close.end = je;
        best = &json_close;
        best_field = current_;
        best_open = false;
      }
    } else {
      for (std::size_t i = 0; i < fields.size(); ++i) {
        if (!fields[i].implicit() && !(fields[i].once && answered_)) {
          consider(static_cast<int>(i), true);
        }
      }
      if (spec_->implicit >= 0 && !fields[static_cast<std::size_t>(spec_->implicit)].close.none()) {
        consider(spec_->implicit, false);
      }
    }
    if (best != nullptr && best->start >= hold) best = nullptr;
    if (best != nullptr) {
      const std::size_t s = best->start;
      const std::size_t e = best->end;
      captures caps = best->caps;
      if (s > pos_) accumulate(pos_, s);
      if (best_open && fields[static_cast<std::size_t>(best_field)].skip) {
        if (s > pos_) accumulate(pos_, s);
        structure(s, e, best_field);  // the open region goes on after it
      } else if (best_open) {
        // An open inside an explicit region (x-ocml-inside) suspends it.
        if (current_ >= 0 && fields[static_cast<std::size_t>(best_field)].inside == current_) {
          resume_ = current_;
        }
        close_region();
        structure(s, e, best_field);
        open_region(best_field, std::move(caps));
        open_text_ = bytes(s, e);
      } else {
        structure(s, e, best_field);
        close_text_ = ends_message(bytes(s, e)) ? std::string() : std::string(bytes(s, e));
        close_region();
        if (resume_ >= 0) {
          const int r = resume_;
          resume_ = -1;
          open_region(r, {});  // the suspended region goes on
        }
      }
      continue;
    }
    if (eos) {
      if (pos_ < end) accumulate(pos_, end);
      at_eos_ = true;
      close_region();
      break;
    }
    if (hold > pos_) accumulate(pos_, hold);
    break;
  }
}

void executor::push(std::string_view piece) {
  if (finished_ || piece.empty()) return;
  buf_.append(piece);
  process(false);
  trim_buffer();
}

result<json> executor::finish() {
  if (finished_) return make_error(error_code::internal, "response_parser: finish() called twice");
  process(true);
  finished_ = true;
  for (const auto& f : spec_->fields) {
    if (!f.optional && !output_.contains(f.name)) {
      report(error_code::response_missing, pos_, lc_,
             "required field '" + f.name + "' is missing from the parsed output");
    }
  }
  json out = json::object();
  for (auto& [k, v] : output_.items()) {
    if (spec_->defaults.contains(k) || nonempty(v)) out[k] = std::move(v);
  }
  if (first_error_ && !lenient_) return *first_error_;
  return out;
}

}  // namespace ocml::resp
