// SPDX-License-Identifier: Apache-2.0
// `ocml serve`: the routes, the limits, and the log. cpp-httplib serves; each chat request is
// an exchange (a worker generating, this thread sending).
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "ocml/serve.hpp"
#include "runtime/serve/assets.hpp"
#include "runtime/serve/chat.hpp"
#include "runtime/serve/exchange.hpp"
#include "runtime/serve/playground.hpp"
#include "runtime/serve/request.hpp"
#include "runtime/serve/tokenize.hpp"

namespace ocml {

namespace {

using serve::answer;
using serve::api_error;
using serve::exchange;
using clock_type = std::chrono::steady_clock;

constexpr auto kKeepAlive = std::chrono::seconds(1);  // silence before a ": keep-alive" comment
constexpr auto kCancelWait = std::chrono::milliseconds(50);  // polls while a cancel lands
constexpr const char* kChatPath = "/v1/chat/completions";

void send(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body, "application/json");
}

void send(httplib::Response& res, const api_error& e) {
  send(res, e.status, serve::error_body(e));
}

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

// What went wrong with a generation that produced nothing to send, as an HTTP error.
std::optional<api_error> failure_of(const exchange& ex, const serve::chat_outcome& c,
                                    std::chrono::seconds timeout) {
  if (ex.timed_out()) {
    return api_error{.status = 504,
                     .message = "the request ran past the server's limit of " +
                                std::to_string(timeout.count()) + " s and was cancelled",
                     .type = "timeout"};
  }
  if (c.finish == finish_reason::cancelled) {
    return api_error{.status = 499, .message = "cancelled", .type = "cancelled"};
  }
  if (const auto d = serve::engine_failure(c)) {
    return api_error{.status = 502,
                     .message = "the engine failed: " + d->to_string(),
                     .type = "engine_error",
                     .code = std::string(error_name(d->code))};
  }
  return std::nullopt;
}

}  // namespace

struct chat_server::impl {
  explicit impl(serve_options options) : o(std::move(options)) {
    // One engine request per chat request, over connections kept alive between them.
    if (!o.engine.connections) {
      o.engine.connections = std::make_shared<http_connections>(o.limits.max_concurrency);
    }
    served = o.model_name.empty() ? o.format.name() : o.model_name;
    started = static_cast<std::int64_t>(std::time(nullptr));
    std::random_device rd;
    salt = (std::uint64_t{rd()} << 32) ^ rd();
  }

  serve_options o;
  httplib::Server http;
  std::string served;
  std::int64_t started = 0;
  std::uint64_t salt = 0;
  int port = -1;
  std::atomic<std::size_t> active{0};
  std::atomic<std::uint64_t> requests{0};
  std::mutex live_m;
  std::set<exchange*> live;  // every exchange running, for stop()

  void log(const std::string& line) const {
    if (o.log) {
      o.log(line);
    } else {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
  }

  std::string next_id() {
    char buf[40];
    std::snprintf(
        buf, sizeof buf, "chatcmpl-%016llx",
        static_cast<unsigned long long>(salt ^ (requests.fetch_add(1) * 0x9e3779b97f4a7c15ULL)));
    return buf;
  }

  void log_chat(const std::string& what, int status, const exchange* ex,
                const serve::chat_outcome* c, std::size_t warnings,
                clock_type::time_point t0) const {
    std::ostringstream s;
    s << what << ' ' << status;
    if (ex != nullptr) s << (ex->request().stream ? " stream" : " whole");
    if (c != nullptr) {
      s << " finish="
        << (c->finish == finish_reason::none ? "none" : finish_reason_name(c->finish));
      if (c->prompt_tokens) s << " prompt_tokens=" << *c->prompt_tokens;
      if (c->completion_tokens) s << " completion_tokens=" << *c->completion_tokens;
      s << " completion_bytes=" << c->completion_bytes;
      std::size_t diag = 0;
      for (const auto& d : c->diagnostics) diag += d.level == severity::error ? 1 : 0;
      if (diag != 0) s << " errors=" << diag;
    }
    if (warnings != 0) s << " render_warnings=" << warnings;
    char ms[32];
    std::snprintf(ms, sizeof ms, " %.1fms", ms_since(t0));
    s << ms;
    log(s.str());
  }

  void enlist(exchange* ex) {
    const std::lock_guard lock(live_m);
    live.insert(ex);
  }
  void delist(exchange* ex) {
    const std::lock_guard lock(live_m);
    live.erase(ex);
  }

  void chat(const httplib::Request& req, httplib::Response& res);
  void stream(const httplib::Request& req, httplib::Response& res,
              const std::shared_ptr<exchange>& ex, std::string first, std::shared_ptr<void> slot,
              std::size_t warnings, clock_type::time_point t0);
  void routes();
};

void chat_server::impl::chat(const httplib::Request& req, httplib::Response& res) {
  const auto t0 = clock_type::now();
  const std::string id = next_id();
  res.set_header("x-request-id", id);
  // A slot of max_concurrency, held until the response is sent (a stream's end).
  if (active.fetch_add(1) >= o.limits.max_concurrency) {
    active.fetch_sub(1);
    send(res, {.status = 429,
               .message = "too many requests at once (the server's limit is " +
                          std::to_string(o.limits.max_concurrency) + "); retry later",
               .type = "rate_limit_error"});
    log_chat(req.method + ' ' + req.path, res.status, nullptr, nullptr, 0, t0);
    return;
  }
  std::shared_ptr<void> slot(nullptr, [this](void*) { active.fetch_sub(1); });
  serve::chat_request r;
  api_error err;
  std::string prompt;
  std::vector<diagnostic> warnings;
  if (!serve::read_chat_request(req.body, o, r, err) ||
      !serve::render_prompt(o, r, prompt, warnings, err)) {
    send(res, err);
    log_chat(req.method + ' ' + req.path, res.status, nullptr, nullptr, 0, t0);
    return;
  }
  const std::string model = r.model.empty() ? served : r.model;
  const auto created = static_cast<std::int64_t>(std::time(nullptr));
  auto ex = std::make_shared<exchange>(o, std::move(r), std::move(prompt), id, model, created);
  enlist(ex.get());
  const auto deadline = t0 + o.limits.request_timeout;
  // Until the model writes something, a failure is still an HTTP error (502, 504).
  std::string first;
  bool done = false;
  for (;;) {
    const auto now = clock_type::now();
    if (now >= deadline && !ex->timed_out()) ex->cancel(true);
    done = ex->take(first, ex->timed_out() ? now + kCancelWait : deadline);
    if (done || (ex->request().stream && !first.empty())) break;
  }
  if (ex->request().stream && !(done && !ex->began())) {
    stream(req, res, ex, std::move(first), std::move(slot), warnings.size(), t0);
    return;
  }
  const serve::chat_outcome& c = ex->finish();
  delist(ex.get());
  if (const auto f = failure_of(*ex, c, o.limits.request_timeout)) {
    send(res, *f);
  } else {
    json body = {{"id", id},
                 {"object", "chat.completion"},
                 {"created", created},
                 {"model", model},
                 {"choices",
                  {{{"index", 0},
                    {"message", c.message},
                    {"logprobs", nullptr},
                    {"finish_reason", serve::openai_finish(c.finish)}}}}};
    if (json u = serve::usage_json(c); !u.is_null()) body["usage"] = std::move(u);
    send(res, 200, dump_json(body));
  }
  log_chat(req.method + ' ' + req.path, res.status, ex.get(), &c, warnings.size(), t0);
}

void chat_server::impl::stream(const httplib::Request& req, httplib::Response& res,
                               const std::shared_ptr<exchange>& ex, std::string first,
                               std::shared_ptr<void> slot, std::size_t warnings,
                               clock_type::time_point t0) {
  const auto deadline = t0 + o.limits.request_timeout;
  auto pending = std::make_shared<std::string>();
  *pending = std::move(first);
  res.status = 200;
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream",
      [this, ex, pending, deadline](std::size_t /*offset*/, httplib::DataSink& sink) {
        auto last_write = clock_type::now();
        bool done = false;
        for (;;) {
          if (!pending->empty()) {
            if (!sink.write(pending->data(), pending->size())) {
              ex->cancel(false);  // the client went away
              return false;
            }
            pending->clear();
            last_write = clock_type::now();
          }
          if (done) break;
          const auto now = clock_type::now();
          if (now >= deadline && !ex->timed_out()) ex->cancel(true);
          if (now - last_write >= kKeepAlive) {
            // Silence (the engine thinks, or hangs): a comment the clients skip, and the
            // write that finds out when the client has gone.
            *pending = ": keep-alive\n\n";
            continue;
          }
          done = ex->take(*pending, ex->timed_out() ? now + kCancelWait
                                                    : std::min(deadline, last_write + kKeepAlive));
        }
        const serve::chat_outcome& c = ex->finish();
        if (const auto f = failure_of(*ex, c, o.limits.request_timeout)) {
          pending->append("data: ").append(serve::error_body(*f)).append("\n\n");
        }
        pending->append("data: [DONE]\n\n");
        if (!sink.write(pending->data(), pending->size())) return false;
        sink.done();
        return true;
      },
      [this, ex, slot = std::move(slot), warnings, t0,
       what = req.method + ' ' + req.path](bool /*success*/) {
        ex->cancel(false);
        const serve::chat_outcome& c = ex->finish();
        delist(ex.get());
        log_chat(what, 200, ex.get(), &c, warnings, t0);
      });
}

void chat_server::impl::routes() {
  http.Post(kChatPath,
            [this](const httplib::Request& req, httplib::Response& res) { chat(req, res); });
  http.Get("/health", [](const httplib::Request&, httplib::Response& res) {
    send(res, 200, R"({"status":"ok"})");
  });
  http.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
    const json body = {
        {"object", "list"},
        {"data",
         {{{"id", served}, {"object", "model"}, {"created", started}, {"owned_by", "ocml"}}}}};
    send(res, 200, dump_json(body));
  });
  // The JSON endpoints that answer from the body alone.
  const auto answers = [this](const char* path,
                              serve::answer (*f)(const serve_options&, std::string_view)) {
    http.Post(path, [this, f](const httplib::Request& req, httplib::Response& res) {
      const answer a = f(o, req.body);
      send(res, a.status, a.body);
    });
  };
  answers("/tokenize", &serve::tokenize);
  answers("/detokenize", &serve::detokenize);
  if (o.playground) {
    for (std::size_t i = 0; i < serve::kWebAssetCount; ++i) {
      const serve::web_asset& a = serve::kWebAssets[i];
      const std::string path = std::string_view(a.path) == "/index.html" ? "/" : a.path;
      http.Get(path, [&a](const httplib::Request&, httplib::Response& res) {
        res.set_content(a.body.data(), a.body.size(), a.type);
      });
    }
    http.Get("/ocml/formats", [this](const httplib::Request&, httplib::Response& res) {
      const answer a = serve::playground_formats(o);
      send(res, a.status, a.body);
    });
    answers("/ocml/render", &serve::playground_render);
    answers("/ocml/parse", &serve::playground_parse);
  }
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string message = "no route " + req.method + " " + req.path;
    if (res.status == 413) message = "the request body is larger than the server's limit";
    if (res.status == 400) message = "the request could not be read";
    send(res, {.status = res.status,
               .message = message,
               .type = res.status == 404 ? "NotFoundError" : "invalid_request_error"});
  });
  http.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, const std::exception_ptr& ep) {
        std::string what = "unknown";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        send(res, {.status = 500, .message = "internal error: " + what, .type = "server_error"});
      });
  http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    if (res.has_header("x-request-id")) return;  // a chat request: it logged itself
    char ms[64];
    std::snprintf(ms, sizeof ms, " %d", res.status);
    log(req.method + ' ' + req.path + ms);
  });
}

chat_server::chat_server(serve_options options)
    : impl_(std::make_unique<impl>(std::move(options))) {
  auto& h = impl_->http;
  const auto& l = impl_->o.limits;
  h.set_payload_max_length(l.max_request_bytes);
  h.set_read_timeout(l.client_timeout.count(), 0);
  h.set_write_timeout(l.client_timeout.count(), 0);
  h.set_keep_alive_max_count(1000);
  // Each SSE event is a small write: without TCP_NODELAY, Nagle's algorithm holds one back
  // until the client acknowledges the last, up to its delayed-ACK timer (40 ms on Linux).
  h.set_tcp_nodelay(true);
  const std::size_t threads = l.max_concurrency + 4;  // a few beyond: health, models, 429s
  h.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  impl_->routes();
}

chat_server::~chat_server() {
  stop();
}

result<int> chat_server::bind() {
  auto& i = *impl_;
  if (i.o.port == 0) {
    i.port = i.http.bind_to_any_port(i.o.host);
  } else {
    i.port = i.http.bind_to_port(i.o.host, i.o.port) ? i.o.port : -1;
  }
  if (i.port <= 0) {
    return make_error(error_code::io_error, "cannot listen on " + i.o.host + ":" +
                                                std::to_string(i.o.port) +
                                                " (the port is taken, or the address is not this "
                                                "machine's)");
  }
  return i.port;
}

bool chat_server::listen() {
  auto& i = *impl_;
  if (i.port <= 0) return false;
  i.log("ocml serve: http://" + i.o.host + ":" + std::to_string(i.port) + " serves `" + i.served +
        "` (" + i.o.format.name() + ") in front of " + i.o.engine.endpoint +
        (i.o.tokens != nullptr ? ", with a tokenizer" : ""));
  return i.http.listen_after_bind();
}

void chat_server::stop() {
  if (!impl_) return;
  {
    const std::lock_guard lock(impl_->live_m);
    for (exchange* ex : impl_->live) ex->cancel(false);
  }
  impl_->http.stop();
}

}  // namespace ocml
