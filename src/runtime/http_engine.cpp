// SPDX-License-Identifier: Apache-2.0
// The OpenAI-compatible completions client: one streaming POST per request, read as SSE.
#include "ocml/http_engine.hpp"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

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

// Whether a response still open 1 s after its [DONE] (steady-clock ticks, 0: not yet) should
// be cut off.
bool lingers(std::int64_t done_at) {
  if (done_at == 0) return false;
  const auto since = std::chrono::steady_clock::now().time_since_epoch().count() - done_at;
  return since >
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::seconds(1))
             .count();
}

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

struct http_connections::impl {
  std::size_t max_idle = 0;
  mutable std::mutex m;
  std::unordered_map<std::string, std::vector<std::unique_ptr<httplib::Client>>> idle;
  std::size_t count = 0;

  std::unique_ptr<httplib::Client> take(const std::string& origin) {
    const std::lock_guard lock(m);
    auto& list = idle[origin];
    if (list.empty()) return nullptr;
    auto c = std::move(list.back());
    list.pop_back();
    --count;
    return c;
  }
  void give(const std::string& origin, std::unique_ptr<httplib::Client> c) {
    const std::lock_guard lock(m);
    if (count >= max_idle) return;  // closed as it goes out of scope
    idle[origin].push_back(std::move(c));
    ++count;
  }
};

http_connections::http_connections(std::size_t max_idle) : impl_(std::make_unique<impl>()) {
  impl_->max_idle = max_idle;
}
http_connections::~http_connections() = default;

std::size_t http_connections::idle() const {
  const std::lock_guard lock(impl_->m);
  return impl_->count;
}

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

  http_connections::impl* pool = opt_.connections ? opt_.connections->impl_.get() : nullptr;
  std::unique_ptr<httplib::Client> pooled = pool != nullptr ? pool->take(origin_) : nullptr;
  if (!pooled) pooled = std::make_unique<httplib::Client>(origin_);
  httplib::Client& client = *pooled;
  if (!client.is_valid()) return engine_error("invalid endpoint " + opt_.endpoint);
  client.set_keep_alive(pool != nullptr);
  client.set_connection_timeout(opt_.connect_timeout);
  client.set_read_timeout(opt_.read_timeout);
  // The request goes out as two writes (headers, then the body): with Nagle's algorithm the
  // second waits for the engine to acknowledge the first, up to its delayed-ACK timer.
  client.set_tcp_nodelay(true);

  model_finish finish;
  finish.reason = engine_stop::eof;  // until the engine gives a finish reason
  bool finished = false, done = false, too_long = false;
  // When [DONE] came (steady clock ticks), for the watcher: an engine that holds the response
  // open after it is cut off, as it was when [DONE] ended the read.
  std::atomic<std::int64_t> done_at{0};
  std::atomic<bool> cancelled{false};  // set by the sink's thread or the watcher
  std::size_t received = 0;            // bytes of the response body
  int status = 0;
  std::string error_body, failure;
  detail::sse_parser sse([&](std::string_view data) {
    if (done) return false;  // events after [DONE]: the stream is over, whatever follows
    if (data == "[DONE]") {
      done = true;
      done_at = std::chrono::steady_clock::now().time_since_epoch().count();
      // With a pool, read on to the response's end, so the connection can be reused (the
      // watcher cuts off an engine that holds it open); without one, stop here.
      return pool != nullptr;
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
  // The watcher sleeps on a condition variable, so the request's end wakes it at once (a
  // plain sleep made every request wait out the rest of the watcher's 20 ms).
  std::mutex watch_m;
  std::condition_variable watch_cv;
  bool running = true;
  std::thread watch;
  if (request.cancel != nullptr && request.cancel->cancelled()) return finish;  // not sent
  if (request.cancel != nullptr || pool != nullptr) {
    watch = std::thread([&] {
      // stop() acts on a request in flight: it is repeated until the request has ended, so
      // a cancellation that comes while the request is being set up is not lost.
      std::unique_lock lock(watch_m);
      while (running) {
        if (request.cancel != nullptr && request.cancel->cancelled()) {
          cancelled = true;
          client.stop();
        }
        if (lingers(done_at.load())) client.stop();
        watch_cv.wait_for(lock, std::chrono::milliseconds(20));
      }
    });
  }
  httplib::Response res;
  httplib::Error err = httplib::Error::Success;
  const bool sent = client.send(req, res, err);
  {
    const std::lock_guard lock(watch_m);
    running = false;
  }
  watch_cv.notify_all();
  if (watch.joinable()) watch.join();
  if (pool != nullptr && sent && status == 200 && done && !cancelled.load() && !too_long &&
      failure.empty()) {
    pool->give(origin_, std::move(pooled));  // the response ended cleanly: reuse it
  }
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
