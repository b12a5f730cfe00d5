// SPDX-License-Identifier: Apache-2.0
// `ocml chat`: an agent loop in the terminal over an OpenAI-compatible completions engine.
#include "chat.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io.hpp"
#include "ocml/http_engine.hpp"
#include "ocml/json.hpp"
#include "ocml/model_format.hpp"
#include "ocml/tools.hpp"

namespace ocml::cli {

namespace {

cancellation g_cancel;             // set by Ctrl-C while a turn runs
volatile sig_atomic_t g_busy = 0;  // a turn is running
std::uint64_t g_responses = 0;     // responses so far (each gets its own call ids)
volatile sig_atomic_t g_interrupts = 0;

extern "C" void on_sigint(int /*signal*/) {
  ++g_interrupts;
  if (g_busy == 0 || g_interrupts > 1) _exit(130);  // idle, or a second Ctrl-C
  g_cancel.cancel();
}

void install_sigint() {
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
}

// The function tools of an OpenAI `tools` file (an array, or an object with "tools").
bool read_tools_file(const std::string& path, std::vector<tool>& out) {
  input in;
  std::string err;
  if (!in.open(path, err)) {
    std::cerr << "E-IO " << err << '\n';
    return false;
  }
  auto j = parse_json_text(in.bytes());
  if (!j) {
    std::cerr << path << ": " << j.error().to_string() << '\n';
    return false;
  }
  const json list = j->is_object() ? j->value("tools", json::array()) : *j;
  auto tools = tools_from_json(list);
  if (!tools) {
    std::cerr << path << ": " << tools.error().to_string() << '\n';
    return false;
  }
  out = std::move(*tools);
  return true;
}

// Registers one --tool NAME=COMMAND, with the schema of the tools file when it has one.
bool add_command_tool(tool_router& router, const std::string& spec,
                      const std::vector<tool>& declared) {
  const std::size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) {
    std::cerr << "ocml chat: --tool wants NAME=COMMAND, got '" << spec << "'\n";
    return false;
  }
  tool_spec t{.name = spec.substr(0, eq), .handler = command_tool(spec.substr(eq + 1))};
  for (const auto& d : declared) {
    if (d.name == t.name) {
      t.description = d.description;
      t.parameters = d.parameters;
    }
  }
  auto added = router.add(std::move(t));
  if (!added) std::cerr << added.error().to_string() << '\n';
  return added.ok();
}

// Prints what a user may see as it streams: the answer, and reasoning when asked.
class printer {
 public:
  explicit printer(bool show_reasoning) : show_reasoning_(show_reasoning) {}
  void operator()(const delta& d) {
    if (d.kind == delta_kind::text) {
      end_reasoning();
      std::cout.write(d.text.data(), static_cast<std::streamsize>(d.text.size()));
      std::cout.flush();
      wrote_ = true;
    } else if (d.kind == delta_kind::reasoning && show_reasoning_) {
      if (!in_reasoning_) std::cout << "[reasoning] ";
      in_reasoning_ = true;
      std::cout.write(d.text.data(), static_cast<std::streamsize>(d.text.size()));
      std::cout.flush();
    } else if (d.kind == delta_kind::message_end) {
      end_reasoning();
    } else if (d.kind == delta_kind::call_begin) {
      call_ids_.emplace_back(d.call_id);
    }
  }
  /// The ids the stream gave this generation's calls, in order (taken: the next
  /// generation starts empty).
  std::vector<std::string> take_call_ids() { return std::exchange(call_ids_, {}); }
  void end_turn() {
    end_reasoning();
    if (wrote_) std::cout << '\n';
    std::cout.flush();
    wrote_ = false;
  }

 private:
  void end_reasoning() {
    if (in_reasoning_) std::cout << '\n';
    in_reasoning_ = false;
  }
  bool show_reasoning_;
  bool in_reasoning_ = false, wrote_ = false;
  std::vector<std::string> call_ids_;
};

// One user turn: generate, run tools, feed results back until a final answer.
// One generation with a model's own format, in the shape of the dialect loop's.
generation generate_with_format(const chat_args& a, const model_format& f, const conversation& conv,
                                engine& engine, printer& print) {
  generation g;
  auto prompt = f.prompt(conv);
  if (!prompt) {
    g.diagnostics.push_back(prompt.error());
    g.finish = finish_reason::error;
    return g;
  }
  format_generation fg = generate(
      engine, f, *prompt, conv,
      {.max_tokens = a.max_tokens, .max_bytes = a.max_bytes, .lenient = true, .cancel = &g_cancel},
      [&print](const delta& d) { print(d); });
  g.text = std::move(fg.text);
  g.messages = std::move(fg.messages);
  g.finish = fg.finish;
  g.diagnostics = std::move(fg.diagnostics);
  g.rounds = 1;
  return g;
}

// One generation in a built-in dialect; nothing when the conversation cannot be prompted (a
// user line the dialect cannot hold is then taken back on the turn's first round).
std::optional<generation> generate_with_dialect(const chat_args& a, conversation& conv,
                                                engine& engine, printer& print,
                                                const cost_function& cost, const tokenizer* tok,
                                                bool first_round) {
  auto p = build_prompt(conv, {.dialect = a.dialect,
                               .think = a.think,
                               .budget = a.budget,
                               .cost = cost,
                               .reasoning_effort = a.reasoning_effort});
  if (!p) {
    std::cerr << p.error().to_string() << '\n';
    if (first_round) {
      // The user's own line is what the dialect cannot hold: refused for this turn only.
      conv.messages.pop_back();
      std::cerr << "ocml chat: this message cannot be sent in " << dialect_name(a.dialect)
                << " (not added to the conversation)\n";
    }
    return std::nullopt;
  }
  return generate(engine, *p,
                  {.dialect = a.dialect,
                   .think = a.think,
                   .max_tokens = a.max_tokens,
                   .max_bytes = a.max_bytes,
                   .lenient = true,
                   .cancel = &g_cancel,
                   .tokens = tok},
                  [&print](const delta& d) { print(d); });
}

bool run_turn(const chat_args& a, conversation& conv, engine& engine, tool_router& router,
              const tokenizer* tok, const model_format* format) {
  printer print(a.show_reasoning);
  cost_function cost;
  if (tok != nullptr) {
    cost = [tok](std::string_view text) { return tok->encode(text, special_tokens::all).size(); };
  }
  for (unsigned round = 0; round < a.max_rounds; ++round) {
    std::optional<generation> made =
        format != nullptr ? generate_with_format(a, *format, conv, engine, print)
                          : generate_with_dialect(a, conv, engine, print, cost, tok, round == 0);
    if (!made) return false;
    generation g = std::move(*made);
    for (const auto& d : g.diagnostics) std::cerr << d.to_string() << '\n';
    if (g.finish == finish_reason::cancelled) {
      print.end_turn();
      std::cerr << "[cancelled]\n";
      return true;  // the partial answer is dropped; the conversation goes on
    }
    if (g.finish == finish_reason::error) {
      print.end_turn();
      std::cerr << "ocml chat: the generation failed\n";
      return false;
    }
    // The generation says when --max-bytes cut it (E-LIMIT-EXCEEDED, printed above).
    if (g.finish == finish_reason::length &&
        std::any_of(g.diagnostics.begin(), g.diagnostics.end(),
                    [](const diagnostic& d) { return d.code == error_code::limit_exceeded; })) {
      print.end_turn();
      return false;
    }
    if (g.finish == finish_reason::length) {
      print.end_turn();
      std::cerr << "ocml chat: the engine stopped the answer at its token limit (finish_reason "
                   "\"length\", "
                << (a.max_tokens == 0 ? std::string("the engine's default max_tokens")
                                      : "max_tokens " + std::to_string(a.max_tokens))
                << "): the answer is cut off; raise the limit with --max-tokens N\n";
      return false;
    }
    // Calls the model wrote without an id get one that is unique in the session (OpenAI's
    // random call_ shape, --seed makes it reproducible), in the message itself too, so that
    // each reply can echo it: the id the stream gave the call (its projection counts the
    // same calls in the same order), else a new one.
    const call_ids ids = a.seed ? call_ids(*a.seed + g_responses++) : call_ids();
    const std::vector<std::string> streamed = print.take_call_ids();
    std::size_t index = 0;
    std::size_t nth = 0;  // calls the stream saw: function recipients and tool calls
    const auto id_for = [&](bool streamed_call) {
      std::string id = streamed_call && nth < streamed.size() ? streamed[nth] : ids(index);
      ++index;
      return id;
    };
    for (auto& m : g.messages) {
      if (m.role != role::assistant) continue;
      const bool function = classify_recipient(m.recipient) == recipient_kind::function;
      if (!m.recipient.empty() && m.call_id.empty()) m.call_id = id_for(function);
      if (function) ++nth;
      for (auto& c : m.tool_calls) {
        if (c.id.empty()) c.id = id_for(true);
        ++nth;
      }
    }
    auto calls = tool_router::calls_in(g.messages);
    for (auto& m : g.messages) conv.messages.push_back(std::move(m));
    if (calls.empty()) {
      print.end_turn();
      return true;
    }
    // A round runs at most max_tool_calls calls; the others are answered with an error.
    std::vector<tool_reply> refused;
    while (calls.size() > a.max_tool_calls) {
      const auto& c = calls.back();
      tool_reply r;
      r.call_id = c.call_id;
      r.recipient = c.recipient;
      r.ok = false;
      r.error = make_error(error_code::limit_exceeded,
                           "more than " + std::to_string(a.max_tool_calls) +
                               " tool calls in one round (--max-tool-calls): not run");
      refused.insert(refused.begin(), std::move(r));
      calls.pop_back();
    }
    for (const auto& c : calls) {
      std::cerr << "[tool] running " << c.recipient << " (" << c.call_id << ")\n";
    }
    auto replies = router.run(
        calls,
        [](const tool_reply& r) {
          std::cerr << "[tool] " << r.recipient << " (" << r.call_id
                    << "): " << (r.ok ? std::string("ok") : r.error->to_string()) << '\n';
        },
        &g_cancel);
    if (g_cancel.cancelled()) {
      print.end_turn();
      std::cerr << "[cancelled]\n";
      return true;
    }
    if (!refused.empty()) {
      std::cerr << "[tool] " << refused.size() << " calls past --max-tool-calls not run\n";
    }
    for (auto& r : refused) replies.push_back(std::move(r));
    // Replies in the order of the calls (dialects without call ids match them by position).
    std::stable_sort(replies.begin(), replies.end(), [&calls](const auto& x, const auto& y) {
      const auto pos = [&calls](const std::string& id) {
        return std::find_if(calls.begin(), calls.end(),
                            [&id](const auto& c) { return c.call_id == id; }) -
               calls.begin();
      };
      return pos(x.call_id) < pos(y.call_id);
    });
    for (const auto& r : replies) {
      conv.messages.push_back(r.to_message(format != nullptr ? dialect::chatml : a.dialect));
    }
  }
  print.end_turn();
  std::cerr << "ocml chat: no final answer after " << a.max_rounds << " rounds\n";
  return false;
}

}  // namespace

int run_chat(const chat_args& a) {
  std::vector<tool> declared;
  if (!a.tools_file.empty() && !read_tools_file(a.tools_file, declared)) return 2;
  tool_router router({.max_concurrency = 4});
  for (const auto& spec : a.tools) {
    if (!add_command_tool(router, spec, declared)) return 2;
  }
  conversation conv;
  if (!a.system.empty()) conv.messages.push_back({.role = role::system, .content = a.system});
  const std::vector<tool> runnable = router.tools();
  for (const auto& d : declared) {
    conv.tools.push_back(d);
    if (std::none_of(runnable.begin(), runnable.end(),
                     [&d](const tool& t) { return t.name == d.name; })) {
      std::cerr << "ocml chat: warning: tool '" << d.name << "' has no --tool command\n";
    }
  }
  if (declared.empty()) conv.tools = runnable;
  std::optional<tokenizer> tok;
  if (!a.tokenizer.empty()) {
    auto t = tokenizer::from_file(a.tokenizer, tokenizer_options_for(a.encoding));
    if (!t) {
      std::cerr << a.tokenizer << ": " << t.error().to_string() << '\n';
      return 2;
    }
    tok = std::move(*t);
  }
  std::optional<model_format> format;
  if (!a.model_format.empty()) {
    auto f = model_format::load(a.model_format);
    if (!f) {
      std::cerr << f.error().to_string() << '\n';
      return 2;
    }
    format = std::move(*f);
    if (tok) {
      // Refused rather than ignored (issue 24): a model format runs in text mode only.
      std::cerr << "ocml chat: --tokenizer needs a dialect; -d model:PATH runs in text mode\n";
      return 2;
    }
  }
  http_engine engine({.endpoint = a.endpoint, .model = a.model, .api_key = a.api_key});
  install_sigint();
  const bool interactive = isatty(STDIN_FILENO) != 0;
  bool ok = true;
  std::string line;
  for (;;) {
    if (interactive) std::cerr << "> " << std::flush;
    if (!std::getline(std::cin, line)) break;
    if (line.empty()) continue;
    bool repaired = false;
    line = repair_utf8(line, &repaired);
    if (repaired) std::cerr << "ocml chat: bytes that are not UTF-8 were sent as U+FFFD\n";
    conv.messages.push_back({.role = role::user, .content = line});
    g_cancel.reset();
    g_interrupts = 0;
    g_busy = 1;
    ok =
        run_turn(a, conv, engine, router, tok ? &*tok : nullptr, format ? &*format : nullptr) && ok;
    g_busy = 0;
  }
  return ok ? 0 : 1;
}

}  // namespace ocml::cli
