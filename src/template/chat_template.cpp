// SPDX-License-Identifier: Apache-2.0
// chat_template: compile once, render from any thread; the variables of an OpenAI request.
#include <ctime>
#include <new>
#include <optional>

#include "core/read_file.hpp"
#include "core/utf8.hpp"
#include "interchange/json_util.hpp"
#include "interchange/simd_json.hpp"
#include "ocml/template.hpp"
#include "template/interpreter.hpp"
#include "template/lexer.hpp"

namespace ocml {

namespace {

// A template error as a diagnostic. A run-time error (but raise_exception's) names the
// statement that failed: its line:column in the template and its text ("template 41:5
// `{{ x.lstrip() }}`: ..."); the diagnostic's own position stays empty, as it counts in
// the input, not the template.
diagnostic from(const tmpl::template_error& e, std::string_view source = {}) {
  std::string message = e.message;
  // raise_exception's message is the template author's own words for the user (servers pass
  // it on as it is): it stays exactly so.
  if (e.pos < source.size() && e.code != error_code::template_raised) {
    std::size_t end = source.find('\n', e.pos);
    if (end == std::string_view::npos) end = source.size();
    for (const std::string_view close : {"}}", "%}", "#}"}) {
      const std::size_t c = source.find(close, e.pos);
      if (c != std::string_view::npos && c + 2 <= end) end = std::min(end, c + 2);
    }
    std::string_view stmt = source.substr(e.pos, std::min<std::size_t>(end - e.pos, 120));
    message = "template " + tmpl::position(source, e.pos) + " `" + std::string(stmt) +
              (end - e.pos > 120 ? "…" : "") + "`: " + message;
  }
  diagnostic d = make_error(e.code, std::move(message));
  d.line = 0;
  return d;
}

std::tm now_of(const std::string& iso) {
  std::tm t{};
  if (!iso.empty()) {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
    if (std::sscanf(iso.c_str(), "%d-%d-%dT%d:%d:%d", &y, &mo, &d, &h, &mi, &s) >= 3) {
      t.tm_year = y - 1900;
      t.tm_mon = mo - 1;
      t.tm_mday = d;
      t.tm_hour = h;
      t.tm_min = mi;
      t.tm_sec = s;
      std::tm copy = t;
      (void)timegm(&copy);  // weekday and day of the year
      t.tm_wday = copy.tm_wday;
      t.tm_yday = copy.tm_yday;
      return t;
    }
  }
  const std::time_t now = std::time(nullptr);
  localtime_r(&now, &t);
  return t;
}

// transformers' continue_final_message, on the rendered text and the final message's
// content (a string, or a list of parts whose last `text` one is continued).
result<std::string> continue_final(std::string rendered, const json& final_content) {
  const json* text = &final_content;
  if (final_content.is_array()) {
    text = nullptr;
    for (auto it = final_content.rbegin(); it != final_content.rend(); ++it) {
      if (it->is_object() && it->contains("text")) {
        text = &(*it)["text"];
        break;
      }
    }
    if (text == nullptr) {
      return make_error(error_code::template_type,
                        "continue_final_message is set but we could not find any text to "
                        "continue in the final message!");
    }
  }
  if (!text->is_string()) {
    return make_error(error_code::template_type,
                      "continue_final_message: the final message's content is not a string");
  }
  const std::string& message = text->get_ref<const std::string&>();
  const std::string_view stripped = detail::py_strip_ws(message);
  const std::size_t at = rendered.rfind(stripped);
  if (at == std::string::npos) {
    return make_error(error_code::template_type,
                      "continue_final_message is set but the final message does not appear in "
                      "the chat after applying the chat template!");
  }
  // As transformers: keep the message's trailing white space when the template kept it.
  const std::string_view lstripped = detail::py_strip_ws(message, true, false);
  const bool kept = rendered.compare(at, lstripped.size(), message) == 0;
  rendered.resize(at + (kept ? lstripped.size() : stripped.size()));
  return rendered;
}

// The final message's content of a request, or null.
json final_content(const json& request) {
  const auto m = request.find("messages");
  if (m == request.end() || !m->is_array() || m->empty() || !m->back().is_object()) return nullptr;
  return m->back().value("content", json());
}

// Whether a request asks to continue its final message (its own key wins over the
// options'), checked against add_generation_prompt as transformers checks it. Only a request
// that spells the key, or options that set it, are parsed again.
result<bool> wants_continue(std::string_view json_text, const template_json_options& options,
                            json& request) {
  if (!options.continue_final_message &&
      json_text.find("continue_final_message") == std::string_view::npos) {
    return false;
  }
  auto r = detail::try_parse_json(json_text);
  if (!r || !r->is_object()) return false;  // the renderer says why
  request = std::move(*r);
  const json& c = request.value("continue_final_message", json(options.continue_final_message));
  const json& g = request.value("add_generation_prompt", json(options.add_generation_prompt));
  const bool cont = c.is_boolean() && c.get<bool>();
  if (cont && g.is_boolean() && g.get<bool>()) {
    return make_error(error_code::template_type,
                      "continue_final_message and add_generation_prompt are not compatible. Use "
                      "continue_final_message when you want the model to continue the final "
                      "message, and add_generation_prompt when you want to add a header that "
                      "will prompt it to start a new assistant message instead.");
  }
  return cont;
}

}  // namespace

result<chat_template> chat_template::compile(std::string_view source) {
  try {
    chat_template t;
    t.prog_ = tmpl::parse_template(source);
    return t;
  } catch (const tmpl::template_error& e) {
    return from(e);
  } catch (const std::bad_alloc&) {
    return make_error(error_code::internal, "out of memory compiling the template");
  } catch (const std::exception& e) {  // a bug: say so rather than abort
    return make_error(error_code::internal, std::string("compiling the template: ") + e.what());
  }
}

namespace {

result<std::string> run(const tmpl::program& p, const tmpl::frame& globals,
                        const template_render_options& options) {
  std::string out;
  try {
    tmpl::interpreter in(p, globals, options.limits, out);
    in.now = now_of(options.now);
    in.run();
  } catch (const tmpl::template_error& e) {
    return from(e, p.source);
  } catch (const std::bad_alloc&) {
    return make_error(error_code::internal, "out of memory rendering the template");
  } catch (const std::exception& e) {  // a bug: say so rather than abort
    return make_error(error_code::internal, std::string("rendering the template: ") + e.what());
  }
  return out;
}

// ---- a request straight from simdjson to template values (no nlohmann in between) ----------

tmpl::value from_element(simdjson::dom::element e);

tmpl::value from_object(simdjson::dom::object o, bool call) {
  auto d = std::make_shared<tmpl::dict>();
  d->entries.reserve(o.size());
  for (const auto field : o) {
    tmpl::value v;
    if (call && field.key == "function" && field.value.is_object()) {
      v = from_object(field.value.get_object().value_unsafe(), true);
    } else if (call && field.key == "arguments" && field.value.is_string()) {
      // Arguments written as a JSON string are given to the template parsed (a parser of
      // their own: the request's document stays alive).
      thread_local simdjson::dom::parser args_parser;
      const std::string_view text = field.value.get_string().value_unsafe();
      simdjson::dom::element parsed;
      if (args_parser.parse(text.data(), text.size()).get(parsed) == simdjson::SUCCESS) {
        v = from_element(parsed);
      } else {
        v = tmpl::value(text);
      }
    } else {
      v = from_element(field.value);
    }
    d->set(tmpl::value(field.key), std::move(v));  // a repeated key: the last value wins
  }
  return tmpl::value(tmpl::dict_ptr(std::move(d)));
}

tmpl::value from_element(simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: {
      tmpl::list l;
      // (A named array: a range-for over value_unsafe() of a temporary would dangle.)
      const simdjson::dom::array a = e.get_array().value_unsafe();
      for (const auto x : a) l.push_back(from_element(x));
      return tmpl::value(std::move(l));
    }
    case simdjson::dom::element_type::OBJECT:
      return from_object(e.get_object().value_unsafe(), false);
    case simdjson::dom::element_type::INT64:
      return tmpl::value(static_cast<std::int64_t>(e.get_int64().value_unsafe()));
    case simdjson::dom::element_type::UINT64:
      return tmpl::value(static_cast<double>(e.get_uint64().value_unsafe()));
    case simdjson::dom::element_type::DOUBLE:
      return tmpl::value(e.get_double().value_unsafe());
    case simdjson::dom::element_type::STRING:
      return tmpl::value(e.get_string().value_unsafe());
    case simdjson::dom::element_type::BOOL:
      return tmpl::value(e.get_bool().value_unsafe());
    default:
      return tmpl::value(tmpl::none_t{});
  }
}

// The messages, with each tool call's arguments parsed.
tmpl::value messages_of(simdjson::dom::array a) {
  tmpl::list out;
  for (const auto m : a) {
    if (!m.is_object()) {
      out.push_back(from_element(m));
      continue;
    }
    auto d = std::make_shared<tmpl::dict>();
    const simdjson::dom::object fields = m.get_object().value_unsafe();
    for (const auto field : fields) {
      tmpl::value v;
      if (field.key == "tool_calls" && field.value.is_array()) {
        tmpl::list calls;
        const simdjson::dom::array array = field.value.get_array().value_unsafe();
        for (const auto c : array) {
          calls.push_back(c.is_object() ? from_object(c.get_object().value_unsafe(), true)
                                        : from_element(c));
        }
        v = tmpl::value(std::move(calls));
      } else {
        v = from_element(field.value);
      }
      d->set(tmpl::value(field.key), std::move(v));
    }
    out.push_back(tmpl::value(tmpl::dict_ptr(std::move(d))));
  }
  return tmpl::value(std::move(out));
}

}  // namespace

result<std::string> chat_template::render(const json& variables,
                                          const template_render_options& options) const {
  if (!prog_) return make_error(error_code::internal, "render of an empty chat_template");
  tmpl::frame globals;
  if (variables.is_object()) {
    for (const auto& [k, v] : variables.items()) globals.vars.emplace_back(k, tmpl::from_json(v));
  }
  return run(*prog_, globals, options);
}

result<json> template_variables(const json& request, const template_json_options& options) {
  if (!request.is_object())
    return make_error(error_code::invalid_json, "the request is not a JSON object");
  const auto m = request.find("messages");
  if (m == request.end() || !m->is_array()) {
    return make_error(error_code::invalid_json, "messages: missing or not an array");
  }
  json messages = *m;
  for (auto& msg : messages) {
    if (!msg.is_object()) continue;
    const auto calls = msg.find("tool_calls");
    if (calls == msg.end() || !calls->is_array()) continue;
    for (auto& c : *calls) {
      if (!c.is_object()) continue;
      json& f = c.contains("function") && c["function"].is_object() ? c["function"] : c;
      const auto a = f.find("arguments");
      if (a == f.end() || !a->is_string()) continue;
      if (auto parsed = detail::try_parse_json(a->get_ref<const std::string&>()))
        *a = std::move(*parsed);
    }
  }
  json vars = json::object();
  vars["messages"] = std::move(messages);
  vars["tools"] = request.value("tools", json());
  vars["documents"] = request.value("documents", json());
  vars["add_generation_prompt"] = request.contains("add_generation_prompt")
                                      ? request["add_generation_prompt"]
                                      : json(options.add_generation_prompt);
  for (const auto& [k, v] : options.kwargs.items()) vars[k] = v;
  if (const auto kw = request.find("chat_template_kwargs");
      kw != request.end() && kw->is_object()) {
    for (const auto& [k, v] : kw->items()) vars[k] = v;
  }
  return vars;
}

result<std::string> render_template_json(const chat_template& t, std::string_view json_text,
                                         const template_json_options& options) {
  json request;
  const auto cont = wants_continue(json_text, options, request);
  if (!cont) return cont.error();
  if (request.is_null()) {
    auto r = detail::try_parse_json(json_text);
    if (!r) return make_error(error_code::invalid_json, "the request is not valid JSON");
    request = std::move(*r);
  }
  auto vars = template_variables(request, options);
  if (!vars) return vars.error();
  auto out = t.render(*vars, options.render);
  if (!out || !*cont) return out;
  return continue_final(std::move(*out), final_content(request));
}

namespace {

// A special token's text: a string, or an AddedToken object's "content".
std::optional<std::string> token_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) {
    return v["content"].get<std::string>();
  }
  return std::nullopt;
}

}  // namespace

result<model_template> model_template::from_text(std::string_view text) {
  model_template m;
  const auto j = detail::try_parse_json(text);
  if (!j || !j->is_object()) {
    auto t = chat_template::compile(text);
    if (!t) return t.error();
    m.named_.emplace_back("default", std::move(*t));
    return m;
  }
  const auto ct = j->find("chat_template");
  if (ct == j->end()) return make_error(error_code::invalid_json, "chat_template: missing");
  const auto add = [&m](std::string name, const json& src) -> std::optional<diagnostic> {
    if (!src.is_string())
      return make_error(error_code::invalid_json, "chat_template: not a string");
    auto t = chat_template::compile(src.get_ref<const std::string&>());
    if (!t) {
      diagnostic d = t.error();
      d.message = "chat_template '" + name + "': " + d.message;
      return d;
    }
    m.named_.emplace_back(std::move(name), std::move(*t));
    return std::nullopt;
  };
  if (ct->is_array()) {
    for (const auto& e : *ct) {
      if (!e.is_object() || !e.contains("name") || !e["name"].is_string() ||
          !e.contains("template")) {
        return make_error(error_code::invalid_json,
                          "chat_template: each entry needs a name and a template");
      }
      if (auto err = add(e["name"].get<std::string>(), e["template"])) return *err;
    }
  } else if (auto err = add("default", *ct)) {
    return *err;
  }
  if (m.named_.empty()) return make_error(error_code::invalid_json, "chat_template: empty list");
  for (const char* k : {"bos_token", "eos_token", "unk_token", "sep_token", "pad_token",
                        "cls_token", "mask_token"}) {
    if (const auto it = j->find(k); it != j->end()) {
      if (const auto t = token_text(*it)) m.special_[k] = *t;
    }
  }
  if (const auto it = j->find("additional_special_tokens"); it != j->end() && it->is_array()) {
    json extra = json::array();
    for (const auto& e : *it) {
      if (const auto t = token_text(e)) extra.push_back(*t);
    }
    m.special_["additional_special_tokens"] = std::move(extra);
  }
  return m;
}

result<model_template> model_template::from_file(const std::string& path) {
  std::string text;
  if (!detail::read_file(path, text))
    return make_error(error_code::io_error, "cannot read " + path);
  return from_text(text);
}

const chat_template& model_template::select(bool has_tools) const {
  const auto named = [this](std::string_view n) -> const chat_template* {
    for (const auto& [k, t] : named_) {
      if (k == n) return &t;
    }
    return nullptr;
  };
  if (has_tools) {
    if (const auto* t = named("tool_use")) return *t;
  }
  if (const auto* t = named("default")) return *t;
  return named_.front().second;
}

result<std::string> model_template::render_json(std::string_view json_text,
                                                const template_json_options& options) const {
  json request;
  const auto cont = wants_continue(json_text, options, request);
  if (!cont) return cont.error();
  auto out = render_request(json_text, options);
  if (!out || !*cont) return out;
  return continue_final(std::move(*out), final_content(request));
}

result<std::string> model_template::render_request(std::string_view json_text,
                                                   const template_json_options& options) const {
  simdjson::dom::element doc;
  simdjson::dom::object req;
  simdjson::dom::array msgs;
  if (detail::parse_document(json_text).get(doc) == simdjson::SUCCESS &&
      doc.get_object().get(req) == simdjson::SUCCESS &&
      req["messages"].get_array().get(msgs) == simdjson::SUCCESS) {
    // The variables in transformers' order; a later one replaces an earlier one.
    tmpl::frame globals;
    globals.set("messages", messages_of(msgs));
    simdjson::dom::element e;
    globals.set("tools", req["tools"].get(e) == simdjson::SUCCESS ? from_element(e)
                                                                  : tmpl::value(tmpl::none_t{}));
    globals.set("documents", req["documents"].get(e) == simdjson::SUCCESS
                                 ? from_element(e)
                                 : tmpl::value(tmpl::none_t{}));
    globals.set("add_generation_prompt", req["add_generation_prompt"].get(e) == simdjson::SUCCESS
                                             ? from_element(e)
                                             : tmpl::value(options.add_generation_prompt));
    for (const auto& [k, v] : special_.items()) globals.set(k, tmpl::from_json(v));
    for (const auto& [k, v] : options.kwargs.items()) globals.set(k, tmpl::from_json(v));
    simdjson::dom::object kw;
    if (req["chat_template_kwargs"].get_object().get(kw) == simdjson::SUCCESS) {
      for (const auto field : kw) globals.set(field.key, from_element(field.value));
    }
    const tmpl::value* tools = globals.find("tools");
    const bool has_tools = tools != nullptr && tools->is_list() && !tools->items().empty();
    return run(*select(has_tools).prog_, globals, options.render);
  }
  // Not JSON simdjson takes (or not a request): the general reader says why.
  const auto request = detail::try_parse_json(json_text);
  if (!request) return make_error(error_code::invalid_json, "the request is not valid JSON");
  template_json_options o = options;
  json kwargs = special_;
  for (const auto& [k, v] : options.kwargs.items()) kwargs[k] = v;
  o.kwargs = std::move(kwargs);
  auto vars = template_variables(*request, o);
  if (!vars) return vars.error();
  const bool has_tools = (*vars)["tools"].is_array() && !(*vars)["tools"].empty();
  return select(has_tools).render(*vars, o.render);
}

}  // namespace ocml
