// SPDX-License-Identifier: Apache-2.0
// Decoder events -> deltas: which text is visible, which is reasoning, which is a call.
#include <cstring>

#include "ocml/events.hpp"

namespace ocml {

namespace {

// Length of the UTF-8 sequence a lead byte starts (1 for ASCII or a stray byte).
std::size_t sequence_length(unsigned char lead) noexcept {
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  return 1;
}

bool continuation(char c) noexcept {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// Bytes at the end of `t` that begin a UTF-8 sequence `t` does not finish (0-3).
std::size_t unfinished_tail(std::string_view t) noexcept {
  const std::size_t n = t.size();
  for (std::size_t back = 1; back <= 3 && back <= n; ++back) {
    const auto c = static_cast<unsigned char>(t[n - back]);
    if (continuation(static_cast<char>(c))) continue;
    return sequence_length(c) > back ? back : 0;
  }
  return 0;
}

}  // namespace

std::string_view finish_reason_name(finish_reason r) noexcept {
  switch (r) {
    case finish_reason::none:
      return "";
    case finish_reason::stop:
      return "stop";
    case finish_reason::tool_calls:
      return "tool_calls";
    case finish_reason::length:
      return "length";
    case finish_reason::cancelled:
      return "cancelled";
    case finish_reason::error:
      return "error";
  }
  return "";
}

projection::projection(projection_options options, sink on_delta)
    : opt_(options), ids_(call_ids::from(options.call_id_seed)), sink_(std::move(on_delta)) {}

delta projection::make(delta_kind k, std::size_t offset) const {
  delta d;
  d.kind = k;
  d.message_index = messages_ - 1;
  d.offset = offset;
  d.channel = channel_;
  d.recipient = recipient_;
  d.intent = intent_;
  d.block = block_;
  d.call_index = calls_ == 0 ? 0 : calls_ - 1;
  d.call_id = call_id_;
  d.name = name_;
  return d;
}

void projection::operator()(const event& e) {
  switch (e.kind) {
    case event_kind::message_begin: {
      ++messages_;
      in_message_ = true;
      const message& m = *e.message;
      projected_ = m.role == role::assistant;
      if (!projected_) return;
      channel_ = m.effective_channel();
      recipient_ = m.recipient;
      intent_ = m.intent;
      newline_ = false;
      sink_(make(delta_kind::message_begin, e.offset));
      const recipient_kind target = classify_recipient(m.recipient);
      // A built-in tool's call (browser.search, python) is the engine's business: its own
      // kind of delta, not reasoning (docs/decisions.md 61).
      builtin_ = target == recipient_kind::builtin;
      call_open_ = target == recipient_kind::function;
      if (call_open_) {
        constexpr std::string_view ns = "functions.";
        std::string_view name = m.recipient;
        if (name.substr(0, ns.size()) == ns) name.remove_prefix(ns.size());
        begin_call(m.call_id, name, e.offset);
      }
      return;
    }
    case event_kind::content:
      if (!projected_) return;
      if (call_open_) {
        text(delta_kind::call_arguments, e.text, e.offset);
      } else if (builtin_) {
        text(delta_kind::builtin_call, e.text, e.offset);
      } else if (channel_ == "final") {
        text(delta_kind::text, e.text, e.offset);
      } else if (channel_ == "analysis") {
        text(delta_kind::reasoning, e.text, e.offset);
      } else {
        text(delta_kind::commentary, e.text, e.offset);
      }
      return;
    case event_kind::reasoning:
      if (projected_) text(delta_kind::reasoning, e.text, e.offset);
      return;
    case event_kind::reflection:
    case event_kind::introspection:
      if (projected_) {
        block_ = e.kind == event_kind::reflection ? "reflection" : "introspection";
        text(delta_kind::reasoning, e.text, e.offset);
        block_ = {};
      }
      return;
    case event_kind::call_begin:
      if (!projected_) return;
      flush_carry();
      begin_call(e.call->id, e.call->name, e.offset);
      streaming_ = true;
      streamed_.clear();
      return;
    case event_kind::call_arguments:
      if (!projected_ || !streaming_) return;
      streamed_.append(e.text);
      text(delta_kind::call_arguments, e.text, e.offset);
      return;
    case event_kind::tool_call: {
      if (!projected_) return;
      flush_carry();
      std::string_view args = e.call->arguments;
      if (streaming_) {
        // Begun already: the rest of the arguments (normally "}"), after the parts sent.
        streaming_ = false;
        // Not its start (a key written twice, whose last value the call keeps): the parts
        // sent are closed, so the folded text is JSON that reads as the call's arguments.
        args = args.starts_with(streamed_) ? args.substr(streamed_.size())
               : streamed_.empty()         ? args
                                           : std::string_view("}");
      } else {
        begin_call(e.call->id, e.call->name, e.offset);
      }
      if (!args.empty()) {
        delta d = make(delta_kind::call_arguments, e.offset);
        d.text = args;  // complete characters
        sink_(d);
      }
      end_call(e.offset);
      return;
    }
    case event_kind::message_end:
      if (projected_) {
        flush_carry();
        if (call_open_) end_call(e.offset);
        delta d = make(delta_kind::message_end, e.offset);
        d.end = e.end;
        sink_(d);
      }
      in_message_ = projected_ = call_open_ = false;
      return;
    case event_kind::diagnostic: {
      delta d = make(delta_kind::diagnostic, e.offset);
      d.message_index = messages_ == 0 ? 0 : messages_ - 1;
      d.diag = e.diag;
      sink_(d);
      return;
    }
    default:
      return;
  }
}

void projection::text(delta_kind k, std::string_view t, std::size_t offset) {
  if (t.empty()) return;
  if (carry_len_ != 0 && (carry_kind_ != k || carry_block_ != block_)) flush_carry();
  delta d = make(k, offset);
  d.text = t;
  whole_chars(d);
}

// Emits `d` so that no delta ends inside a UTF-8 sequence: an unfinished tail waits in
// `carry_` for the continuation bytes of the next slice.
void projection::whole_chars(delta d) {
  std::string_view t = d.text;
  if (carry_len_ != 0) {
    while (carry_len_ < carry_need_ && !t.empty() && continuation(t.front())) {
      carry_[carry_len_++] = t.front();
      t.remove_prefix(1);
      ++d.offset;
    }
    if (carry_len_ < carry_need_ && t.empty()) return;  // still unfinished
    flush_carry();
  }
  const std::size_t keep = unfinished_tail(t);
  if (keep != 0) {
    std::memcpy(carry_, t.data() + t.size() - keep, keep);
    carry_len_ = keep;
    carry_need_ = sequence_length(static_cast<unsigned char>(carry_[0]));
    carry_offset_ = d.offset + t.size() - keep;
    carry_kind_ = d.kind;
    carry_block_ = d.block;
    t.remove_suffix(keep);
  }
  if (t.empty()) return;
  d.text = t;
  deliver(d);
}

void projection::deliver(const delta& d) {
  if (d.kind == delta_kind::text && opt_.paragraph_flush) {
    with_flushes(d);
  } else {
    sink_(d);
  }
}

void projection::flush_carry() {
  if (carry_len_ == 0) return;
  delta d = make(carry_kind_, carry_offset_);
  d.block = carry_block_;
  d.text = std::string_view(carry_, carry_len_);
  carry_len_ = 0;
  deliver(d);
}

// Visible text, cut after each "\n\n" (also one split across slices) with a flush there.
void projection::with_flushes(const delta& d) {
  const std::string_view t = d.text;
  std::size_t start = 0;  // first byte not yet emitted
  std::size_t pos = 0;
  bool newline = newline_;  // the byte before `pos` is a '\n' not yet paired
  while (pos < t.size()) {
    const void* hit = std::memchr(t.data() + pos, '\n', t.size() - pos);
    if (hit == nullptr) {
      newline = false;
      break;
    }
    const auto i = static_cast<std::size_t>(static_cast<const char*>(hit) - t.data());
    if (i > pos) newline = false;
    pos = i + 1;
    if (!newline) {
      newline = true;
      continue;
    }
    delta part = d;
    part.text = t.substr(start, pos - start);
    part.offset = d.offset + start;
    sink_(part);
    sink_(make(delta_kind::flush, d.offset + pos));
    start = pos;
    newline = false;
  }
  newline_ = newline;
  if (start == t.size()) return;
  delta rest = d;
  rest.text = t.substr(start);
  rest.offset = d.offset + start;
  sink_(rest);
}

void projection::begin_call(std::string_view id, std::string_view name, std::size_t offset) {
  ++calls_;
  call_id_ = id.empty() ? ids_(calls_ - 1) : std::string(id);
  name_ = name;
  sink_(make(delta_kind::call_begin, offset));
}

void projection::end_call(std::size_t offset) {
  sink_(make(delta_kind::call_end, offset));
}

void projection::finish() {
  flush_carry();
  if (in_message_ && projected_) {
    if (call_open_) end_call(0);
    in_message_ = projected_ = call_open_ = false;
  }
}

finish_reason projection::natural_finish() const noexcept {
  return calls_ != 0 ? finish_reason::tool_calls : finish_reason::stop;
}

}  // namespace ocml
