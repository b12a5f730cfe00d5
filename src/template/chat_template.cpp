// SPDX-License-Identifier: Apache-2.0
// chat_template: compile once, render from any thread; the variables of an OpenAI request.
#include <ctime>
#include <new>
#include <optional>

#include "core/read_file.hpp"
#include "core/utf8.hpp"
#include "interchange/json_util.hpp"
#include "ocml/template.hpp"
#include "template/interpreter.hpp"
#include "template/lexer.hpp"
#include "template/request_values.hpp"

namespace ocml {

namespace {

// A template error as a diagnostic. A run-time error (but raise_exception's) names the
// statement that failed: its line:column in the template and its text ("template 41:5
// `{{ x.lstrip() }}`: ..."); the diagnostic's own position stays empty, as it counts in
// the input, not the template.
diagnostic from(const tmpl::template_error& e, const tmpl::program* prog = nullptr) {
  const std::string_view source = prog != nullptr ? std::string_view(prog->source) : "";
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
    message = "template " + prog->position(e.pos) + " `" + std::string(stmt) +
              (end - e.pos > 120 ? "…" : "") + "`: " + message;
  }
  diagnostic d = make_error(e.code, std::move(message));
  d.line = 0;
  return d;
}

std::tm now_of(const std::string& iso) {
  std::tm t{};
  if (!iso.empty()) {
    // The same fixed time for every line of a batch: read once per thread.
    thread_local std::string last;
    thread_local std::tm last_tm{};
    if (iso == last) return last_tm;
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
      last = iso;
      last_tm = t;
      return t;
    }
  }
  const std::time_t now = std::time(nullptr);
  localtime_r(&now, &t);
  return t;
}

// transformers' continue_final_message, on the rendered text and the final message's
// content (a string, or a list of parts whose last `text` one is continued).
result<std::string> continue_final(std::string rendered, const tmpl::value& final_content) {
  const tmpl::value* text = &final_content;
  if (final_content.is_list()) {
    text = nullptr;
    const auto& parts = final_content.items();
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
      if (!it->is_dict()) continue;
      if (const tmpl::value* t = it->map().find("text")) {
        text = t;
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
  const std::string& message = text->str();
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

}  // namespace

result<chat_template> chat_template::compile(std::string_view source) {
  try {
    chat_template t;
    t.prog_ = tmpl::parse_template(source);
    return t;
  } catch (const tmpl::template_error& e) {
    // A syntax error counts in the template, which is this call's input: its position is
    // the diagnostic's (the message keeps its line:column too).
    diagnostic d = from(e);
    // `e.pos` counts in the lexed text, whose line ends are "\n" (Jinja2 reads "\r\n" and
    // "\r" as one): mapped back to the source's bytes, each "\r\n" before it one byte more.
    std::size_t at = 0;
    std::size_t lexed = 0;
    while (at < source.size() && lexed < e.pos) {
      if (source[at] == '\r' && at + 1 < source.size() && source[at + 1] == '\n') ++at;
      ++at;
      ++lexed;
    }
    if (lexed == e.pos) {
      // Line and column in the source: "\n", "\r\n" and a lone "\r" each end a line.
      d.offset = at;
      d.line = 1;
      std::size_t line_start = 0;
      for (std::size_t i = 0; i < at; ++i) {
        const bool crlf = source[i] == '\r' && i + 1 < source.size() && source[i + 1] == '\n';
        if (source[i] == '\n' || (source[i] == '\r' && !crlf)) {
          ++d.line;
          line_start = i + 1;
        }
      }
      d.column = at - line_start + 1;
    }
    return d;
  } catch (const std::bad_alloc&) {
    return make_error(error_code::internal, "out of memory compiling the template");
  } catch (const std::exception& e) {  // a bug: say so rather than abort
    return make_error(error_code::internal, std::string("compiling the template: ") + e.what());
  }
}

namespace {

result<std::string> run(const tmpl::program& p, const tmpl::named_values& globals,
                        const template_render_options& options) {
  std::string out;
  std::optional<tmpl::interpreter> in;
  try {
    in.emplace(p, globals, options.limits, out);
    in->now = now_of(options.now);
    in->generation_spans = options.generation_spans;
    if (const tmpl::template_error* e = in->run()) return from(*e, &p);
  } catch (tmpl::template_error& e) {
    // Where the error does not say, the statement that raised it.
    if (e.pos == static_cast<std::size_t>(-1) && in) e.pos = in->statement_pos();
    return from(e, &p);
  } catch (const std::bad_alloc&) {
    return make_error(error_code::internal, "out of memory rendering the template");
  } catch (const std::exception& e) {  // a bug: say so rather than abort
    return make_error(error_code::internal, std::string("rendering the template: ") + e.what());
  }
  return out;
}

// A request ready to render: the template's variables in transformers' order (a later one
// replaces an earlier one), whether it asks to continue its final message, and that
// message's content.
struct prepared {
  tmpl::named_values globals;
  bool has_tools = false;
  bool cont = false;
  tmpl::value final_content;
};

result<prepared> prepare(std::string_view json_text, const template_json_options& options,
                         const json& special) {
  std::optional<tmpl::value> request;
  try {
    request = tmpl::read_request(json_text);
  } catch (const tmpl::template_error& e) {  // an integer beyond Python's 4300 digits
    return from(e);
  }
  if (!request) return make_error(error_code::invalid_json, "the request is not valid JSON");
  if (!request->is_dict()) {
    return make_error(error_code::invalid_json, "the request is not a JSON object");
  }
  const tmpl::dict& req = request->map();
  const tmpl::value* msgs = req.find("messages");
  if (msgs == nullptr || !msgs->is_list()) {
    return make_error(error_code::invalid_json, "messages: missing or not an array");
  }
  prepared p;
  const tmpl::value none{tmpl::none_t{}};
  const auto get = [&req](std::string_view k, const tmpl::value& def) {
    const tmpl::value* v = req.find(k);
    return v != nullptr ? *v : def;
  };
  p.globals.set("messages", *msgs);
  p.globals.set("tools", get("tools", none));
  p.globals.set("documents", get("documents", none));
  const tmpl::value gen = get("add_generation_prompt", tmpl::value(options.add_generation_prompt));
  p.globals.set("add_generation_prompt", gen);
  for (const auto& [k, v] : special.items()) p.globals.set(k, tmpl::from_json(v));
  for (const auto& [k, v] : options.kwargs.items()) p.globals.set(k, tmpl::from_json(v));
  if (const tmpl::value* kw = req.find("chat_template_kwargs"); kw != nullptr && kw->is_dict()) {
    for (const auto& [k, v] : kw->map().entries) {
      if (k.is_string()) p.globals.set(k.str(), v);
    }
  }
  // transformers picks `tool_use` when tools is not None (an empty list included).
  const tmpl::value* tools = p.globals.find("tools");
  p.has_tools = tools != nullptr && !tools->is_none() && !tools->is_undefined();
  // continue_final_message: the request's own key wins over the options', checked against
  // add_generation_prompt as transformers checks it.
  const tmpl::value c = get("continue_final_message", tmpl::value(options.continue_final_message));
  p.cont = c.is_bool() && c.v.b();
  if (p.cont && gen.is_bool() && gen.v.b()) {
    return make_error(error_code::template_type,
                      "continue_final_message and add_generation_prompt are not compatible. Use "
                      "continue_final_message when you want the model to continue the final "
                      "message, and add_generation_prompt when you want to add a header that "
                      "will prompt it to start a new assistant message instead.");
  }
  if (p.cont && !msgs->items().empty() && msgs->items().back().is_dict()) {
    const tmpl::value* content = msgs->items().back().map().find("content");
    p.final_content = content != nullptr ? *content : none;
  }
  return p;
}

}  // namespace

result<std::string> chat_template::render(const json& variables,
                                          const template_render_options& options) const {
  if (!prog_) return make_error(error_code::internal, "render of an empty chat_template");
  tmpl::named_values globals;
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
  if (!t.prog_) return make_error(error_code::internal, "render of an empty chat_template");
  const tmpl::request_scope scope;  // (outlives the request's values)
  auto p = prepare(json_text, options, json::object());
  if (!p) return p.error();
  auto out = run(*t.prog_, p->globals, options.render);
  if (!out || !p->cont) return out;
  return continue_final(std::move(*out), p->final_content);
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
  // A file that opens as a JSON object ('{' then '"' or '}') is a config, not template text
  // (a template opens `{{` or `{%`): broken, it is an error, never rendered as text.
  const std::size_t open = text.find_first_not_of(" \t\r\n");
  const std::size_t next =
      open == std::string_view::npos ? open : text.find_first_not_of(" \t\r\n", open + 1);
  const bool looks_json = open != std::string_view::npos && text[open] == '{' &&
                          next != std::string_view::npos &&
                          (text[next] == '"' || text[next] == '}');
  if (looks_json && (!j || !j->is_object())) {
    return make_error(error_code::invalid_json,
                      "the file opens as a JSON config (a tokenizer_config.json) but is not "
                      "valid JSON");
  }
  if (!j || !j->is_object()) {
    auto t = chat_template::compile(text);
    if (!t) return t.error();
    m.named_.emplace_back("default", std::move(*t));
    m.source_ = text;
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
      // Its position counts in the decoded template string, not in the config file that
      // holds it (escapes differ): the message keeps the template's line:column.
      d.offset = 0;
      d.line = 0;
      d.column = 0;
      return d;
    }
    m.named_.emplace_back(std::move(name), std::move(*t));
    m.source_ += src.get_ref<const std::string&>();
    m.source_ += '\n';
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
  std::string why;
  if (!detail::read_file(path, text, &why))
    return make_error(error_code::io_error, "cannot read " + why);
  return from_text(text);
}

const chat_template* model_template::find(bool has_tools) const {
  // As transformers reads a list of named templates: into a dict, so a repeated name is
  // its last template.
  const auto named = [this](std::string_view n) -> const chat_template* {
    for (auto it = named_.rbegin(); it != named_.rend(); ++it) {
      if (it->first == n) return &it->second;
    }
    return nullptr;
  };
  if (has_tools) {
    if (const auto* t = named("tool_use")) return t;
  }
  return named("default");
}

const chat_template& model_template::select(bool has_tools) const {
  const chat_template* t = find(has_tools);
  return t != nullptr ? *t : named_.front().second;
}

std::string model_template::names() const {
  std::string out = "[";
  for (std::size_t i = 0; i < named_.size(); ++i) {
    if (i > 0) out += ", ";
    out += "'" + named_[i].first + "'";
  }
  return out + "]";
}

result<std::string> model_template::render_json(std::string_view json_text,
                                                const template_json_options& options) const {
  const tmpl::request_scope scope;  // (outlives the request's values)
  auto p = prepare(json_text, options, special_);
  if (!p) return p.error();
  const chat_template* t = find(p->has_tools);
  if (t == nullptr) {
    return make_error(error_code::template_type,
                      "This model has multiple chat templates with no default specified! Please "
                      "either pass a chat template or the name of the template you wish to use "
                      "to the `chat_template` argument. Available template names are " +
                          names() + ".");
  }
  auto out = run(*t->prog_, p->globals, options.render);
  if (!out || !p->cont) return out;
  return continue_final(std::move(*out), p->final_content);
}

}  // namespace ocml
