// SPDX-License-Identifier: Apache-2.0
// A model's own format (its two templates and stop strings) and the generation loop on it.
#include "ocml/model_format.hpp"

#include "ocml/format.hpp"

#include <algorithm>
#include <filesystem>

#include "core/read_file.hpp"
#include "core/utf8.hpp"
#include "interchange/json_util.hpp"
#include "ocml/json.hpp"

namespace ocml {

result<model_format> model_format::load(const std::string& path) {
  auto f = format::find("model:" + path);
  if (!f) return f.error();
  if (f->response_template() == nullptr) {
    return make_error(error_code::invalid_json,
                      path +
                          ": no response_template (a model format needs both "
                          "templates; add one, see docs/templates.md)");
  }
  model_format m;
  m.chat_ = *f->chat_template();
  m.response_ = *f->response_template();
  m.stop_ = f->stop();
  return m;
}

result<std::string> model_format::prompt(const conversation& c,
                                         const template_json_options& options) const {
  // The prompt is a function of the conversation: calls given without an id get the same
  // ids every time it is rendered (seed 0), not a response's random ones.
  const json request = to_openai_json(c, {.call_id_seed = 0});
  return chat_.render_json(dump_json(request), options);
}

namespace {

// The loop of both generate()s: `response` parses what the engine writes, `stop` ends it.
format_generation run_format(engine& engine, const response_template& response,
                             std::vector<std::string> stop, const std::string& prompt,
                             const json* tools, const generate_options& options,
                             const std::function<void(const delta&)>& on_delta) {
  format_generation g;
  response_projection proj(
      [&](const delta& d) {
        if (on_delta) on_delta(d);
      },
      {.call_id_seed = options.call_id_seed});
  response_parser parser(response, {.prefix = prompt, .tools = tools, .lenient = options.lenient},
                         [&](const response_event& e) { proj(e); });
  model_request req;
  req.prompt = prompt;
  req.stop = std::move(stop);
  for (const auto& s : options.stop) {
    if (!s.empty()) req.stop.push_back(s);
  }
  req.max_tokens = options.max_tokens;
  req.cancel = options.cancel;
  bool over = false;
  bool cancelled = false;
  auto fin = engine.complete(req, [&](std::string_view text) {
    if (options.cancel != nullptr && options.cancel->cancelled()) {
      cancelled = true;
      return false;
    }
    if (options.max_bytes != 0 && g.text.size() + text.size() > options.max_bytes) {
      text = text.substr(0, detail::utf8_cut(text, options.max_bytes - g.text.size()));
      over = true;
    }
    g.text.append(text);
    parser.push(text);
    return !over;
  });
  auto m = parser.finish();
  g.diagnostics = parser.diagnostics();
  if (over) {
    g.diagnostics.push_back({.code = error_code::limit_exceeded,
                             .level = severity::warning,
                             .offset = g.text.size(),
                             .line = 0,
                             .message = "the completion reached max_bytes (" +
                                        std::to_string(options.max_bytes) + "): cut off"});
  }
  if (!fin) {
    g.diagnostics.push_back(fin.error());
    g.finish = finish_reason::error;
  } else if (cancelled) {
    g.finish = finish_reason::cancelled;
  } else if (over || fin->reason == engine_stop::length) {
    g.finish = finish_reason::length;
  } else if (fin->reason == engine_stop::eof) {
    g.diagnostics.push_back(make_error(error_code::stream_truncated,
                                       "the engine's stream ended without a finish reason"));
    g.finish = finish_reason::error;
  }
  if (!m) {
    g.finish = finish_reason::error;
    return g;
  }
  g.message = std::move(m).value();
  openai_options oo;
  oo.call_id_seed = options.call_id_seed;  // ids as parse gives them with the same seed
  auto conv = response_to_conversation(g.message, oo);
  if (conv) g.messages = std::move(conv->messages);
  const bool user_stop = fin && options.callers_stop(fin->stop_sequence);
  if (g.finish == finish_reason::none)
    g.finish = user_stop ? finish_reason::stop : proj.natural_finish();
  return g;
}

}  // namespace

format_generation generate(engine& engine, const model_format& format, const std::string& prompt,
                           const conversation& c, const generate_options& options,
                           const std::function<void(const delta&)>& on_delta) {
  const json request = to_openai_json(c, {.call_id_seed = 0});  // for its tools
  const json* tools = request.contains("tools") ? &request["tools"] : nullptr;
  return run_format(engine, format.response(), format.stop(), prompt, tools, options, on_delta);
}

format_generation generate(engine& engine, const format& format, const std::string& prompt,
                           const json& tools, const generate_options& options,
                           const std::function<void(const delta&)>& on_delta) {
  if (!format.is_model() || format.response_template() == nullptr) {
    format_generation g;
    g.diagnostics.push_back(make_error(
        error_code::invalid_json, format.name() + ": not a model format with a response template "
                                                  "(a dialect generates with generate(engine, "
                                                  "prompt, options))"));
    g.finish = finish_reason::error;
    return g;
  }
  return run_format(engine, *format.response_template(), format.stop(), prompt,
                    tools.is_array() ? &tools : nullptr, options, on_delta);
}

}  // namespace ocml
