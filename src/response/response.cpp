// SPDX-License-Identifier: Apache-2.0
// The public face of response templates: loading, the parser, the one-shot parse.
#include "ocml/response.hpp"
#include "core/read_file.hpp"
#include "response/executor.hpp"
#include "response/spec.hpp"

namespace ocml {

std::string_view response_event_name(response_event_kind k) noexcept {
  switch (k) {
    case response_event_kind::history:
      return "history";
    case response_event_kind::structure:
      return "structure";
    case response_event_kind::region_open:
      return "region_open";
    case response_event_kind::region_chunk:
      return "region_chunk";
    case response_event_kind::region_close:
      return "region_close";
    case response_event_kind::unclaimed:
      return "unclaimed";
    case response_event_kind::diagnostic:
      return "diagnostic";
    case response_event_kind::region_item:
      return "region_item";
    case response_event_kind::region_call:
      return "region_call";
  }
  return "";
}

result<response_template> response_template::from_json(const json& j) {
  const json* spec = &j;
  if (j.is_object() && !j.contains("fields")) {
    const auto it = j.find("response_template");
    if (it == j.end()) {
      return make_error(error_code::response_template,
                        "no response template: the JSON has neither \"fields\" nor "
                        "\"response_template\"");
    }
    spec = &*it;
  }
  auto s = resp::load_spec(*spec);
  if (!s) return s.error();
  response_template t;
  t.spec_ = std::make_shared<const resp::spec>(std::move(s).value());
  return t;
}

result<response_template> response_template::from_text(std::string_view json_text) {
  auto parsed = parse_json_text(json_text);  // depth-guarded, with the error's line:column
  if (!parsed) {
    diagnostic d = parsed.error();
    d.code = error_code::response_template;
    d.message = "the response template is not valid JSON: " + d.message;
    return d;
  }
  json j = std::move(*parsed);
  return from_json(j);
}

result<response_template> response_template::from_file(const std::string& path) {
  std::string text;
  std::string why;
  if (!detail::read_file(path, text, &why))
    return make_error(error_code::io_error, "cannot read " + why);
  auto t = from_text(text);
  if (!t) {
    diagnostic d = t.error();
    d.message = path + ": " + d.message;
    return d;
  }
  return t;
}

std::vector<std::string> response_template::fields() const {
  std::vector<std::string> out;
  if (spec_ == nullptr) return out;
  for (const auto& f : spec_->fields) out.push_back(f.name);
  return out;
}

response_parser::response_parser(const response_template& t, const response_parser_options& options,
                                 sink on_event)
    : x_(std::make_unique<resp::executor>(t.spec_, options, std::move(on_event))) {}
response_parser::~response_parser() = default;
response_parser::response_parser(response_parser&&) noexcept = default;
response_parser& response_parser::operator=(response_parser&&) noexcept = default;

void response_parser::push(std::string_view piece) {
  x_->push(piece);
}
result<json> response_parser::finish() {
  return x_->finish();
}
const std::vector<diagnostic>& response_parser::diagnostics() const noexcept {
  return x_->diagnostics();
}

result<json> parse_response(const response_template& t, std::string_view generation,
                            const response_parser_options& options) {
  response_parser p(t, options, nullptr);
  p.push(generation);
  return p.finish();
}

json response_event_json(const response_event& e) {
  json j = json::object();
  j["type"] = response_event_name(e.kind);
  if (!e.field.empty()) j["field"] = e.field;
  j["span"] = {e.span.begin, e.span.end};
  switch (e.kind) {
    case response_event_kind::region_chunk:
      j["text"] = e.text;
      j["dirty"] = e.dirty;
      break;
    case response_event_kind::history:
    case response_event_kind::structure:
    case response_event_kind::unclaimed:
      j["text"] = e.text;
      break;
    case response_event_kind::region_close:
    case response_event_kind::region_item:
      j["value"] = *e.value;
      break;
    case response_event_kind::region_call:
      j["name"] = e.call_name;
      if (!e.text.empty()) j["id"] = e.text;
      break;
    case response_event_kind::diagnostic:
      j["code"] = error_name(e.diag->code);
      j["severity"] = e.diag->level == severity::error ? "error" : "warning";
      j["message"] = e.diag->message;
      j["line"] = e.diag->line;
      j["column"] = e.diag->column;
      break;
    default:
      break;
  }
  if (e.from_prefix) j["prefix"] = true;
  return j;
}

}  // namespace ocml
