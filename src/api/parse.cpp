// SPDX-License-Identifier: Apache-2.0
// One-shot parse: the streaming decoder fed everything at once, events collected.
#include "ocml/decoder.hpp"

namespace ocml {

bool parse_result::ok() const noexcept {
  for (const auto& d : diagnostics) {
    if (d.level == severity::error) return false;
  }
  return true;
}

void collector::operator()(const event& e) {
  auto& msgs = result_.conversation.messages;
  switch (e.kind) {
    case event_kind::document_header:
      result_.conversation.header = *e.header;
      break;
    case event_kind::message_begin:
      msgs.push_back(*e.message);
      open_ = true;
      break;
    case event_kind::content:
      if (open_) msgs.back().content.append(e.text);
      break;
    case event_kind::message_end:
      if (open_) msgs.back().end = e.end;
      open_ = false;
      break;
    case event_kind::diagnostic:
      result_.diagnostics.push_back(*e.diag);
      break;
    case event_kind::reasoning:
      if (open_) msgs.back().reasoning.append(e.text);
      break;
    case event_kind::reflection:
      if (open_) msgs.back().reflection.append(e.text);
      break;
    case event_kind::introspection:
      if (open_) msgs.back().introspection.append(e.text);
      break;
    case event_kind::document_part:
      result_.conversation.document.push_back(*e.part);
      break;
    case event_kind::tools:
      result_.conversation.tools = *e.tools;
      break;
    case event_kind::structure:
    case event_kind::skipped:
    case event_kind::call_begin:  // progress: the tool_call event has the whole call
    case event_kind::call_arguments:
      break;
    case event_kind::tool_call:
      if (open_) msgs.back().tool_calls.push_back(*e.call);
      break;
  }
}

parse_result parse(std::string_view text, const decoder_options& options) {
  collector c;
  decoder_options o = options;
  o.stream_arguments = false;  // one shot: nobody listens to a call's progress
  decoder d(o, [&c](const event& e) { c(e); });
  d.push(text);
  d.finish();
  return c.take();
}

}  // namespace ocml
