// SPDX-License-Identifier: Apache-2.0
// The worker of one chat request and the queue between it and the HTTP thread.
#include "runtime/serve/exchange.hpp"

#include <utility>

namespace ocml::serve {

namespace {

// A delta of what the model wrote (not the frame around it).
bool wrote(delta_kind k) {
  return k == delta_kind::text || k == delta_kind::reasoning || k == delta_kind::commentary ||
         k == delta_kind::call_begin || k == delta_kind::call_arguments ||
         k == delta_kind::builtin_call;
}

bool failed(const chat_outcome& c) {
  return c.finish == finish_reason::error || c.finish == finish_reason::cancelled;
}

std::string sse(std::string_view data) {
  std::string e;
  e.reserve(data.size() + 8);
  e.append("data: ").append(data).append("\n\n");
  return e;
}

}  // namespace

exchange::exchange(const serve_options& o, chat_request r, std::string prompt, std::string id,
                   std::string model, std::int64_t created)
    : o_(o),
      req_(std::move(r)),
      prompt_(std::move(prompt)),
      id_(std::move(id)),
      model_(std::move(model)),
      created_(created) {
  worker_ = std::thread([this] { work(); });
}

exchange::~exchange() {
  cancel_.cancel();
  if (worker_.joinable()) worker_.join();
}

void exchange::push(std::string_view events) {
  {
    const std::lock_guard lock(m_);
    queued_.append(events);
    began_ = true;
  }
  cv_.notify_all();
}

void exchange::work() {
  // Events are held until the model has written something (the role chunk comes at once):
  // until then a failing engine is still an HTTP error, not a stream that says so.
  std::string held;
  std::optional<openai_chunk_writer> writer;
  if (req_.stream) {
    writer.emplace(writer_options{.id = id_, .model = model_, .created = created_},
                   [&held](std::string_view chunk) { held.append(sse(chunk)); });
  }
  chat_outcome c = run_chat(o_, req_, prompt_, cancel_, [&](const delta& d) {
    // Diagnostics are logged, not sent: a lenient decode's warning is no error of the
    // response, and OpenAI's clients fail on an `error` event.
    if (!writer || d.kind == delta_kind::diagnostic) return;
    (*writer)(d);
    if (wrote(d.kind) && !held.empty()) {
      push(held);
      held.clear();
    }
  });
  if (writer) {
    if (c.finish == finish_reason::stop || c.finish == finish_reason::tool_calls ||
        c.finish == finish_reason::length) {
      writer->finish(c.finish);
    }
    if (req_.include_usage && c.finish != finish_reason::error) {
      json u = serve::usage_json(c);
      if (!u.is_null()) {
        const json chunk = {
            {"id", id_},       {"object", "chat.completion.chunk"}, {"created", created_},
            {"model", model_}, {"choices", json::array()},          {"usage", std::move(u)}};
        held.append(sse(dump_json(chunk)));
      }
    }
    // An answer that ended well is sent even when empty; a failure with nothing written is
    // left to the HTTP status.
    if (!held.empty() && (began() || !failed(c))) push(held);
  }
  {
    const std::lock_guard lock(m_);
    outcome_ = std::move(c);
    done_ = true;
  }
  cv_.notify_all();
}

bool exchange::take(std::string& out, clock::time_point until) {
  std::unique_lock lock(m_);
  cv_.wait_until(lock, until, [this] { return done_ || !queued_.empty(); });
  out.append(queued_);
  queued_.clear();
  return done_;
}

bool exchange::began() {
  const std::lock_guard lock(m_);
  return began_;
}

void exchange::cancel(bool timed_out) {
  if (timed_out) timed_out_ = true;
  cancel_.cancel();
}

const chat_outcome& exchange::finish() {
  if (worker_.joinable()) worker_.join();
  return outcome_;
}

}  // namespace ocml::serve
