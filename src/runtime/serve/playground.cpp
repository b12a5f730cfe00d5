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

constexpr std::size_t kMaxSpans = 20000;  // runs of one kind listed for one completion

// What a decoder event's bytes became, as the page colours them: content, reasoning, a call,
// markup, or nothing said ("").
std::string_view kind_of(const json& e) {
  const std::string k = e.value("event", e.value("type", ""));
  const std::string field = e.value("field", "");
  if (k == "reasoning" || field == "thinking" || field == "reasoning_content") return "reasoning";
  if (k == "tool_call" || field == "tool_calls") return "call";
  if (k == "content" || field == "content") return "content";
  if (k == "structure") return "structure";
  return "";
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
    err = refuse(400, "the body must be a JSON object");
    return false;
  }
  body = std::move(*parsed);
  f = named(o, body);
  if (!f) {
    err = refuse(400, "unknown format (a dialect's name, or the served format)", "format");
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

// The first kMaxDiagnostics diagnostics (a page lists them one by one; 3.3 MB of broken calls
// has 300 000 of them): the rest are counted in "diagnostics_more".
constexpr std::size_t kMaxDiagnostics = 1000;

json diagnostics_json(const std::vector<diagnostic>& ds) {
  json out = json::array();
  for (const auto& d : ds) {
    if (out.size() == kMaxDiagnostics) break;
    out.push_back({{"code", std::string(error_name(d.code))},
                   {"severity", d.level == severity::error ? "error" : "warning"},
                   {"message", d.message},
                   {"offset", d.offset},
                   {"line", d.line},
                   {"column", d.column}});
  }
  return out;
}

std::size_t more_diagnostics(const std::vector<diagnostic>& ds) {
  return ds.size() > kMaxDiagnostics ? ds.size() - kMaxDiagnostics : 0;
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
    return refuse(400, "request must be an OpenAI chat request (an object with messages)",
                  "request");
  }
  const std::string request = dump_json(*req);
  const format_render_options ro{.add_generation_prompt =
                                     body.value("add_generation_prompt", true)};
  const json_render_result r = f->render_json(request, ro);
  json out = {{"format", f->name()},
              {"text", r.text},
              {"control", control_tokens(*f)},
              {"diagnostics", diagnostics_json(r.diagnostics)},
              {"diagnostics_more", more_diagnostics(r.diagnostics)}};
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
    return refuse(400, "text must be the model's output (a string)", "text");
  }
  const std::string& output = completion->get_ref<const std::string&>();
  const std::string prefix = body.value("prefix", "");
  const json tools = body.value("tools", json(nullptr));
  const parse_result r =
      f->parse(output, {.lenient = true, .completion = true, .prefix = prefix, .tools = tools});
  // The output as runs of one kind, [from, to, kind] in bytes: the decoder's event spans
  // tile it, and neighbours of one kind merge, so the answer stays near the output's size
  // (every event as JSON made a 77 MB answer of 3.3 MB of calls).
  json spans = json::array();
  bool cut = false;
  format_decoder dec(*f,
                     {.events = stream_events::native,
                      .lenient = true,
                      .completion = true,
                      .prefix = prefix,
                      .tools = tools.is_array() ? dump_json(tools) : std::string()},
                     [&spans, &cut](std::string_view text) {
                       const json e = json::parse(text, nullptr, false);
                       const auto at = e.find("span");
                       if (at == e.end() || !at->is_array() || at->size() != 2) return;
                       const auto from = (*at)[0].get<std::size_t>();
                       const auto to = (*at)[1].get<std::size_t>();
                       if (from == to) return;
                       const std::string_view k = kind_of(e);
                       if (!spans.empty() && spans.back()[1] == from && spans.back()[2] == k) {
                         spans.back()[1] = to;
                       } else if (spans.size() < kMaxSpans) {
                         spans.push_back({from, to, k});
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
                    {"spans", std::move(spans)},
                    {"spans_cut", cut},
                    {"diagnostics", diagnostics_json(r.diagnostics)},
                    {"diagnostics_more", more_diagnostics(r.diagnostics)},
                    {"response_source", source_json(*f)}};
  return {200, dump_json(out)};
}

}  // namespace ocml::serve
