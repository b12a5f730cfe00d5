// SPDX-License-Identifier: Apache-2.0
#include "loopback_engine.hpp"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace ocml::test {

namespace {

std::string strip_special_tokens(const std::string& s) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t open = s.find("<|", i);
    const std::size_t close = open == std::string::npos ? open : s.find("|>", open + 2);
    if (close == std::string::npos) {
      out.append(s, i, std::string::npos);
      break;
    }
    out.append(s, i, open - i);
    i = close + 2;
  }
  return out;
}

std::string event(const nlohmann::json& j) {
  return "data: " + j.dump() + "\n\n";
}

nlohmann::json chunk_json(const std::string& text, const nlohmann::json& finish,
                          const nlohmann::json& stop_reason) {
  return {
      {"id", "cmpl-loopback"},
      {"object", "text_completion"},
      {"model", "loopback"},
      {"choices",
       {{{"index", 0}, {"text", text}, {"finish_reason", finish}, {"stop_reason", stop_reason}}}}};
}

// max_tokens (bytes of text, or IDs) and the scripted finish and stop_reason.
template <typename Seq>
void limit(Seq& out, const engine_reply& r, const nlohmann::json& body, nlohmann::json& finish,
           nlohmann::json& stop_reason) {
  const std::size_t max_tokens = body.value("max_tokens", std::size_t{0});
  if (max_tokens != 0 && out.size() > max_tokens) {
    out.resize(max_tokens);
    finish = "length";
    stop_reason = nullptr;
  }
  if (r.no_finish) finish = nullptr;
  if (!r.report_stop) stop_reason = nullptr;
}

// The finish event and [DONE], unless the reply is cut.
void end_stream(const engine_reply& r, const nlohmann::json& finish,
                const nlohmann::json& stop_reason, httplib::DataSink& sink) {
  if (!r.cut) {
    const std::string last = event(chunk_json("", finish, stop_reason)) + "data: [DONE]\n\n";
    sink.write(last.data(), last.size());
  }
  sink.done();
}

}  // namespace

struct loopback_engine::impl {
  httplib::Server server;
  std::thread thread;
  int port = 0;
  mutable std::mutex mu;
  std::vector<nlohmann::json> requests;
  std::vector<engine_reply> replies;
  std::size_t max_requests = 0;
  std::atomic<bool> stopping{false};
  std::atomic<bool> cycling{false};
  std::atomic<std::size_t> count{0};
  std::atomic<std::size_t> hostile_done{0};

  // Serves a hostile reply for up to r.hostile_ms: false as soon as the client is gone.
  bool hostile(const engine_reply& r, httplib::DataSink& sink) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(r.hostile_ms);
    const std::string body =
        r.status != 200 ? r.text
                        : event(chunk_json(r.text.empty() ? "x" : r.text, nullptr, nullptr));
    while (!stopping && std::chrono::steady_clock::now() < until) {
      if (r.keep_alive && !sink.write(": keep-alive\n\n", 14)) return false;
      if (r.endless && !sink.write(body.data(), body.size())) return false;
      if (!r.endless) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!stopping) ++hostile_done;
    sink.done();
    return true;
  }

  // Token mode: IDs cut at the first stop ID, `chunk` IDs per event.
  static void token_reply(const engine_reply& r, const nlohmann::json& body,
                          httplib::Response& res) {
    std::vector<std::uint32_t> ids = r.ids;
    nlohmann::json finish = "stop", stop_reason = nullptr;
    const auto stops = body.value("stop_token_ids", std::vector<std::uint32_t>{});
    const auto hit = std::find_first_of(ids.begin(), ids.end(), stops.begin(), stops.end());
    if (hit != ids.end()) {
      stop_reason = *hit;
      ids.erase(hit + (r.stop_token_in_output ? 1 : 0), ids.end());
    }
    limit(ids, r, body, finish, stop_reason);
    res.set_chunked_content_provider(
        "text/event-stream", [ids, r, finish, stop_reason](std::size_t, httplib::DataSink& sink) {
          const std::size_t step = std::max<std::size_t>(r.chunk, 1);
          for (std::size_t i = 0; i < ids.size(); i += step) {
            const auto end =
                ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), i + step));
            nlohmann::json c = chunk_json(r.no_token_ids ? "x" : "", nullptr, nullptr);
            if (!r.no_token_ids) {
              c["choices"][0]["token_ids"] =
                  std::vector<std::uint32_t>(ids.begin() + static_cast<std::ptrdiff_t>(i), end);
            }
            const std::string e = event(c);
            if (!sink.write(e.data(), e.size())) return false;
          }
          end_stream(r, finish, stop_reason, sink);
          return true;
        });
  }

  void handle(const httplib::Request& req, httplib::Response& res) {
    nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
    const std::size_t n = ++count;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!cycling || requests.size() < 64) requests.push_back(body);
    }
    if (cycling && !replies.empty() && !body.is_discarded()) {
      reply(replies[(n - 1) % replies.size()], body, res);
      return;
    }
    if (n > max_requests || n > replies.size() || body.is_discarded()) {
      res.status = n > max_requests ? 429 : 500;
      res.set_content(R"({"error":{"message":"loopback: no scripted reply for request )" +
                          std::to_string(n) + "\"}}",
                      "application/json");
      return;
    }
    reply(replies[n - 1], body, res);
  }

  void reply(const engine_reply& r, const nlohmann::json& body, httplib::Response& res) {
    if (r.silent || r.keep_alive || r.endless) {
      res.status = r.status;
      res.set_chunked_content_provider(
          r.status == 200 ? "text/event-stream" : "application/json",
          [this, r](std::size_t, httplib::DataSink& sink) { return hostile(r, sink); });
      return;
    }
    if (r.status != 200) {
      res.status = r.status;
      res.set_content(R"({"error":{"message":"scripted failure","type":"test"}})",
                      "application/json");
      return;
    }
    if (body.contains("return_token_ids")) {
      token_reply(r, body, res);
      return;
    }
    std::string text = r.strip_special ? strip_special_tokens(r.text) : r.text;
    nlohmann::json finish = "stop", stop_reason = nullptr;
    std::size_t cut = std::string::npos;
    for (const auto& s : body.value("stop", nlohmann::json::array())) {
      const std::size_t at = text.find(s.get<std::string>());
      if (at < cut) {
        cut = at;
        stop_reason = s;
      }
    }
    if (cut != std::string::npos) text.resize(cut);
    limit(text, r, body, finish, stop_reason);
    res.set_chunked_content_provider(
        "text/event-stream", [text, r, finish, stop_reason](std::size_t, httplib::DataSink& sink) {
          for (std::size_t i = 0, end = 0; i < text.size(); i = end) {
            // Like a real engine, never split a UTF-8 character between two events.
            end = std::min(text.size(), i + std::max<std::size_t>(r.chunk, 1));
            while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
              ++end;
            }
            if (r.delay_ms != 0) std::this_thread::sleep_for(std::chrono::milliseconds(r.delay_ms));
            const std::string e = event(chunk_json(text.substr(i, end - i), nullptr, nullptr));
            if (!sink.write(e.data(), e.size())) return false;
          }
          end_stream(r, finish, stop_reason, sink);
          return true;
        });
  }
};

loopback_engine::loopback_engine(std::vector<engine_reply> replies, std::size_t max_requests)
    : impl_(std::make_unique<impl>()) {
  impl_->replies = std::move(replies);
  impl_->max_requests = max_requests;
  impl_->server.set_read_timeout(5, 0);
  impl_->server.set_write_timeout(5, 0);
  impl_->server.set_tcp_nodelay(true);  // an event a write, as engines stream them
  impl_->server.Post(
      "/v1/completions",
      [this](const httplib::Request& req, httplib::Response& res) { impl_->handle(req, res); });
  impl_->port = impl_->server.bind_to_any_port("127.0.0.1");
  impl_->thread = std::thread([this] { impl_->server.listen_after_bind(); });
  // stop() before the server runs would be lost (and wait() would block): wait for it.
  for (int i = 0; i < 5000 && !impl_->server.is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

loopback_engine::~loopback_engine() {
  stop();
  wait();
}

int loopback_engine::port() const {
  return impl_->port;
}
std::string loopback_engine::url() const {
  return "http://127.0.0.1:" + std::to_string(port());
}

void loopback_engine::cycle() {
  impl_->cycling = true;
}

std::size_t loopback_engine::served() const {
  return impl_->count.load();
}

std::size_t loopback_engine::hostile_completed() const {
  return impl_->hostile_done.load();
}

std::vector<nlohmann::json> loopback_engine::requests() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->requests;
}

void loopback_engine::wait() {
  if (impl_->thread.joinable()) impl_->thread.join();
}

void loopback_engine::stop() {
  impl_->stopping = true;
  impl_->server.stop();
}

}  // namespace ocml::test
