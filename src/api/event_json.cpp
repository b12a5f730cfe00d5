// SPDX-License-Identifier: Apache-2.0
// One decoder event as a JSON line: what `ocml stream` writes.
#include <string>

#include "core/utf8.hpp"
#include "interchange/json_util.hpp"
#include "ocml/decoder.hpp"
#include "ocml/json.hpp"

namespace ocml {

namespace {

json message_header_json(const message& m) {
  conversation one;
  one.messages.push_back(m);
  json j = to_native_json(one)["messages"][0];
  j.erase("content");
  return j;
}

}  // namespace

std::string event_json_line(const event& e) {
  json j = json::object();
  switch (e.kind) {
    case event_kind::document_header:
      j["event"] = "document_header";
      j["offset"] = e.offset;
      break;
    case event_kind::message_begin:
      j["event"] = "message_begin";
      j["offset"] = e.offset;
      j["message"] = message_header_json(*e.message);
      break;
    case event_kind::content:
      j["event"] = "content";
      j["offset"] = e.offset;
      j["text"] = std::string(e.text);
      break;
    case event_kind::reasoning:
    case event_kind::reflection:
    case event_kind::introspection:
      j["event"] = e.kind == event_kind::reasoning    ? "reasoning"
                   : e.kind == event_kind::reflection ? "reflection"
                                                      : "introspection";
      j["offset"] = e.offset;
      j["text"] = std::string(e.text);
      break;
    case event_kind::document_part:
      j["event"] = "document_part";
      j["offset"] = e.offset;
      j["part"] = detail::write_document({*e.part})[0];
      break;
    case event_kind::tools:
      j["event"] = "tools";
      j["offset"] = e.offset;
      j["tools"] = detail::write_tools(*e.tools);
      break;
    case event_kind::tool_call:
      j["event"] = "tool_call";
      j["offset"] = e.offset;
      j["id"] = e.call->id;
      j["name"] = e.call->name;
      j["arguments"] = e.call->arguments;
      break;
    case event_kind::call_begin:
      j["event"] = "call_begin";
      j["offset"] = e.offset;
      j["id"] = e.call->id;
      j["name"] = e.call->name;
      break;
    case event_kind::call_arguments:
      j["event"] = "call_arguments";
      j["offset"] = e.offset;
      j["text"] = std::string(e.text);
      break;
    case event_kind::message_end:
      j["event"] = "message_end";
      j["offset"] = e.offset;
      j["end"] = std::string(end_name(e.end));
      break;
    case event_kind::structure:
      j["event"] = "structure";
      j["offset"] = e.offset;
      break;
    case event_kind::skipped:
      j["event"] = "skipped";
      j["offset"] = e.offset;
      j["why"] = std::string(e.text);
      break;
    case event_kind::diagnostic:
      j["event"] = "diagnostic";
      j["offset"] = e.offset;
      j["code"] = std::string(error_name(e.diag->code));
      j["severity"] = e.diag->level == severity::error ? "error" : "warning";
      j["line"] = e.diag->line;
      j["column"] = e.diag->column;
      j["message"] = e.diag->message;
      break;
  }
  if (e.kind != event_kind::diagnostic) j["span"] = {e.span.begin, e.span.end};
  return dump_json(j);
}

whole_characters::whole_characters(decoder::sink out) : out_(std::move(out)) {}

void whole_characters::operator()(const event& e) {
  const bool text = e.kind == event_kind::content || e.kind == event_kind::reasoning ||
                    e.kind == event_kind::reflection || e.kind == event_kind::introspection;
  if (e.kind == event_kind::diagnostic) {  // takes no bytes: a held end stays held
    out_(e);
    return;
  }
  if (!text) {
    flush();
    out_(e);
    return;
  }
  if (held_ && held_e_.kind == e.kind && held_e_.span.end == e.span.begin) {
    text_.append(e.text);
    held_e_.span.end = e.span.end;
  } else {
    flush();
    held_ = true;
    held_e_ = event{.kind = e.kind, .offset = e.offset, .span = e.span};  // no pointers kept
    text_.assign(e.text);
  }
  const std::size_t whole = detail::utf8_whole(text_);
  if (whole == text_.size()) {
    flush();
  } else if (whole > 0) {
    event part = held_e_;
    part.text = std::string_view(text_).substr(0, whole);
    part.span.end = part.span.begin + whole;
    out_(part);
    text_.erase(0, whole);
    held_e_.span.begin += whole;
    held_e_.offset += whole;
  }
}

void whole_characters::flush() {
  if (!held_) return;
  held_ = false;
  held_e_.text = text_;
  if (!text_.empty() || held_e_.span.begin != held_e_.span.end) out_(held_e_);
}

}  // namespace ocml
