// SPDX-License-Identifier: Apache-2.0
// ocml/tools.hpp - the tool router: register tools (name, JSON Schema, handler), dispatch
// the calls a model made in any dialect, run them concurrently with deadlines and
// cancellation, and turn each reply into the dialect's tool message.
//
//   ocml::tool_router router({.max_concurrency = 4});
//   (void)router.add({.name = "get_weather",
//                     .parameters = ocml::json::parse(R"({"type":"object",
//                         "properties":{"city":{"type":"string"}},"required":["city"]})"),
//                     .handler = [](const ocml::json& args, const ocml::tool_context&)
//                         -> ocml::result<ocml::json> { return ocml::json{{"temp_c", 21}}; }});
//   (void)router.add({.name = "search", .handler = ocml::command_tool("./search.sh")});
//   for (const auto& reply : router.run(ocml::tool_router::calls_in(generation.messages))) {
//     conv.messages.push_back(reply.to_message());
//   }
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ocml/dialect.hpp"
#include "ocml/error.hpp"
#include "ocml/generate.hpp"
#include "ocml/model.hpp"

namespace ocml {

/// One call to run: what the model wrote, in any dialect.
struct tool_call_request {
  std::string call_id;
  std::string recipient;  ///< "functions.get_weather", "browser.search", "python".
  std::string channel;    ///< The channel it was written on (empty: the dialect has none).
  std::string arguments;  ///< JSON text, as written.
};

/// A tool's reply: the 2.2 §8.2 envelope `{ok, content, error, provenance}`.
struct tool_reply {
  std::string call_id;
  std::string recipient;  ///< The call's recipient, echoed.
  bool ok = false;
  json content;                     ///< The result (null on error).
  std::optional<diagnostic> error;  ///< E-CALL-SCHEMA, E-TOOL-TIMEOUT, E-TOOL-FAILED, ...
  json provenance;                  ///< {"source": ..., "timestamp": ...}

  /// `{"ok":true,"content":...,"error":null,"provenance":{...}}`; an error is
  /// `{"code":"E-CALL-SCHEMA","message":"..."}`.
  [[nodiscard]] json envelope() const;
  /// The reply as a tool message: role tool, `name` and `call_id` echoed, `to=assistant`,
  /// channel commentary, the envelope as JSON content. Renders in every dialect (those
  /// without call ids drop them with a warning).
  [[nodiscard]] message to_message() const;
  /// The reply as a tool message in the form `d` defines: the envelope for OpenChatML 2.2;
  /// for every other dialect the raw result, as its models were trained on it (a string
  /// as it is, other JSON dumped), and `{"error": {"code": …, "message": …}}` for a failure.
  ///
  ///   conv.messages.push_back(reply.to_message(ocml::dialect::harmony));
  [[nodiscard]] message to_message(dialect d) const;
};

/// What a running handler can ask about its call.
class tool_context {
 public:
  tool_context(std::string call_id, std::string recipient, const std::atomic<bool>& cancelled,
               std::chrono::steady_clock::time_point deadline)
      : call_id_(std::move(call_id)),
        recipient_(std::move(recipient)),
        cancelled_(cancelled),
        deadline_(deadline) {}
  [[nodiscard]] const std::string& call_id() const noexcept { return call_id_; }
  [[nodiscard]] const std::string& recipient() const noexcept { return recipient_; }
  /// True once the call timed out or was cancelled: a handler should return soon (its
  /// result is then discarded; the reply was already sent).
  [[nodiscard]] bool cancelled() const noexcept { return cancelled_.load(); }
  [[nodiscard]] std::chrono::steady_clock::time_point deadline() const noexcept {
    return deadline_;
  }

 private:
  std::string call_id_, recipient_;
  const std::atomic<bool>& cancelled_;
  std::chrono::steady_clock::time_point deadline_;
};

/// Runs one call: the arguments (validated against the schema, `deadline_ms` removed) in,
/// the content out. A returned object `{"ok": bool, "content"|"error": ...}` is taken as a
/// whole envelope. Errors and exceptions become E-TOOL-FAILED replies.
using tool_handler = std::function<result<json>(const json& arguments, const tool_context& ctx)>;

/// Function tools are called as `functions.NAME` and only from `commentary`; built-in
/// namespaces (`browser`, `python`) also from `analysis` (2.2 §8.3).
enum class tool_kind : std::uint8_t { function, builtin };

/// A tool to register.
struct tool_spec {
  std::string name;  ///< "get_weather", or a built-in namespace: "browser", "python".
  std::string description;
  json parameters;  ///< JSON Schema of the arguments (null: any arguments).
  tool_handler handler;
  tool_kind kind = tool_kind::function;
};

/// Options for command_tool.
struct command_options {
  std::size_t max_output = std::size_t{1} << 20;  ///< Bytes of stdout kept (more: failure).
};

/// A handler that runs `/bin/sh -c command`, writes the arguments as JSON on its standard
/// input and reads one JSON value from its standard output. A non-zero exit, a signal or
/// output that is not JSON is an E-TOOL-FAILED reply (with the start of stderr); a
/// cancelled or timed-out call kills the command's process group.
///
///   (void)router.add({.name = "add", .handler = ocml::command_tool("python3 add.py")});
[[nodiscard]] tool_handler command_tool(std::string command, command_options options = {});

/// How the router runs calls.
struct router_options {
  std::size_t max_concurrency = 4;  ///< Calls running at once.
  /// A call's deadline when its arguments carry no `deadline_ms` (2.2 §8.2).
  std::chrono::milliseconds default_deadline{60000};
};

/// Dispatches calls to registered tools. Thread-safe; one run() at a time.
class tool_router {
 public:
  explicit tool_router(router_options options = {});
  ~tool_router();
  tool_router(tool_router&&) noexcept;
  tool_router& operator=(tool_router&&) noexcept;
  tool_router(const tool_router&) = delete;
  tool_router& operator=(const tool_router&) = delete;

  /// Registers a tool. Errors: E-CALL-SCHEMA when the schema cannot be compiled,
  /// E-JSON-INPUT when the name is empty or taken. Returns the number of tools.
  [[nodiscard]] result<std::size_t> add(tool_spec spec);
  /// The registered function tools, to offer to the model (conversation::tools).
  [[nodiscard]] std::vector<tool> tools() const;

  /// Runs `calls` on a pool of max_concurrency threads. Each reply goes to `on_reply` (on
  /// the calling thread) as soon as it exists — in arrival order, not call order — and
  /// the replies are returned in that order. `cancel` cancels every unfinished call.
  std::vector<tool_reply> run(const std::vector<tool_call_request>& calls,
                              const std::function<void(const tool_reply&)>& on_reply = {},
                              cancellation* cancel = nullptr);
  /// Cancels one unfinished call of the current run (from any thread): its reply is an
  /// E-TOOL-CANCELLED error with `reason`. False when no such call is waiting.
  bool cancel(std::string_view call_id, std::string_view reason = "cancelled by the runtime");

  /// The calls in decoded messages: 2.x call messages (`to=` + `call_id`) and the calls
  /// written inside a message (ChatML, PCML, 0.1). Calls without an id get a random
  /// call_ids id (ocml/call_id.hpp).
  [[nodiscard]] static std::vector<tool_call_request> calls_in(
      const std::vector<message>& messages);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace ocml
