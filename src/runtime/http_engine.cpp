// SPDX-License-Identifier: Apache-2.0
// The OpenAI-compatible completions client: one streaming POST per request, read as SSE.
#include "ocml/http_engine.hpp"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "interchange/json_util.hpp"
#include "runtime/sse.hpp"

namespace ocml {

namespace {

// Splits "http://host:port/path" into origin and the completions path.
void split_endpoint(const std::string& url, std::string& origin, std::string& path) {
  const std::size_t scheme = url.find("://");
  const std::size_t host = scheme == std::string::npos ? 0 : scheme + 3;
  const std::size_t slash = url.find('/', host);
  origin = url.substr(0, slash);
  path = slash == std::string::npos ? "" : url.substr(slash);
  while (!path.empty() && path.back() == '/') path.pop_back();
  const auto ends_with = [&path](std::string_view s) {
    return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  if (ends_with("/completions")) return;
  path += ends_with("/v1") ? "/completions" : "/v1/completions";
}

constexpr std::size_t kMaxErrorBody = 4096;

// What went wrong, in words a user can act on.
std::string cause(httplib::Error e) {
  switch (e) {
    case httplib::Error::Connection:
      return "connection refused (is the engine running at that address?)";
    case httplib::Error::ConnectionTimeout:
      return "timed out connecting";
    case httplib::Error::Read:
      return "the engine went silent past the read timeout, or closed the connection";
    case httplib::Error::Write:
      return "the connection closed while sending the request";
    default:
      return httplib::to_string(e);
  }
}

// An E-ENGINE error: it has no position in any input, and says so by printing none.
diagnostic engine_error(std::string message) {
  diagnostic d = make_error(error_code::engine, std::move(message));
  d.line = 0;
  d.column = 0;
  return d;
}

std::string excerpt(std::string_view s) {
  constexpr std::size_t kMax = 300;
  std::string out(s.substr(0, kMax));
  if (s.size() > kMax) out += "...";
  return out;
}

// The `message` of an OpenAI-style error body, else the body itself.
std::string error_text(std::string_view body) {
  const auto j = detail::try_parse_json(body);
  if (j && j->is_object() && j->contains("error")) {
    const auto& e = (*j)["error"];
    if (e.is_object() && e.contains("message") && e["message"].is_string()) {
      return e["message"].get<std::string>();
    }
    if (e.is_string()) return e.get<std::string>();
  }
  return excerpt(body);
}

}  // namespace

http_engine::http_engine(http_engine_options options) : opt_(std::move(options)) {
  split_endpoint(opt_.endpoint, origin_, path_);
}

json http_engine::body_of(const model_request& request) const {
  json body = json::object();
  if (!opt_.model.empty()) body["model"] = opt_.model;
  body["prompt"] = request.prompt;
  body["stream"] = true;
  if (!request.stop.empty()) body["stop"] = request.stop;
  if (request.max_tokens != 0) body["max_tokens"] = request.max_tokens;
  body["skip_special_tokens"] = false;
  body["spaces_between_special_tokens"] = false;
  return body;
}

result<model_finish> http_engine::complete(const model_request& request,
                                           const chunk_sink& on_text) {
  return post(request, body_of(request), [&](const json& c, std::string&) {
    if (const auto t = c.find("text"); t != c.end() && t->is_string()) {
      const auto& s = t->get_ref<const std::string&>();
      if (!s.empty() && !on_text(s)) return false;
    }
    return true;
  });
}

result<model_finish> http_engine::complete_tokens(const model_request& request,
                                                  const token_sink& on_tokens) {
  json body = body_of(request);
  body["prompt"] = request.prompt_ids;
  if (!request.stop_token_ids.empty()) body["stop_token_ids"] = request.stop_token_ids;
  body["return_token_ids"] = true;
  std::vector<token_id> ids;
  return post(request, std::move(body), [&](const json& c, std::string& failure) {
    const auto t = c.find("token_ids");
    if (t == c.end() || t->is_null()) {
      const auto text = c.find("text");
      if (text != c.end() && text->is_string() && !text->get_ref<const std::string&>().empty()) {
        failure =
            "the engine sent text without token_ids: it does not support "
            "`return_token_ids` (vLLM, SGLang)";
        return false;
      }
      return true;
    }
    ids.clear();
    for (const auto& v : t->is_array() ? *t : json::array({nullptr})) {
      if (!v.is_number_unsigned() || v.get<std::uint64_t>() > UINT32_MAX) {
        failure = "malformed token_ids: " + excerpt(t->dump());
        return false;
      }
      ids.push_back(v.get<token_id>());
    }
    return ids.empty() || on_tokens(ids);
  });
}

result<model_finish> http_engine::post(const model_request& request, json body,
                                       const choice_reader& on_choice) {
  for (const auto& [k, v] : opt_.extra.items()) body[k] = v;

  httplib::Client client(origin_);
  if (!client.is_valid()) return engine_error("invalid endpoint " + opt_.endpoint);
  client.set_connection_timeout(opt_.connect_timeout);
  client.set_read_timeout(opt_.read_timeout);

  model_finish finish;
  finish.reason = engine_stop::eof;  // until the engine gives a finish reason
  bool finished = false, done = false, too_long = false;
  std::atomic<bool> cancelled{false};  // set by the sink's thread or the watcher
  std::size_t received = 0;            // bytes of the response body
  int status = 0;
  std::string error_body, failure;
  detail::sse_parser sse([&](std::string_view data) {
    if (data == "[DONE]") {
      done = true;
      return false;
    }
    const auto parsed = detail::try_parse_json(data);
    if (!parsed || !parsed->is_object()) {
      failure = "malformed event data: " + excerpt(data);
      return false;
    }
    const json& j = *parsed;
    if (j.contains("error")) {
      failure = error_text(data);
      return false;
    }
    const auto choices = j.find("choices");
    if (choices == j.end() || !choices->is_array() || choices->empty()) return true;
    const auto& c = (*choices)[0];
    if (!c.is_object()) return true;
    if (!on_choice(c, failure)) {
      if (failure.empty()) cancelled = true;
      return false;
    }
    if (const auto f = c.find("finish_reason"); f != c.end() && f->is_string()) {
      finished = true;
      finish.reason = *f == "length" ? engine_stop::length : engine_stop::stop;
      if (const auto s = c.find("stop_reason"); s != c.end() && s->is_string()) {
        finish.stop_sequence = s->get<std::string>();
      } else if (s != c.end() && s->is_number_unsigned() && s->get<std::uint64_t>() <= UINT32_MAX) {
        finish.stop_token = s->get<token_id>();  // vLLM: the stop token ID that matched
      }
    }
    return true;
  });

  httplib::Request req;
  req.method = "POST";
  req.path = path_;
  req.headers = {{"Accept", "text/event-stream"}};
  if (!opt_.api_key.empty()) req.headers.emplace("Authorization", "Bearer " + opt_.api_key);
  req.body = dump_json(body);  // text that is not UTF-8 goes as U+FFFD, never an exception
  req.headers.emplace("Content-Type", "application/json");
  req.response_handler = [&status](const httplib::Response& r) {
    status = r.status;
    return true;
  };
  req.content_receiver = [&](const char* data, std::size_t n, std::uint64_t, std::uint64_t) {
    received += n;
    if (received > opt_.max_response_bytes) {
      too_long = true;
      return false;
    }
    if (status != 200) {  // the start of an error body is enough to say what went wrong
      error_body.append(data, std::min(n, kMaxErrorBody - error_body.size()));
      return error_body.size() < kMaxErrorBody;
    }
    return sse.feed(std::string_view(data, n));
  };
  // Cancellation is watched apart from the data: an engine may send none for minutes.
  std::atomic<bool> running{true};
  std::thread watch;
  if (request.cancel != nullptr) {
    if (request.cancel->cancelled()) return finish;  // cancelled before it was sent
    watch = std::thread([&] {
      // stop() acts on a request in flight: it is repeated until the request has ended, so
      // a cancellation that comes while the request is being set up is not lost.
      while (running.load()) {
        if (request.cancel->cancelled()) {
          cancelled = true;
          client.stop();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
  }
  httplib::Response res;
  httplib::Error err = httplib::Error::Success;
  const bool sent = client.send(req, res, err);
  running = false;
  if (watch.joinable()) watch.join();
  if (too_long) {
    diagnostic d =
        engine_error("the response from " + origin_ + path_ + " exceeds max_response_bytes (" +
                     std::to_string(opt_.max_response_bytes) + ")");
    d.code = error_code::limit_exceeded;
    return d;
  }
  if (cancelled.load()) return finish;
  if (status != 0 && status != 200) {
    const char* what = status == 404   ? " (not found: is the endpoint's path right?)"
                       : status == 401 ? " (refused: the API key)"
                       : status == 429 ? " (too many requests)"
                                       : "";
    return engine_error("HTTP " + std::to_string(status) + what + " from " + origin_ + path_ +
                        ": " + error_text(error_body));
  }
  if (!failure.empty()) return engine_error(failure);
  if (!sent && !cancelled && !done && err != httplib::Error::Canceled) {
    return engine_error("cannot complete the request to " + origin_ + path_ + ": " + cause(err));
  }
  if (!finished && !done) {
    return engine_error("the stream from " + origin_ + path_ +
                        " ended without a finish reason or [DONE]");
  }
  if (!finished) finish.reason = engine_stop::eof;
  return finish;
}

}  // namespace ocml
