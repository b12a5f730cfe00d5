// SPDX-License-Identifier: Apache-2.0
// Deltas -> JSON texts: OpenAI chat-completion chunks and OpenChatML streaming events.
#include <charconv>
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

void num(std::string& out, std::size_t value) {
  char digits[24];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
}

void key_num(std::string& out, std::string_view key, std::size_t value) {
  out += ",\"";
  out += key;
  out += "\":";
  num(out, value);
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

// Each chunk is written straight into the reused buffer: no string per token.
void openai_chunk_writer::open() {
  buf_.assign(head_);
}

void openai_chunk_writer::close() {
  buf_ += ",\"finish_reason\":null}]}";
  out_(buf_);
}

void openai_chunk_writer::role() {
  role_sent_ = true;
  open();
  buf_ += R"({"role":"assistant","content":""})";
  close();
}

void openai_chunk_writer::operator()(const delta& d) {
  if (!role_sent_ && d.kind != delta_kind::diagnostic) role();
  switch (d.kind) {
    case delta_kind::text:
    case delta_kind::commentary:  // a preamble: visible text, as in the non-streamed form
    case delta_kind::reasoning: {
      const bool reasoning = d.kind == delta_kind::reasoning;
      std::size_t& last = reasoning ? last_reasoning_ : last_text_;
      open();
      if (!d.block.empty()) {  // 0.1 reflection/introspection: their own keys, not joined
        buf_ += "{\"";
        buf_ += d.block;
        buf_ += "\":";
        str(buf_, d.text);
        buf_ += '}';
        close();
        return;
      }
      buf_ += reasoning ? "{\"reasoning_content\":" : "{\"content\":";
      if (last != kNone && last != d.message_index) {
        // The next message's text: joined with "\n", as the whole response joins them.
        std::string joined = "\n";
        joined += d.text;
        str(buf_, joined);
      } else {
        str(buf_, d.text);
      }
      last = d.message_index;
      buf_ += '}';
      close();
      return;
    }
    case delta_kind::builtin_call:  // the engine's tools: not the client's (decisions 61)
      return;
    case delta_kind::call_begin:
      open();
      buf_ += "{\"tool_calls\":[{\"index\":";
      num(buf_, d.call_index);
      key_str(buf_, "id", d.call_id);
      buf_ += ",\"type\":\"function\",\"function\":{\"name\":";
      str(buf_, d.name);
      buf_ += ",\"arguments\":\"\"}}]}";
      close();
      return;
    case delta_kind::call_arguments:
      open();
      buf_ += "{\"tool_calls\":[{\"index\":";
      num(buf_, d.call_index);
      buf_ += ",\"function\":{\"arguments\":";
      str(buf_, d.text);
      buf_ += "}}]}";
      close();
      return;
    case delta_kind::diagnostic:
      buf_ = "{\"error\":{";
      diagnostic_fields(buf_, *d.diag);
      buf_ += "}}";
      out_(buf_);
      return;
    default:
      return;  // commentary, flush, begin/end markers: not part of an OpenAI stream
  }
}

void openai_chunk_writer::finish(finish_reason reason) {
  if (!role_sent_) role();
  open();
  buf_ += "{},\"finish_reason\":";
  str(buf_, finish_reason_name(reason));
  buf_ += "}]}";
  out_(buf_);
}

// ---- OpenChatML events ---------------------------------------------------------------------

ocml_event_writer::ocml_event_writer(sink out) : out_(std::move(out)) {}

// `{"event":"NAME","message_id":"msg_N"` into the reused buffer; end() closes and writes it.
void ocml_event_writer::begin(std::string_view name, std::size_t message_index) {
  buf_.assign("{\"event\":\"");
  buf_ += name;
  buf_ += "\",\"message_id\":\"msg_";
  num(buf_, message_index);
  buf_ += '"';
}

void ocml_event_writer::end() {
  buf_ += '}';
  out_(buf_);
}

void ocml_event_writer::operator()(const delta& d) {
  switch (d.kind) {
    case delta_kind::message_begin:
      message_ = d.message_index;
      seen_ = 0;
      return;
    case delta_kind::text:
    case delta_kind::reasoning:
    case delta_kind::commentary:
      seen_ |= 1U << static_cast<unsigned>(d.kind);
      begin(d.kind == delta_kind::text        ? "response.delta"
            : d.kind == delta_kind::reasoning ? "response.reasoning_text.delta"
                                              : "response.commentary.delta",
            d.message_index);
      key_str(buf_, "delta", d.text);
      if (d.kind == delta_kind::commentary && !d.intent.empty()) key_str(buf_, "intent", d.intent);
      end();
      return;
    case delta_kind::flush:
      begin("response.delta.flush", d.message_index);
      end();
      return;
    case delta_kind::builtin_call:
      begin("response.builtin_tool_call.delta", d.message_index);
      key_str(buf_, "recipient", d.recipient);
      key_str(buf_, "delta", d.text);
      end();
      return;
    case delta_kind::call_begin:
      begin("response.tool_call.begin", d.message_index);
      key_str(buf_, "call_id", d.call_id);
      key_str(buf_, "name", d.name);
      if (!d.recipient.empty()) key_str(buf_, "recipient", d.recipient);
      end();
      return;
    case delta_kind::call_arguments:
      begin("response.tool_call.arguments.delta", d.message_index);
      key_str(buf_, "call_id", d.call_id);
      key_str(buf_, "delta", d.text);
      end();
      return;
    case delta_kind::call_end:
      begin("response.tool_call.done", d.message_index);
      key_str(buf_, "call_id", d.call_id);
      end();
      return;
    case delta_kind::message_end: {
      const bool plain = d.recipient.empty();
      const auto done = [&](delta_kind k, std::string_view channel, std::string_view name) {
        if ((seen_ & (1U << static_cast<unsigned>(k))) == 0 && !(plain && d.channel == channel)) {
          return;
        }
        begin(name, d.message_index);
        key_str(buf_, "end", end_name(d.end));
        end();
      };
      done(delta_kind::reasoning, "analysis", "response.reasoning_text.done");
      done(delta_kind::commentary, "commentary", "response.commentary.done");
      done(delta_kind::text, "final", "response.done");
      return;
    }
    case delta_kind::diagnostic:
      begin("error", d.message_index);
      buf_ += ',';
      diagnostic_fields(buf_, *d.diag);
      end();
      return;
  }
}

void ocml_event_writer::cancel(std::string_view reason) {
  begin("response.cancel", message_);
  key_str(buf_, "reason", reason);
  end();
}

void ocml_event_writer::tool_cancel(std::string_view call_id, std::string_view reason) {
  buf_ = "{\"event\":\"tool.cancel\"";
  key_str(buf_, "call_id", call_id);
  key_str(buf_, "reason", reason);
  end();
}

void ocml_event_writer::finish(finish_reason reason) {
  buf_ = "{\"event\":\"response.finish\"";
  key_str(buf_, "finish_reason", finish_reason_name(reason));
  end();
}

}  // namespace ocml
