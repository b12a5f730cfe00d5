// SPDX-License-Identifier: Apache-2.0
// Reading a chat completions request: each field the server honours is checked here, in the
// order OpenAI documents them, and refused with the field's name when it cannot be served.
#include "runtime/serve/request.hpp"

#include <array>
#include <cmath>
#include <string>
#include <utility>

namespace ocml::serve {

namespace {

// Sampling fields passed on to the engine as they are, with the range each must be in.
struct sampling_field {
  const char* name;
  double low, high;
  bool integer;
};
constexpr std::array kSampling{
    sampling_field{"temperature", 0.0, 2.0, false},
    sampling_field{"top_p", 0.0, 1.0, false},
    sampling_field{"presence_penalty", -2.0, 2.0, false},
    sampling_field{"frequency_penalty", -2.0, 2.0, false},
    sampling_field{"seed", -9.2e18, 9.2e18, true},
    // vLLM's and SGLang's extensions, passed on the same way.
    sampling_field{"top_k", -1.0, 1e9, true},
    sampling_field{"min_p", 0.0, 1.0, false},
    sampling_field{"repetition_penalty", 0.0, 100.0, false},
};

constexpr std::size_t kMaxStops = 16;           // OpenAI allows 4; vLLM more
constexpr std::size_t kMaxStopBytes = 1024;     // one stop string
constexpr std::size_t kMaxTokensCap = 1 << 24;  // far beyond any context window

api_error bad(std::string message, std::string param) {
  return {.message = std::move(message), .param = std::move(param)};
}

bool read_count(const json& body, const char* key, std::size_t& out, api_error& err) {
  const auto it = body.find(key);
  if (it == body.end() || it->is_null()) return true;
  if (!it->is_number_integer() || it->get<std::int64_t>() < 1 ||
      it->get<std::int64_t>() > static_cast<std::int64_t>(kMaxTokensCap)) {
    err = bad(std::string(key) + " must be an integer from 1 to " + std::to_string(kMaxTokensCap),
              key);
    return false;
  }
  out = it->get<std::size_t>();
  return true;
}

bool read_stop(const json& body, std::vector<std::string>& out, api_error& err) {
  const auto it = body.find("stop");
  if (it == body.end() || it->is_null()) return true;
  std::vector<const json*> items;
  if (it->is_string()) {
    items.push_back(&*it);
  } else if (it->is_array() && it->size() <= kMaxStops) {
    for (const auto& s : *it) items.push_back(&s);
  } else {
    err = bad(
        "stop must be a string or an array of at most " + std::to_string(kMaxStops) + " strings",
        "stop");
    return false;
  }
  for (const json* s : items) {
    if (!s->is_string() || s->get_ref<const std::string&>().empty() ||
        s->get_ref<const std::string&>().size() > kMaxStopBytes) {
      err = bad("each stop must be a non-empty string of at most " + std::to_string(kMaxStopBytes) +
                    " bytes",
                "stop");
      return false;
    }
    out.push_back(s->get<std::string>());
  }
  return true;
}

bool read_sampling(const json& body, json& out, api_error& err) {
  for (const auto& f : kSampling) {
    const auto it = body.find(f.name);
    if (it == body.end() || it->is_null()) continue;
    const bool ok = f.integer ? it->is_number_integer() : it->is_number();
    const double v = ok ? it->get<double>() : 0.0;
    if (!ok || !std::isfinite(v) || v < f.low || v > f.high) {
      err = bad(std::string(f.name) + " must be " + (f.integer ? "an integer" : "a number") +
                    " from " + json(f.low).dump() + " to " + json(f.high).dump(),
                f.name);
      return false;
    }
    out[f.name] = *it;
  }
  return true;
}

// tool_choice: "auto" and "none" are honoured; forcing a call is refused (the engine's
// sampling is not constrained, so a forced call could not be kept).
bool read_tool_choice(const json& body, bool& none, api_error& err) {
  const auto it = body.find("tool_choice");
  if (it == body.end() || it->is_null() || *it == "auto") return true;
  if (*it == "none") {
    none = true;
    return true;
  }
  err = bad("tool_choice " + it->dump() +
                " is not supported: ocml serve cannot force a call (the engine's sampling is "
                "not constrained); use \"auto\" or \"none\"",
            "tool_choice");
  return false;
}

bool read_unsupported(const json& body, api_error& err) {
  if (const auto n = body.find("n"); n != body.end() && !n->is_null() && *n != 1) {
    err = bad("n must be 1: ocml serve returns one choice", "n");
    return false;
  }
  if (const auto l = body.find("logprobs"); l != body.end() && l->is_boolean() && l->get<bool>()) {
    err = bad("logprobs are not supported", "logprobs");
    return false;
  }
  if (const auto r = body.find("response_format");
      r != body.end() && !r->is_null() && !(r->is_object() && r->value("type", "") == "text")) {
    err =
        bad("response_format other than {\"type\": \"text\"} is not supported (the engine's "
            "sampling is not constrained)",
            "response_format");
    return false;
  }
  return true;
}

}  // namespace

std::string error_body(const api_error& e) {
  const json body = {{"error",
                      {{"message", e.message},
                       {"type", e.type},
                       {"param", e.param.empty() ? json(nullptr) : json(e.param)},
                       {"code", e.code.empty() ? json(nullptr) : json(e.code)}}}};
  return dump_json(body);
}

answer refuse(int status, std::string message, std::string param) {
  return {status,
          error_body({.status = status, .message = std::move(message), .param = std::move(param)})};
}

bool read_chat_request(std::string_view text, const serve_options& options, chat_request& out,
                       api_error& err) {
  auto parsed = parse_json_text(text);
  if (!parsed) {
    err = bad("the body is not JSON: " + parsed.error().to_string(), "");
    return false;
  }
  json& body = *parsed;
  if (!body.is_object()) {
    err = bad("the body must be a JSON object", "");
    return false;
  }
  const auto messages = body.find("messages");
  if (messages == body.end() || !messages->is_array() || messages->empty()) {
    err = bad("messages must be a non-empty array", "messages");
    return false;
  }
  if (const auto m = body.find("model"); m != body.end() && !m->is_null()) {
    if (!m->is_string()) {
      err = bad("model must be a string", "model");
      return false;
    }
    out.model = m->get<std::string>();
    if (!options.model_name.empty() && out.model != options.model_name) {
      err = {.status = 404,
             .message = "The model `" + out.model + "` does not exist: this server serves `" +
                        options.model_name + "`",
             .type = "NotFoundError",
             .param = "model",
             .code = "model_not_found"};
      return false;
    }
  }
  if (const auto s = body.find("stream"); s != body.end() && !s->is_null()) {
    if (!s->is_boolean()) {
      err = bad("stream must be a boolean", "stream");
      return false;
    }
    out.stream = s->get<bool>();
  }
  if (const auto so = body.find("stream_options"); so != body.end() && !so->is_null()) {
    const auto u = so->is_object() ? so->find("include_usage") : so->end();
    if (!so->is_object() || (u != so->end() && !u->is_boolean())) {
      err = bad("stream_options must be an object with a boolean include_usage", "stream_options");
      return false;
    }
    out.include_usage = u != so->end() && u->get<bool>();
  }
  out.max_tokens = options.limits.default_max_tokens;
  if (!read_count(body, "max_tokens", out.max_tokens, err) ||
      !read_count(body, "max_completion_tokens", out.max_tokens, err) ||
      !read_stop(body, out.stop, err) || !read_sampling(body, out.sampling, err) ||
      !read_unsupported(body, err)) {
    return false;
  }
  if (const auto r = body.find("reasoning_effort"); r != body.end() && !r->is_null()) {
    if (!r->is_string() || (*r != "low" && *r != "medium" && *r != "high")) {
      err = bad("reasoning_effort must be \"low\", \"medium\" or \"high\"", "reasoning_effort");
      return false;
    }
    out.reasoning_effort = r->get<std::string>();
  }
  if (const auto k = body.find("chat_template_kwargs");
      k != body.end() && !k->is_null() && !k->is_object()) {
    err = bad("chat_template_kwargs must be an object", "chat_template_kwargs");
    return false;
  }
  if (options.tokens != nullptr && !options.format.is_model() && !out.stop.empty()) {
    err =
        bad("stop strings cannot be honoured with a tokenizer: the engine stops on token IDs "
            "(start ocml serve without --tokenizer to use them)",
            "stop");
    return false;
  }
  if (const auto c = body.find("continue_final_message"); c != body.end() && c->is_boolean() &&
                                                          c->get<bool>() &&
                                                          !body.contains("add_generation_prompt")) {
    out.prefill = true;
  }
  bool tools_none = false;
  if (!read_tool_choice(body, tools_none, err)) return false;
  if (const auto t = body.find("tools"); t != body.end() && !t->is_null()) {
    if (!t->is_array()) {
      err = bad("tools must be an array", "tools");
      return false;
    }
    if (tools_none) {
      body.erase("tools");  // not offered: the model is not told of them
    } else {
      out.tools = *t;
    }
  }
  out.render_text = tools_none ? dump_json(body) : std::string(text);
  return true;
}

}  // namespace ocml::serve
