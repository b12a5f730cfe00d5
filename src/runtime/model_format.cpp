// SPDX-License-Identifier: Apache-2.0
// A model's own format (its two templates and stop strings) and the generation loop on it.
#include "ocml/model_format.hpp"

#include <algorithm>
#include <filesystem>

#include "core/read_file.hpp"
#include "core/utf8.hpp"
#include "interchange/json_util.hpp"
#include "ocml/json.hpp"

namespace ocml {

namespace {

// The text of each eos_token_id of generation_config.json, from the config's added tokens.
void add_generation_stops(const std::filesystem::path& dir, const json& config,
                          std::vector<std::string>& stop) {
  std::string text;
  if (!detail::read_file((dir / "generation_config.json").string(), text)) return;
  const json gen = detail::try_parse_json(text).value_or(json());
  if (!gen.is_object() || !gen.contains("eos_token_id")) return;
  json ids = gen["eos_token_id"];
  if (!ids.is_array()) ids = json::array({ids});
  const auto added = config.find("added_tokens_decoder");
  if (added == config.end() || !added->is_object()) return;
  for (const auto& id : ids) {
    if (!id.is_number_integer()) continue;
    const auto t = added->find(std::to_string(id.get<long long>()));
    if (t == added->end()) continue;
    const auto content = t->is_object() ? t->find("content") : t->end();
    if (content == t->end() || !content->is_string()) continue;
    const std::string& s = content->get_ref<const std::string&>();
    if (!s.empty() && std::find(stop.begin(), stop.end(), s) == stop.end()) stop.push_back(s);
  }
}

}  // namespace

result<model_format> model_format::load(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path file = path;
  std::error_code ec;
  if (fs::is_directory(file, ec)) file /= "tokenizer_config.json";
  std::string text;
  std::string why;
  if (!detail::read_file(file.string(), text, &why)) {
    return make_error(error_code::io_error, "cannot read " + why);
  }
  auto parsed = parse_json_text(text);  // depth-guarded, with the error's line:column
  if (!parsed) {
    diagnostic d = parsed.error();
    d.message = file.string() + ": " + d.message;
    return d;
  }
  const json config = std::move(*parsed);
  if (!config.is_object()) {
    return make_error(error_code::invalid_json, file.string() + ": not a JSON object");
  }
  if (!config.contains("response_template")) {
    return make_error(error_code::invalid_json,
                      file.string() +
                          ": no response_template (a model format needs both "
                          "templates; add one, see docs/templates.md)");
  }
  model_format f;
  auto chat = model_template::from_text(text);
  if (!chat) {
    diagnostic d = chat.error();
    d.message = file.string() + ": " + d.message;
    return d;
  }
  f.chat_ = std::move(chat).value();
  auto resp = response_template::from_json(config);
  if (!resp) {
    diagnostic d = resp.error();
    d.message = file.string() + ": " + d.message;
    return d;
  }
  f.response_ = std::move(resp).value();
  // The chat template already read the special tokens (strings or AddedToken objects).
  const std::string eos = f.chat_.special_tokens().value("eos_token", "");
  if (!eos.empty()) f.stop_.push_back(eos);
  add_generation_stops(file.parent_path(), config, f.stop_);
  return f;
}

result<std::string> model_format::prompt(const conversation& c,
                                         const template_json_options& options) const {
  // The prompt is a function of the conversation: calls given without an id get the same
  // ids every time it is rendered (seed 0), not a response's random ones.
  const json request = to_openai_json(c, {.call_id_seed = 0});
  return chat_.render_json(dump_json(request), options);
}

format_generation generate(model& engine, const model_format& format, const std::string& prompt,
                           const conversation& c, const generate_options& options,
                           const std::function<void(const delta&)>& on_delta) {
  format_generation g;
  const json request = to_openai_json(c, {.call_id_seed = 0});  // for its tools
  const json* tools = request.contains("tools") ? &request["tools"] : nullptr;
  response_projection proj(
      [&](const delta& d) {
        if (on_delta) on_delta(d);
      },
      {.call_id_seed = options.call_id_seed});
  response_parser parser(format.response(),
                         {.prefix = prompt, .tools = tools, .lenient = options.lenient},
                         [&](const response_event& e) { proj(e); });
  model_request req;
  req.prompt = prompt;
  req.stop = format.stop();
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
  auto conv = from_openai_json(json{{"messages", json::array({response_to_openai(g.message)})}});
  if (conv) g.messages = std::move(conv->messages);
  if (g.finish == finish_reason::none) g.finish = proj.natural_finish();
  return g;
}

}  // namespace ocml
