// Deltas -> JSON texts: OpenAI chat-completion chunks and OpenChatML streaming events.
#include <string>

#include "interchange/simd_json.hpp"
#include "ocml/events.hpp"

namespace ocml {

namespace {

void str(std::string& out, std::string_view s) {
  detail::append_json_string(out, s);
}

void key_str(std::string& out, std::string_view key, std::string_view value) {
  out += ",\"";
  out += key;
  out += "\":";
  str(out, value);
}

void key_num(std::string& out, std::string_view key, std::size_t value) {
  out += ",\"";
  out += key;
  out += "\":";
  out += std::to_string(value);
}

// `"code":...,"severity":...,"message":...,"offset":...,"line":...,"column":...`
void diagnostic_fields(std::string& out, const diagnostic& d) {
  out += "\"code\":";
  str(out, error_name(d.code));
  key_str(out, "severity", d.level == severity::error ? "error" : "warning");
  key_str(out, "message", d.message.empty() ? error_message(d.code) : d.message);
  key_num(out, "offset", d.offset);
  key_num(out, "line", d.line);
  key_num(out, "column", d.column);
}

}  // namespace

// ---- OpenAI chat.completion.chunk ----------------------------------------------------------

openai_chunk_writer::openai_chunk_writer(writer_options options, sink out)
    : opt_(std::move(options)), out_(std::move(out)) {
  head_ = "{\"id\":";
  str(head_, opt_.id);
  head_ += ",\"object\":\"chat.completion.chunk\",\"created\":" + std::to_string(opt_.created);
  key_str(head_, "model", opt_.model);
  head_ += ",\"choices\":[{\"index\":0,\"delta\":";
}

void openai_chunk_writer::chunk(std::string_view delta_json) {
  buf_ = head_;
  buf_ += delta_json;
  buf_ += ",\"finish_reason\":null}]}";
  out_(buf_);
}

void openai_chunk_writer::operator()(const delta& d) {
  if (!role_sent_ && d.kind != delta_kind::diagnostic) {
    role_sent_ = true;
    chunk(R"({"role":"assistant","content":""})");
  }
  std::string body;
  switch (d.kind) {
    case delta_kind::text:
    case delta_kind::reasoning:
      body = d.kind == delta_kind::text ? "{\"content\":" : "{\"reasoning_content\":";
      str(body, d.text);
      body += '}';
      break;
    case delta_kind::call_begin:
      body = "{\"tool_calls\":[{\"index\":" + std::to_string(d.call_index);
      key_str(body, "id", d.call_id);
      body += ",\"type\":\"function\",\"function\":{\"name\":";
      str(body, d.name);
      body += ",\"arguments\":\"\"}}]}";
      break;
    case delta_kind::call_arguments:
      body = "{\"tool_calls\":[{\"index\":" + std::to_string(d.call_index) +
             ",\"function\":{\"arguments\":";
      str(body, d.text);
      body += "}}]}";
      break;
    case delta_kind::diagnostic:
      buf_ = "{\"error\":{";
      diagnostic_fields(buf_, *d.diag);
      buf_ += "}}";
      out_(buf_);
      return;
    default:
      return;  // commentary, flush, begin/end markers: not part of an OpenAI stream
  }
  chunk(body);
}

void openai_chunk_writer::finish(finish_reason reason) {
  if (!role_sent_) {
    role_sent_ = true;
    chunk(R"({"role":"assistant","content":""})");
  }
  buf_ = head_;
  buf_ += "{},\"finish_reason\":";
  str(buf_, finish_reason_name(reason));
  buf_ += "}]}";
  out_(buf_);
}

// ---- OpenChatML events ---------------------------------------------------------------------

ocml_event_writer::ocml_event_writer(sink out) : out_(std::move(out)) {}

void ocml_event_writer::event(std::string_view name, std::size_t message_index,
                              std::string_view rest) {
  buf_ = "{\"event\":\"";
  buf_ += name;
  buf_ += "\",\"message_id\":\"msg_";
  buf_ += std::to_string(message_index);
  buf_ += '"';
  buf_ += rest;
  buf_ += '}';
  out_(buf_);
}

void ocml_event_writer::operator()(const delta& d) {
  std::string rest;
  switch (d.kind) {
    case delta_kind::message_begin:
      open_ = true;
      message_ = d.message_index;
      seen_ = 0;
      return;
    case delta_kind::text:
    case delta_kind::reasoning:
    case delta_kind::commentary: {
      const auto bit = static_cast<unsigned>(1U << static_cast<unsigned>(d.kind));
      seen_ |= bit;
      key_str(rest, "delta", d.text);
      if (d.kind == delta_kind::commentary && !d.intent.empty()) {
        key_str(rest, "intent", d.intent);
      }
      event(d.kind == delta_kind::text        ? "response.delta"
            : d.kind == delta_kind::reasoning ? "response.reasoning_text.delta"
                                              : "response.commentary.delta",
            d.message_index, rest);
      return;
    }
    case delta_kind::flush:
      event("response.delta.flush", d.message_index, {});
      return;
    case delta_kind::call_begin:
      key_str(rest, "call_id", d.call_id);
      key_str(rest, "name", d.name);
      if (!d.recipient.empty()) key_str(rest, "recipient", d.recipient);
      event("response.tool_call.begin", d.message_index, rest);
      return;
    case delta_kind::call_arguments:
      key_str(rest, "call_id", d.call_id);
      key_str(rest, "delta", d.text);
      event("response.tool_call.arguments.delta", d.message_index, rest);
      return;
    case delta_kind::call_end:
      key_str(rest, "call_id", d.call_id);
      event("response.tool_call.done", d.message_index, rest);
      return;
    case delta_kind::message_end: {
      open_ = false;
      key_str(rest, "end", end_name(d.end));
      const bool plain = d.recipient.empty();
      const auto seen = [this](delta_kind k) {
        return (seen_ & (1U << static_cast<unsigned>(k))) != 0;
      };
      if (seen(delta_kind::reasoning) || (plain && d.channel == "analysis")) {
        event("response.reasoning_text.done", d.message_index, rest);
      }
      if (seen(delta_kind::commentary) || (plain && d.channel == "commentary")) {
        event("response.commentary.done", d.message_index, rest);
      }
      if (seen(delta_kind::text) || (plain && d.channel == "final")) {
        event("response.done", d.message_index, rest);
      }
      return;
    }
    case delta_kind::diagnostic:
      rest = ",";
      diagnostic_fields(rest, *d.diag);
      event("error", d.message_index, rest);
      return;
  }
}

void ocml_event_writer::cancel(std::string_view reason) {
  std::string rest;
  key_str(rest, "reason", reason);
  event("response.cancel", message_, rest);
}

void ocml_event_writer::tool_cancel(std::string_view call_id, std::string_view reason) {
  buf_ = "{\"event\":\"tool.cancel\"";
  key_str(buf_, "call_id", call_id);
  key_str(buf_, "reason", reason);
  buf_ += '}';
  out_(buf_);
}

void ocml_event_writer::finish(finish_reason reason) {
  buf_ = "{\"event\":\"response.finish\"";
  key_str(buf_, "finish_reason", finish_reason_name(reason));
  buf_ += '}';
  out_(buf_);
}

}  // namespace ocml
