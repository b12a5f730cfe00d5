// SPDX-License-Identifier: Apache-2.0
// ocml::format: a dialect or a model folder behind one set of jobs.
#include "ocml/format.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <mutex>
#include <string_view>
#include <unordered_set>

#include "api/render_json.hpp"
#include "core/read_file.hpp"
#include "dialects/registry.hpp"
#include "interchange/json_util.hpp"
#include "ocml/convert.hpp"
#include "ocml/curated.hpp"
#include "ocml/derive.hpp"
#include "ocml/response.hpp"
#include "ocml/template.hpp"
#include "ocml/template_tokens.hpp"

namespace ocml {

struct format::model_data {
  model_template chat;
  std::optional<ocml::response_template> response;
  response_choice choice;
  std::vector<std::string> stop;
  // Probed from the chat template on first use (8 renders): a format found only to render
  // or parse does not pay for them.
  mutable std::once_flag holds_once;
  mutable std::vector<std::string> holds;
};

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

// A feature is held when a conversation using it renders its marker (and does not raise).
struct feature_probe {
  const char* feature;  // as convert.hpp's warnings name it
  const char* request;
  const char* marker;
};

constexpr const char* kCall =
    R"({"role":"assistant","content":"","tool_calls":[{"id":"call_ocmlprobeid","type":"function",)"
    R"("function":{"name":"ocmlprobe_fn","arguments":"{}"}}]})";

std::vector<std::string> probe_holds(const model_template& chat) {
  const std::string call = kCall;
  const std::string user = R"({"role":"user","content":"hi"})";
  const std::array<feature_probe, 8> probes = {{
      {"system messages",
       R"({"messages":[{"role":"system","content":"ocmlprobe_sys"},{"role":"user","content":"hi"}]})",
       "ocmlprobe_sys"},
      {"developer messages",
       R"({"messages":[{"role":"developer","content":"ocmlprobe_dev"},{"role":"user","content":"hi"}]})",
       "ocmlprobe_dev"},
      {"tool replies", nullptr, "ocmlprobe_reply"},
      {"tool calls", nullptr, "ocmlprobe_fn"},
      {"tool call ids", nullptr, "call_ocmlprobeid"},
      {"author names", R"({"messages":[{"role":"user","name":"ocmlprobe_name","content":"hi"}]})",
       "ocmlprobe_name"},
      {"reasoning",
       R"({"messages":[{"role":"user","content":"hi"},{"role":"assistant","reasoning_content":"ocmlprobe_think","content":"ok"}]})",
       "ocmlprobe_think"},
      {"tool definitions",
       R"({"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":)"
       R"({"name":"ocmlprobe_tool","description":"d","parameters":{"type":"object","properties":{}}}}]})",
       "ocmlprobe_tool"},
  }};
  // Calls and replies: one conversation with a call and its reply.
  const std::string with_reply =
      R"({"messages":[)" + user + "," + call +
      R"(,{"role":"tool","tool_call_id":"call_ocmlprobeid","name":"ocmlprobe_fn","content":"ocmlprobe_reply"}]})";
  std::vector<std::string> out;
  for (const feature_probe& p : probes) {
    const std::string request = p.request != nullptr ? p.request : with_reply;
    auto text = chat.render_json(request, {});
    if (text && text->find(p.marker) != std::string::npos) out.emplace_back(p.feature);
  }
  return out;
}

// Without a response template of its own, a model takes the curated one its chat template's
// fingerprint matches (docs/response-templates.md).
response_choice choose_curated(const model_template& chat,
                               std::optional<response_template>& response,
                               const std::string& why_not_own) {
  const curated_template* t = match_curated(chat.source());
  if (t == nullptr) {
    // No family matched: a template derived from the chat template, if one verifies.
    auto d = derive_response_template(chat);
    std::string why = why_not_own + "; no curated template's fingerprint matches";
    if (!d) return {"none", "", why + "; derivation: " + d.error().message};
    auto r = response_template::from_json(d->response_template);
    if (!r) return {"none", "", why + "; the derived template does not load"};
    response = std::move(r).value();
    std::string verified;
    for (const auto& v : d->verified) verified += (verified.empty() ? "" : ", ") + v;
    return {"derived", "",
            why + "; derived from the chat template, verified by round trip (" + verified + ")"};
  }
  auto r = response_template::from_text(t->text);
  if (!r) {  // the project's own file: the tests load every one
    return {"none", t->name, "curated " + t->name + " does not load: " + r.error().message};
  }
  response = std::move(r).value();
  return {"curated", t->name,
          why_not_own + "; curated " + t->name + " (" + t->family + "): " + curated_reason(*t)};
}

diagnostic prefixed(diagnostic d, const std::string& file) {
  d.message = file + ": " + d.message;
  return d;
}

result<format> fail_unknown(std::string_view name) {
  std::string known;
  for (const auto& d : dialects()) known += (known.empty() ? "" : ", ") + std::string(d.name);
  return make_error(error_code::invalid_json, "unknown format '" + std::string(name) +
                                                  "' (dialects: " + known + "; or model:PATH)");
}

}  // namespace

format::format(ocml::dialect d) : dialect_(d) {
  name_ = std::string(dialect_name(d));
}

result<format> format::find(std::string_view name) {
  if (!name.starts_with("model:")) {
    const auto d = parse_dialect(name);
    if (!d) return fail_unknown(name);
    return format(*d);
  }
  namespace fs = std::filesystem;
  fs::path file = std::string(name.substr(6));
  std::error_code ec;
  if (fs::is_directory(file, ec)) file /= "tokenizer_config.json";
  std::string text;
  std::string why;
  if (!detail::read_file(file.string(), text, &why)) {
    return make_error(error_code::io_error, "cannot read " + why);
  }
  auto config = parse_json_text(text);  // depth-guarded, with the error's line:column
  if (!config) return prefixed(config.error(), file.string());
  if (!config->is_object()) {
    return make_error(error_code::invalid_json, file.string() + ": not a JSON object");
  }
  auto chat = model_template::from_text(text);
  if (!chat) return prefixed(chat.error(), file.string());
  auto m = std::make_shared<model_data>();
  m->chat = std::move(chat).value();
  if (config->contains("response_template")) {
    auto resp = response_template::from_json(*config);
    if (!resp) return prefixed(resp.error(), file.string());
    m->response = std::move(resp).value();
    m->choice = {"folder", "", file.string() + " has a response_template"};
  } else {
    m->choice = choose_curated(m->chat, m->response,
                               file.string() + " has no response_template" +
                                   (config->contains("response_schema")
                                        ? " (its response_schema, the older form, is not read)"
                                        : ""));
  }
  // The chat template already read the special tokens (strings or AddedToken objects).
  m->stop = template_stop_strings(m->chat);
  add_generation_stops(file.parent_path(), *config, m->stop);
  format f;
  f.name_ = std::string(name);
  f.model_ = std::move(m);
  return f;
}

format format::from_templates(const model_template& chat, const ocml::response_template* response,
                              const format_template_options& options) {
  auto m = std::make_shared<model_data>();
  m->chat = chat;
  if (response != nullptr) {
    m->response = *response;
    m->choice = {"given", "", "the caller gave a response template"};
  } else if (options.curated) {
    m->choice = choose_curated(m->chat, m->response, "no response template was given");
  } else {
    m->choice = {"none", "", "no response template was given"};
  }
  m->stop = template_stop_strings(m->chat);
  // Deduplicated through a set: a caller's list of any length costs linear time. (Reserved
  // first: the set views the strings, which must not move.)
  m->stop.reserve(m->stop.size() + options.stop.size());
  std::unordered_set<std::string_view> seen(m->stop.begin(), m->stop.end());
  for (const auto& s : options.stop) {
    if (!s.empty() && seen.insert(s).second) m->stop.push_back(s);
  }
  format f;
  f.name_ = options.name;
  f.model_ = std::move(m);
  return f;
}

std::optional<ocml::dialect> format::dialect() const noexcept {
  if (model_) return std::nullopt;
  return dialect_;
}

std::vector<std::string> format::stop() const {
  if (model_) return model_->stop;
  const auto s = detail::codec_of(dialect_).info.stop;
  return {s.begin(), s.end()};
}

json format::conversation_json(const conversation& c, bool openai,
                               std::optional<std::uint64_t> call_id_seed) const {
  if (!openai) return to_native_json(c);
  if (model_) return to_openai_json(c, {.call_id_seed = call_id_seed});
  openai_options oo = openai_defaults(dialect_);
  oo.call_id_seed = call_id_seed;
  return to_openai_json(plain_meaning(c, dialect_), oo);
}

std::vector<std::string> format::holds() const {
  if (model_) {
    std::call_once(model_->holds_once, [m = model_.get()] { m->holds = probe_holds(m->chat); });
    return model_->holds;
  }
  const auto h = dialect_holds(dialect_);
  return {h.begin(), h.end()};
}

const model_template* format::chat_template() const noexcept {
  return model_ ? &model_->chat : nullptr;
}

const ocml::response_template* format::response_template() const noexcept {
  return model_ && model_->response ? &*model_->response : nullptr;
}

response_choice format::response_source() const {
  if (!model_) return {"dialect", name_, name_ + " is a built-in dialect"};
  return model_->choice;
}

namespace {

// A template's options from a request's.
template_json_options template_options(const format_render_options& o) {
  template_json_options t;
  t.add_generation_prompt = o.add_generation_prompt;
  t.continue_final_message = o.continue_final_message;
  t.kwargs = o.kwargs.is_object() ? o.kwargs : json::object();
  t.render.now = o.now;
  return t;
}

// A dialect's options from a request's: the kwargs its registry record says it reads, each
// into its one field; any other key is a warning naming it.
json_render_options dialect_options(ocml::dialect d, const format_render_options& o,
                                    std::vector<diagnostic>& warnings) {
  json_render_options jo = json_render_defaults(d);
  jo.format = o.input;
  jo.render.add_generation_prompt = o.add_generation_prompt;
  jo.render.continue_final_message = o.continue_final_message;
  detail::apply_kwargs(jo, o.kwargs, &warnings);
  return jo;
}

}  // namespace

json_render_result format::render_json(std::string_view json_text,
                                       const format_render_options& options) const {
  if (model_) {
    json_render_result r;
    if (options.input != json_format::automatic && options.input != json_format::openai) {
      r.diagnostics.push_back(
          make_error(error_code::invalid_json, "a chat template reads OpenAI chat JSON only"));
      return r;
    }
    auto text = model_->chat.render_json(json_text, template_options(options));
    if (text) {
      r.text = std::move(*text);
    } else {
      r.diagnostics.push_back(text.error());
    }
    return r;
  }
  std::vector<diagnostic> warnings;
  const json_render_options jo = dialect_options(dialect_, options, warnings);
  json_render_result r = ocml::render_json(json_text, jo);
  r.diagnostics.insert(r.diagnostics.begin(), warnings.begin(), warnings.end());
  return r;
}

json_token_result format::render_json_tokens(std::string_view json_text, const tokenizer& tok,
                                             const format_render_options& options,
                                             const token_render_options& tokens) const {
  if (model_) {
    return render_template_tokens(
        model_->chat, json_text, tok,
        {.render = template_options(options), .tokens = tokens, .stop = model_->stop});
  }
  std::vector<diagnostic> warnings;
  const json_render_options jo = dialect_options(dialect_, options, warnings);
  json_token_result r = ocml::render_json_tokens(json_text, jo, tok, tokens);
  r.diagnostics.insert(r.diagnostics.begin(), warnings.begin(), warnings.end());
  return r;
}

parse_result format::parse(std::string_view text, const format_parse_options& options) const {
  if (!model_) {
    decoder_options d;
    d.dialect = dialect_;
    d.lenient = options.lenient;
    d.completion = options.completion;
    return ocml::parse(text, d);
  }
  parse_result r;
  if (!model_->response) {
    r.diagnostics.push_back(
        make_error(error_code::invalid_json,
                   name_ + ": no response_template (parsing needs one; see docs/templates.md)"));
    return r;
  }
  response_parser_options po;
  po.prefix = options.prefix;
  po.tools = options.tools.is_array() ? &options.tools : nullptr;
  po.lenient = options.lenient;
  response_parser p(*model_->response, po, nullptr);
  p.push(text);
  auto m = p.finish();
  r.diagnostics = p.diagnostics();
  if (!m) return r;
  openai_options oo;
  oo.call_id_seed = options.call_id_seed;
  auto conv = response_to_conversation(*m, oo);
  if (!conv) {
    r.diagnostics.push_back(conv.error());
    return r;
  }
  r.conversation = std::move(*conv);
  return r;
}

}  // namespace ocml
