// SPDX-License-Identifier: Apache-2.0
// The playground's API: only the built-in dialects and the served format can be named (a page
// cannot make the server read a file), and every answer is what the CLI would print.
#include "runtime/serve/playground.hpp"

#include <optional>
#include <string>

#include "ocml/dialect.hpp"
#include "ocml/display.hpp"
#include "ocml/format_decoder.hpp"
#include "ocml/json.hpp"
#include "ocml/template.hpp"
#include "runtime/serve/request.hpp"

namespace ocml::serve {

namespace {

constexpr std::size_t kMaxEvents = 100000;  // events listed for one completion

answer refuse(std::string message, std::string param = {}) {
  return {400,
          error_body({.status = 400, .message = std::move(message), .param = std::move(param)})};
}

// The format a page names: a built-in dialect, or the served one (by its name).
std::optional<format> named(const serve_options& o, const json& body) {
  const std::string name = body.value("format", o.format.name());
  if (name == o.format.name()) return o.format;
  if (const auto d = parse_dialect(name)) return format(*d);
  return std::nullopt;
}

// The body of a render or parse request and the format it names; false with `err` set.
bool read_body(const serve_options& o, std::string_view text, json& body, std::optional<format>& f,
               answer& err) {
  auto parsed = parse_json_text(text);
  if (!parsed || !parsed->is_object()) {
    err = refuse("the body must be a JSON object");
    return false;
  }
  body = std::move(*parsed);
  f = named(o, body);
  if (!f) {
    err = refuse("unknown format (a dialect's name, or the served format)", "format");
    return false;
  }
  return true;
}

json control_tokens(const format& f) {
  json out = json::array();
  if (const auto d = f.dialect()) {
    for (const auto& info : dialects()) {
      if (info.id != *d) continue;
      for (const auto t : info.tokens) out.push_back(std::string(t));
    }
    return out;
  }
  // A model: its special tokens as its config names them (bos, eos, …), and its stop strings.
  if (const model_template* t = f.chat_template()) {
    for (const auto& [key, value] : t->special_tokens().items()) {
      if (value.is_string() && !value.get_ref<const std::string&>().empty()) out.push_back(value);
    }
  }
  for (const auto& s : f.stop()) out.push_back(s);
  return out;
}

json diagnostics_json(const std::vector<diagnostic>& ds) {
  json out = json::array();
  for (const auto& d : ds) {
    out.push_back({{"code", std::string(error_name(d.code))},
                   {"severity", d.level == severity::error ? "error" : "warning"},
                   {"message", d.message},
                   {"offset", d.offset},
                   {"line", d.line},
                   {"column", d.column}});
  }
  return out;
}

json source_json(const format& f) {
  if (!f.is_model()) return nullptr;
  const response_choice c = f.response_source();
  return {{"kind", c.kind}, {"name", c.name}, {"why", c.why}};
}

}  // namespace

answer playground_formats(const serve_options& o) {
  json list = json::array();
  if (o.format.is_model()) {
    list.push_back({{"name", o.format.name()},
                    {"model", true},
                    {"control", control_tokens(o.format)},
                    {"response_source", source_json(o.format)}});
  }
  for (const auto& info : dialects()) {
    list.push_back({{"name", std::string(info.name)},
                    {"summary", std::string(info.summary)},
                    {"control", control_tokens(format(info.id))}});
  }
  const json out = {{"served", o.format.name()},
                    {"tokenizer", o.tokens != nullptr ? json(o.tokens->name()) : json(nullptr)},
                    {"formats", list}};
  return {200, dump_json(out)};
}

answer playground_render(const serve_options& o, std::string_view text) {
  json body;
  std::optional<format> f;
  answer err;
  if (!read_body(o, text, body, f, err)) return err;
  const auto req = body.find("request");
  if (req == body.end() || !req->is_object()) {
    return refuse("request must be an OpenAI chat request (an object with messages)", "request");
  }
  const std::string request = dump_json(*req);
  const format_render_options ro{.add_generation_prompt =
                                     body.value("add_generation_prompt", true)};
  const json_render_result r = f->render_json(request, ro);
  json out = {{"format", f->name()},
              {"text", r.text},
              {"control", control_tokens(*f)},
              {"diagnostics", diagnostics_json(r.diagnostics)}};
  if (o.tokens != nullptr && r.ok()) {
    const json_token_result t = f->render_json_tokens(request, *o.tokens, ro, {});
    json tokens = json::array();
    for (const token_id id : t.tokens.input_ids) {
      tokens.push_back({{"id", id},
                        {"text", std::string(o.tokens->token_bytes(id))},
                        {"special", o.tokens->is_special(id)}});
    }
    out["tokens"] = std::move(tokens);
  }
  return {200, dump_json(out)};
}

answer playground_parse(const serve_options& o, std::string_view text) {
  json body;
  std::optional<format> f;
  answer err;
  if (!read_body(o, text, body, f, err)) return err;
  const auto completion = body.find("text");
  if (completion == body.end() || !completion->is_string()) {
    return refuse("text must be the model's output (a string)", "text");
  }
  const std::string& output = completion->get_ref<const std::string&>();
  const std::string prefix = body.value("prefix", "");
  const json tools = body.value("tools", json(nullptr));
  const parse_result r =
      f->parse(output, {.lenient = true, .completion = true, .prefix = prefix, .tools = tools});
  json events = json::array();
  bool cut = false;
  format_decoder dec(*f,
                     {.events = stream_events::native,
                      .lenient = true,
                      .completion = true,
                      .prefix = prefix,
                      .tools = tools.is_array() ? dump_json(tools) : std::string()},
                     [&events, &cut](std::string_view e) {
                       if (events.size() < kMaxEvents) {
                         events.push_back(json::parse(e, nullptr, false));
                       } else {
                         cut = true;
                       }
                     });
  dec.push(output);
  dec.finish();
  const json out = {{"format", f->name()},
                    {"messages", f->conversation_json(r.conversation, true)["messages"]},
                    {"view", render_view(r.conversation, {})},
                    {"debug_view", render_view(r.conversation, {.debug = true})},
                    {"events", std::move(events)},
                    {"events_cut", cut},
                    {"diagnostics", diagnostics_json(r.diagnostics)},
                    {"response_source", source_json(*f)}};
  return {200, dump_json(out)};
}

}  // namespace ocml::serve
