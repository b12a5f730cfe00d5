// SPDX-License-Identifier: Apache-2.0
// Response events to OpenAI deltas, and a parsed message to the OpenAI chat form.
#include "core/utf8.hpp"
#include "ocml/json.hpp"
#include "ocml/response.hpp"

namespace ocml {

namespace {

bool is_reasoning(std::string_view field) {
  return field == "thinking" || field == "reasoning" || field == "reasoning_content";
}

// A call value as a transform builds it: {"type": "function", "function": {name, arguments}}
// (or {name, arguments} itself).
const json* function_of(const json& call) {
  if (!call.is_object()) return nullptr;
  const auto fn = call.find("function");
  if (fn != call.end() && fn->is_object()) return &*fn;
  // {name, arguments} itself, or Cohere's {tool_name, parameters}.
  return call.contains("name") || call.contains("tool_name") ? &call : nullptr;
}

// A call's name: its text, or, when the model wrote something else there (a number, an
// object), that value's JSON text (never dropped, never an exception).
std::string name_of(const json& fn) {
  auto n = fn.find("name");
  if (n == fn.end()) n = fn.find("tool_name");
  if (n == fn.end() || n->is_null()) return {};
  return n->is_string() ? n->get<std::string>() : n->dump();
}

// The id the model gave a call, or the response's generated id for the call at `index`.
std::string call_id(const json& call, std::size_t index, const call_ids& ids) {
  const auto id = call.is_object() ? call.find("id") : call.end();
  return id != call.end() && id->is_string() ? id->get<std::string>() : ids(index);
}

// What a "call" that is no call (a string kept by lenient parsing, a number) said, as text:
// it goes to the content rather than away (issue 23: it disappeared silently).
std::string text_of(const json& v) {
  return v.is_string() ? v.get<std::string>() : dump_json(v);
}

std::string arguments_text(const json& fn) {
  // Llama 3.x, Phi-4-mini and Cohere write "parameters" where OpenAI writes "arguments".
  auto args = fn.find("arguments");
  if (args == fn.end()) args = fn.find("parameters");
  if (args == fn.end() || args->is_null()) return "{}";
  return args->is_string() ? args->get<std::string>() : dump_json(*args);
}

}  // namespace

result<conversation> response_to_conversation(const json& message, const openai_options& options) {
  return from_openai_json(json{{"messages", json::array({response_to_openai(message, options)})}});
}

json response_to_openai(const json& message, const openai_options& options) {
  const call_ids ids = call_ids::from(options.call_id_seed);
  json out = json::object();
  const auto role = message.find("role");
  out["role"] = role != message.end() && role->is_string() ? *role : json("assistant");
  const auto content = message.find("content");
  out["content"] = content == message.end() ? json(nullptr)
                   : content->is_string()   ? *content
                                            : json(dump_json(*content));
  for (const char* key : {"thinking", "reasoning", "reasoning_content"}) {
    const auto r = message.find(key);
    if (r != message.end() && r->is_string()) {
      out["reasoning_content"] = *r;
      break;
    }
  }
  const auto calls = message.find("tool_calls");
  if (calls != message.end() && calls->is_array() && !calls->empty()) {
    json list = json::array();
    std::string not_calls;
    // A region may hold a list of calls (Mistral's and Granite's JSON arrays): one level of
    // lists is flattened, as the streamed projection does.
    std::vector<const json*> flat;
    for (const auto& c : *calls) {
      if (c.is_array()) {
        for (const auto& x : c) flat.push_back(&x);
      } else {
        flat.push_back(&c);
      }
    }
    for (const json* cp : flat) {
      const json& c = *cp;
      const json* fn = function_of(c);
      if (fn == nullptr) {
        not_calls += text_of(c);
        continue;
      }
      list.push_back({{"id", call_id(c, list.size(), ids)},
                      {"type", "function"},
                      {"function", {{"name", name_of(*fn)}, {"arguments", arguments_text(*fn)}}}});
    }
    if (!list.empty()) out["tool_calls"] = std::move(list);
    if (!not_calls.empty()) {
      out["content"] =
          (out["content"].is_string() ? out["content"].get<std::string>() : "") + not_calls;
    }
  }
  return out;
}

response_projection::response_projection(sink on_delta, const projection_options& options)
    : ids_(call_ids::from(options.call_id_seed)), sink_(std::move(on_delta)) {}

finish_reason response_projection::natural_finish() const noexcept {
  return calls_ > 0 ? finish_reason::tool_calls : finish_reason::stop;
}

void response_projection::text(delta_kind k, std::string_view t, std::size_t offset) {
  // Whole characters only; white space waits for the text after it, as strip() will see it.
  std::string s = held_;
  s.append(t);
  const std::size_t at = held_.empty() ? offset : held_at_;
  const std::size_t whole = detail::utf8_whole(s);
  std::string_view body = std::string_view(s).substr(0, whole);
  if (!started_ && strip_) body = detail::py_strip_ws(body, true, false);
  const std::string_view send = strip_ ? detail::py_strip_ws(body, false, true) : body;
  const auto body_at = static_cast<std::size_t>(body.data() - s.data());
  if (!send.empty()) {
    started_ = true;
    delta d;
    d.kind = k;
    d.offset = at + body_at;
    d.text = send;
    sink_(d);
  }
  held_at_ = at + body_at + send.size();
  held_ = std::string(body.substr(send.size())) + s.substr(whole);
}

void response_projection::call(const json& value, std::size_t offset) {
  if (value.is_array()) {
    for (const auto& v : value) call(v, offset);
    return;
  }
  const json* fn = function_of(value);
  if (fn == nullptr) {
    const std::string t = text_of(value);
    delta d;
    d.kind = delta_kind::text;
    d.offset = offset;
    d.text = t;
    if (!t.empty()) sink_(d);
    return;
  }
  begin_call(call_id(value, calls_, ids_), name_of(*fn), offset);
  end_call(arguments_text(*fn), offset);
}

void response_projection::begin_call(const std::string& id, const std::string& name,
                                     std::size_t offset) {
  delta d;
  d.kind = delta_kind::call_begin;
  d.offset = offset;
  d.call_index = calls_;
  d.call_id = id;
  d.name = name;
  d.recipient = name;
  sink_(d);
}

void response_projection::end_call(const std::string& args, std::size_t offset) {
  delta d;
  d.offset = offset;
  d.call_index = calls_++;
  if (!args.empty()) {
    d.kind = delta_kind::call_arguments;
    d.text = args;
    sink_(d);
  }
  d.kind = delta_kind::call_end;
  d.text = {};
  sink_(d);
}

void response_projection::finish_call(const json& value, std::size_t offset) {
  // The arguments sent so far are the start of the final ones (each parameter typed as the
  // close types it): the rest follows, normally "}".
  const json* fn = function_of(value);
  const std::string args = fn != nullptr ? arguments_text(*fn) : std::string("{}");
  end_call(args.starts_with(streamed_args_) ? args.substr(streamed_args_.size())
           : streamed_args_.empty()         ? args
                                            : std::string("}"),
           offset);
  if (fn == nullptr && !value.is_null()) {
    const std::string t = text_of(value);  // not a call after all: its text, not lost
    delta d;
    d.kind = delta_kind::text;
    d.offset = offset;
    d.text = t;
    if (!t.empty()) sink_(d);
  }
}

void response_projection::operator()(const response_event& e) {
  if (!begun_ && e.kind != response_event_kind::diagnostic) {
    begun_ = true;
    delta d;
    d.kind = delta_kind::message_begin;
    d.channel = "final";
    sink_(d);
  }
  // The prompt's text of a region is sent only if the region goes on into the generation:
  // one the prompt also closed (an empty think block, Seed-OSS's budget note) is the
  // prompt's, as the parse says (issue 26).
  if (e.from_prefix) {
    if (e.kind == response_event_kind::region_chunk && !e.dirty &&
        (e.field == "content" || is_reasoning(e.field))) {
      if (prefix_text_.empty()) prefix_at_ = e.span.begin;
      prefix_text_.append(e.text);
      return;
    }
    if (e.kind == response_event_kind::region_close) {
      prefix_text_.clear();
      held_.clear();
      return;
    }
  } else if (!prefix_text_.empty()) {
    const std::string t = std::move(prefix_text_);
    prefix_text_.clear();
    text(kind_, t, prefix_at_);
  }
  switch (e.kind) {
    case response_event_kind::region_open:
      started_ = false;
      held_.clear();
      strip_ = e.strip;
      kind_ = is_reasoning(e.field) ? delta_kind::reasoning : delta_kind::text;
      if (!e.call_name.empty() && e.field == "tool_calls") {
        // A call whose arguments stream: its id and name first, as OpenAI sends them.
        streaming_call_ = true;
        streamed_args_.clear();
        begin_call(ids_(calls_), std::string(e.call_name), e.span.begin);
        return;
      }
      if (!e.separator.empty() && (e.field == "content" || is_reasoning(e.field))) {
        delta d;  // what `join` puts between this match and the last (issue 26)
        d.kind = kind_;
        d.offset = e.span.begin;
        d.text = e.separator;
        sink_(d);
      }
      return;
    case response_event_kind::region_call:
      // A JSON call whose arguments stream: its id and name first, as OpenAI sends them.
      streaming_call_ = true;
      streamed_args_.clear();
      begin_call(e.text.empty() ? ids_(calls_) : std::string(e.text), std::string(e.call_name),
                 e.span.begin);
      return;
    case response_event_kind::region_item:
      if (streaming_call_ && e.value != nullptr && e.value->is_object()) {
        std::string t = streamed_args_.empty() ? "{" : ",";
        t += dump_json((*e.value)["key"]) + ":" + dump_json((*e.value)["value"]);
        streamed_args_ += t;
        delta d;
        d.kind = delta_kind::call_arguments;
        d.offset = e.span.begin;
        d.call_index = calls_;
        d.text = t;
        sink_(d);
      }
      return;
    case response_event_kind::region_chunk:
      if (!e.dirty && (e.field == "content" || is_reasoning(e.field))) {
        text(kind_, e.text, e.span.begin);
      }
      return;
    case response_event_kind::region_close:
      held_.clear();
      if (streaming_call_) {
        streaming_call_ = false;
        finish_call(e.value != nullptr ? *e.value : json(), e.span.begin);
      } else if (e.field == "tool_calls" && e.value != nullptr) {
        call(*e.value, e.span.begin);
      } else if (e.value != nullptr && e.field == "content" && !e.value->is_string()) {
        const std::string t = dump_json(*e.value);  // structured content: sent whole
        delta d;
        d.kind = delta_kind::text;
        d.offset = e.span.begin;
        d.text = t;
        sink_(d);
      }
      return;
    case response_event_kind::diagnostic: {
      delta d;
      d.kind = delta_kind::diagnostic;
      d.offset = e.span.begin;
      d.diag = e.diag;
      sink_(d);
      return;
    }
    default:
      return;
  }
}

}  // namespace ocml
