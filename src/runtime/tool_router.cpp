// SPDX-License-Identifier: Apache-2.0
// The tool router: lookup, routing rules, argument validation, a bounded pool, deadlines.
#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <ctime>
#include <map>
#include <mutex>
#include <thread>

#include "dialects/registry.hpp"
#include "interchange/json_util.hpp"
#include "ocml/call_id.hpp"
#include "ocml/tools.hpp"
#include "runtime/schema.hpp"

namespace ocml {

namespace {

// The longest deadline a call may ask for (deadline_ms): 24 hours.
constexpr std::int64_t kMaxDeadlineMs = std::int64_t{24} * 60 * 60 * 1000;

using clock = std::chrono::steady_clock;

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

struct registered {
  tool_spec spec;
  std::shared_ptr<const detail::compiled_schema> schema;  // null: any arguments
};

// One call of a run.
struct call_state {
  tool_call_request request;
  std::atomic<bool> cancelled{false};
  bool started = false, replied = false;
  clock::time_point deadline = clock::time_point::max();
  tool_reply reply;
};

tool_reply error_reply(const tool_call_request& c, error_code code, std::string message) {
  tool_reply r;
  r.call_id = c.call_id;
  r.recipient = c.recipient;
  r.error = make_error(code, std::move(message));
  return r;
}

// A handler's value: a whole envelope when it looks like one, else the content.
tool_reply success_reply(const tool_call_request& c, json value, std::string_view source) {
  tool_reply r;
  r.call_id = c.call_id;
  r.recipient = c.recipient;
  r.ok = true;
  r.provenance = {{"source", source}, {"timestamp", utc_now()}};
  const auto ok = value.is_object() ? value.find("ok") : value.end();
  if (ok != value.end() && ok->is_boolean() &&
      (value.contains("content") || value.contains("error"))) {
    if (value.contains("provenance")) r.provenance = value["provenance"];
    if (ok->get<bool>()) {
      r.content = value.value("content", json());
      return r;
    }
    const json& e = value.value("error", json());
    r.ok = false;
    r.error = make_error(error_code::tool_failed,
                         e.is_object() && e.contains("message") && e["message"].is_string()
                             ? e["message"].get<std::string>()
                             : dump_json(e));
    return r;
  }
  r.content = std::move(value);
  return r;
}

}  // namespace

// ---- tool_reply ----------------------------------------------------------------------------

json tool_reply::envelope() const {
  json j = json::object();
  j["ok"] = ok;
  j["content"] = content;
  if (error) {
    j["error"] = {{"code", error_name(error->code)}, {"message", error->message}};
  } else {
    j["error"] = nullptr;
  }
  j["provenance"] = provenance.is_null() ? json::object() : provenance;
  return j;
}

message tool_reply::to_message(dialect d) const {
  message m = to_message();
  if (detail::codec_of(d).tool_reply_envelope) return m;  // 2.2 keeps the envelope
  if (!ok) {
    m.content =
        dump_json({{"error",
                    {{"code", error ? std::string(error_name(error->code)) : "E-TOOL-FAILED"},
                     {"message", error ? error->message : std::string()}}}});
  } else if (content.is_string()) {
    m.content = content.get<std::string>();
  } else {
    m.content = dump_json(content);
  }
  return m;
}

message tool_reply::to_message() const {
  message m;
  m.role = role::tool;
  m.name = recipient;
  m.call_id = call_id;
  m.recipient = "assistant";
  m.channel = "commentary";
  m.content = dump_json(envelope());
  return m;
}

// ---- tool_router ---------------------------------------------------------------------------

struct tool_router::impl {
  router_options options;
  mutable std::mutex mu;  // guards tools, active and every call_state of the active run
  std::condition_variable cv;
  std::map<std::string, registered, std::less<>> tools;  // by name ("get_weather", "browser")
  std::vector<std::unique_ptr<call_state>>* active = nullptr;
  std::mutex run_mu;  // one run at a time

  // Finds the tool for a recipient, or the error reply that explains why there is none.
  const registered* route(const tool_call_request& c, std::optional<tool_reply>& refusal) const {
    constexpr std::string_view ns = "functions.";
    const std::string_view r = c.recipient;
    const bool function = r.substr(0, ns.size()) == ns;
    const std::string_view name = function ? r.substr(ns.size()) : r.substr(0, r.find('.'));
    const auto it = tools.find(name);
    if (it == tools.end() || (it->second.spec.kind == tool_kind::function) != function) {
      refusal = error_reply(c, error_code::tool_unknown, "no tool '" + c.recipient + "'");
      return nullptr;
    }
    const std::string& ch = c.channel;
    const bool allowed = it->second.spec.kind == tool_kind::function
                             ? ch.empty() || ch == "commentary"
                             : ch.empty() || ch == "commentary" || ch == "analysis";
    if (!allowed) {
      refusal = error_reply(c, error_code::tool_routing,
                            c.recipient + " may not be called from the '" + ch + "' channel");
      return nullptr;
    }
    return &it->second;
  }

  // Runs one call on the calling (worker) thread; stores the reply unless one was given.
  void execute(call_state& s) {
    std::optional<tool_reply> refusal;
    const registered* tool = nullptr;
    json args;
    clock::time_point deadline;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (s.replied) return;  // cancelled while queued
      tool = route(s.request, refusal);
      s.started = true;
    }
    if (tool != nullptr) {
      auto parsed = s.request.arguments.empty() ? std::optional<json>(json::object())
                                                : detail::try_parse_json(s.request.arguments);
      if (!parsed) {
        refusal = error_reply(s.request, error_code::call_schema, "the arguments are not JSON");
      } else {
        args = std::move(*parsed);
        std::chrono::milliseconds budget = options.default_deadline;
        if (args.is_object() && args.contains("deadline_ms")) {
          // A whole number of milliseconds from 1 to kMaxDeadlineMs (24 h): 9.2e15 or 1e300
          // overflowed the clock into a deadline already past.
          const json& d = args["deadline_ms"];
          const double ms = d.is_number() ? d.get<double>() : -1;
          if (!(ms >= 1 && ms <= static_cast<double>(kMaxDeadlineMs) && ms == std::floor(ms))) {
            refusal = error_reply(s.request, error_code::call_schema,
                                  "deadline_ms must be a whole number from 1 to " +
                                      std::to_string(kMaxDeadlineMs) + ", got " + dump_json(d));
          } else {
            budget = std::chrono::milliseconds(static_cast<std::int64_t>(ms));
          }
          args.erase("deadline_ms");
        }
        deadline = clock::now() + budget;
        {
          std::lock_guard<std::mutex> lock(mu);
          s.deadline = deadline;
        }
        cv.notify_all();
        if (tool->schema) {
          if (auto why = tool->schema->check(args)) {
            refusal = error_reply(s.request, error_code::call_schema, *why);
          }
        }
      }
    }
    tool_reply reply;
    if (refusal) {
      reply = std::move(*refusal);
    } else {
      const tool_context ctx(s.request.call_id, s.request.recipient, s.cancelled, deadline);
      try {
        auto value =
            tool->spec.handler
                ? tool->spec.handler(args, ctx)
                : result<json>(make_error(error_code::tool_failed, "the tool has no handler"));
        reply =
            value ? success_reply(s.request, std::move(*value), "ocml:" + tool->spec.name)
                  : error_reply(s.request,
                                value.error().code == error_code::success ? error_code::tool_failed
                                                                          : value.error().code,
                                value.error().message);
      } catch (const std::exception& e) {
        reply = error_reply(s.request, error_code::tool_failed,
                            std::string("the tool threw: ") + e.what());
      } catch (...) {
        reply = error_reply(s.request, error_code::tool_failed, "the tool threw");
      }
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      if (s.replied) return;  // timed out or cancelled meanwhile: that reply stands
      s.reply = std::move(reply);
      s.replied = true;
    }
    cv.notify_all();
  }

  // Gives `s` an error reply (under `mu`) unless it has one.
  static bool refuse_locked(call_state& s, error_code code, std::string message) {
    if (s.replied) return false;
    s.cancelled = true;
    s.reply = error_reply(s.request, code, std::move(message));
    s.replied = true;
    return true;
  }
};

tool_router::tool_router(router_options options) : impl_(std::make_unique<impl>()) {
  impl_->options = options;
  if (impl_->options.max_concurrency == 0) impl_->options.max_concurrency = 1;
}

tool_router::~tool_router() = default;
tool_router::tool_router(tool_router&&) noexcept = default;
tool_router& tool_router::operator=(tool_router&&) noexcept = default;

result<std::size_t> tool_router::add(tool_spec spec) {
  if (spec.name.empty()) return make_error(error_code::invalid_json, "a tool needs a name");
  registered r;
  if (!spec.parameters.is_null()) {
    auto schema = detail::compiled_schema::compile(spec.parameters);
    if (!schema) return schema.error();
    r.schema = std::move(*schema);
  }
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->tools.count(spec.name) != 0) {
    return make_error(error_code::invalid_json, "tool '" + spec.name + "' is registered twice");
  }
  const std::string name = spec.name;
  r.spec = std::move(spec);
  impl_->tools.emplace(name, std::move(r));
  return impl_->tools.size();
}

std::vector<tool> tool_router::tools() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  std::vector<tool> out;
  for (const auto& [name, r] : impl_->tools) {
    if (r.spec.kind != tool_kind::function) continue;
    out.push_back(
        {.name = name, .description = r.spec.description, .parameters = r.spec.parameters});
  }
  return out;
}

std::vector<tool_reply> tool_router::run(const std::vector<tool_call_request>& calls,
                                         const std::function<void(const tool_reply&)>& on_reply,
                                         cancellation* cancel) {
  std::lock_guard<std::mutex> one_run(impl_->run_mu);
  std::vector<std::unique_ptr<call_state>> states;
  for (const auto& c : calls) {
    states.push_back(std::make_unique<call_state>());
    states.back()->request = c;
  }
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->active = &states;
  }
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  const std::size_t workers = std::min(impl_->options.max_concurrency, states.size());
  for (std::size_t w = 0; w < workers; ++w) {
    pool.emplace_back([this, &states, &next] {
      for (std::size_t i = next++; i < states.size(); i = next++) impl_->execute(*states[i]);
    });
  }
  std::vector<tool_reply> replies;
  std::vector<bool> delivered(states.size(), false);
  std::unique_lock<std::mutex> lock(impl_->mu);
  while (replies.size() < states.size()) {
    const auto now = clock::now();
    clock::time_point wake = now + std::chrono::milliseconds(20);  // polls `cancel`
    for (auto& s : states) {
      if (s->replied) continue;
      if (cancel != nullptr && cancel->cancelled()) {
        impl::refuse_locked(*s, error_code::tool_cancelled, "cancelled by the client");
      } else if (s->started && s->deadline <= now) {
        impl::refuse_locked(*s, error_code::tool_timeout,
                            "no reply within the deadline of the call");
      } else if (s->started) {
        wake = std::min(wake, s->deadline);
      }
    }
    for (std::size_t i = 0; i < states.size(); ++i) {
      if (delivered[i] || !states[i]->replied) continue;
      delivered[i] = true;
      replies.push_back(states[i]->reply);
      if (on_reply) {
        lock.unlock();  // on_reply may call cancel()
        on_reply(replies.back());
        lock.lock();
      }
    }
    if (replies.size() < states.size()) impl_->cv.wait_until(lock, wake);
  }
  impl_->active = nullptr;
  lock.unlock();
  for (auto& t : pool) t.join();  // handlers of timed-out calls were told to stop
  return replies;
}

bool tool_router::cancel(std::string_view call_id, std::string_view reason) {
  bool done = false;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->active == nullptr) return false;
    for (auto& s : *impl_->active) {
      if (s->request.call_id == call_id) {
        done = impl::refuse_locked(*s, error_code::tool_cancelled, std::string(reason));
      }
    }
  }
  impl_->cv.notify_all();
  return done;
}

std::vector<tool_call_request> tool_router::calls_in(const std::vector<message>& messages) {
  std::vector<tool_call_request> out;
  const call_ids ids;
  const auto id_for = [&out, &ids](const std::string& id) {
    return id.empty() ? ids(out.size()) : id;
  };
  for (const auto& m : messages) {
    if (m.role != role::assistant) continue;
    if (!m.recipient.empty()) {
      out.push_back({.call_id = id_for(m.call_id),
                     .recipient = m.recipient,
                     .channel = m.channel,
                     .arguments = m.content});
    }
    for (const auto& c : m.tool_calls) {
      out.push_back({.call_id = id_for(c.id),
                     .recipient = "functions." + c.name,
                     .channel = m.channel,
                     .arguments = c.arguments});
    }
  }
  return out;
}

}  // namespace ocml
