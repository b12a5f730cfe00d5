// SPDX-License-Identifier: Apache-2.0
// Probe renderings for response-template derivation, and the round trips that verify one.
#include "api/derive_probe.hpp"

#include "core/json_extent.hpp"

#include "ocml/model.hpp"

namespace ocml::detail {

namespace {

json user_message() {
  return {{"role", "user"}, {"content", std::string(probe::kUser)}};
}

json tool(std::string_view name, const json& properties) {
  return {{"type", "function"},
          {"function",
           {{"name", std::string(name)},
            {"description", "probe"},
            {"parameters", {{"type", "object"}, {"properties", properties}}}}}};
}

json call(std::string_view id, std::string_view name, const json& args) {
  return {{"id", std::string(id)},
          {"type", "function"},
          {"function", {{"name", std::string(name)}, {"arguments", args}}}};
}

std::string_view trimmed(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// A run of markers ("<|END_RESPONSE|><|END_OF_TURN_TOKEN|>") split into its markers.
std::vector<std::string> markers(std::string_view s) {
  std::vector<std::string> out;
  s = trimmed(s);
  while (!s.empty()) {
    const char open = s[0];
    const std::size_t end = open == '<'   ? s.find('>')
                            : open == '[' ? s.find(']')
                                          : std::string_view::npos;
    if (end == std::string_view::npos) {
      out.emplace_back(s);
      break;
    }
    out.emplace_back(s.substr(0, end + 1));
    s = trimmed(s.substr(end + 1));
  }
  return out;
}

std::string norm_text(const json& v) {
  return v.is_string() ? std::string(trimmed(v.get<std::string>())) : std::string();
}

}  // namespace

std::size_t json_value_end(std::string_view s, std::size_t at) {
  json_extent x(true);
  const std::size_t n = x.feed_until_complete(s.substr(at));
  return x.complete() ? at + n : std::string_view::npos;
}

probe::probe(const model_template& chat) : chat_(chat) {
  const json str = {{"type", "string"}};
  const json two = {{"ocmlprobe_arg", str}, {"ocmlprobe_brg", str}};
  tools_ = json::array({tool(kFn, two), tool(kFn2, two),
                        tool("get_weather", {{"city", str},
                                             {"days", {{"type", "integer"}}},
                                             {"metric", {{"type", "boolean"}}},
                                             {"tags", {{"type", "array"}}},
                                             {"opts", {{"type", "object"}}}}),
                        tool("get_time", {{"zone", str}})});
  const auto e = chat.special_tokens().find("eos_token");
  if (e != chat.special_tokens().end() && e->is_string()) eos = e->get<std::string>();
}

std::optional<std::string> probe::render(const json& messages, const json& tools,
                                         bool generation_prompt) const {
  json request = {{"messages", messages}};
  if (!tools.is_null()) request["tools"] = tools;
  template_json_options o;
  o.add_generation_prompt = generation_prompt;
  auto r = chat_.render_json(request.dump(), o);
  if (!r) return std::nullopt;
  return std::move(*r);
}

std::optional<probe::turn> probe::turn_of(const json& assistant, const json& tools) const {
  const json user = user_message();
  const auto nogen = render(json::array({user}), tools, false);
  const auto gen = render(json::array({user}), tools, true);
  const auto full = render(json::array({user, assistant}), tools, false);
  if (!nogen || !gen || !full || !full->starts_with(*nogen)) return std::nullopt;
  const std::string t = full->substr(nogen->size());
  const std::string header = gen->starts_with(*nogen) ? gen->substr(nogen->size()) : "";
  std::size_t common = 0;
  while (common < header.size() && common < t.size() && header[common] == t[common]) ++common;
  // The cut falls between markers: "<think>" of the prompt and "<tool_call>" of the turn
  // share a '<' that belongs to neither.
  while (common > 0 && common < header.size() &&
         std::string_view(">] \t\r\n").find(header[common - 1]) == std::string_view::npos) {
    --common;
  }
  turn r{*nogen + t.substr(0, common), t.substr(common)};
  if (!end_marker.empty()) {
    const std::size_t e = r.body.find(end_marker);
    if (e != std::string::npos) r.body.resize(e + end_marker.size());
  }
  return r;
}

bool probe::read_content(std::string& why) {
  const json user = user_message();
  // With the probe tools declared: some templates need them (Hermes' tool_use template
  // iterates `tools`), the others ignore them.
  const auto gen = render(json::array({user}), tools_, true);
  const auto nogen = render(json::array({user}), tools_, false);
  const auto t = turn_of({{"role", "assistant"}, {"content", std::string(kAnswer)}}, tools_);
  if (!gen || !nogen || !t) {
    why = "the chat template does not render a user turn followed by an assistant turn";
    return false;
  }
  const std::size_t a = t->body.find(kAnswer);
  if (a == std::string::npos) {
    why = "the assistant's content is not in its rendering";
    return false;
  }
  // The anchor: what the generation prompt adds (or, where it adds nothing, what follows the
  // user's text), as far as an assistant turn repeats it.
  std::string header = gen->starts_with(*nogen) ? gen->substr(nogen->size()) : "";
  const std::string prompt_tail = t->prompt.substr(nogen->size());
  anchor = !prompt_tail.empty() ? prompt_tail : header;
  if (trimmed(anchor).empty()) {
    const std::size_t u = gen->rfind(kUser);
    anchor = u == std::string::npos ? "" : std::string(trimmed(gen->substr(u + kUser.size())));
  }
  for (const auto& m : markers(std::string_view(t->body).substr(0, a))) skip.push_back(m);
  auto after = markers(std::string_view(t->body).substr(a + kAnswer.size()));
  if (!after.empty()) {
    end_marker = after.back();
    after.pop_back();
    skip.insert(skip.end(), after.begin(), after.end());
  } else {
    end_marker = eos;
  }
  return true;
}

std::optional<probe::turn> probe::reasoning_turn() const {
  return turn_of({{"role", "assistant"},
                  {"reasoning_content", std::string(kReason)},
                  {"content", std::string(kAnswer)}},
                 tools_);
}

std::optional<probe::turn> probe::call_turn(int calls) const {
  json list = json::array({call(
      "call_probe1", kFn, {{"ocmlprobe_arg", "ocmlprobeval"}, {"ocmlprobe_brg", "ocmlprobewal"}})});
  if (calls > 1) {
    list.push_back(call("call_probe2", kFn2,
                        {{"ocmlprobe_arg", "ocmlprobevbl"}, {"ocmlprobe_brg", "ocmlprobewbl"}}));
  }
  return turn_of({{"role", "assistant"}, {"content", ""}, {"tool_calls", list}}, tools_);
}

std::vector<std::string> probe::verify(const response_template& t, bool reasoning, bool calls,
                                       std::string& failed) const {
  struct check {
    const char* name;
    json message;
  };
  const json weather = {{"city", "Zürich \"old town\""},
                        {"days", 3},
                        {"metric", true},
                        {"tags", {"a", "b"}},
                        {"opts", {{"x", 1.5}}}};
  std::vector<check> checks = {
      {"content", {{"role", "assistant"}, {"content", "The answer is 42 (said the guide)."}}}};
  if (reasoning) {
    checks.push_back(
        {"reasoning",
         {{"role", "assistant"}, {"reasoning_content", "Six times seven."}, {"content", "42."}}});
  }
  if (calls) {
    checks.push_back({"one call",
                      {{"role", "assistant"},
                       {"content", ""},
                       {"tool_calls", {call("call_a1", "get_weather", weather)}}}});
    checks.push_back({"two calls",
                      {{"role", "assistant"},
                       {"content", ""},
                       {"tool_calls",
                        {call("call_a1", "get_weather", weather),
                         call("call_a2", "get_time", {{"zone", "Europe/Oslo"}})}}}});
  }
  std::vector<std::string> ok;
  for (const auto& c : checks) {
    const auto turn = turn_of(c.message, tools_);
    if (!turn) continue;  // the template refuses this message: nothing to verify
    response_parser_options o;
    o.prefix = turn->prompt;
    o.tools = &tools_;
    response_parser p(t, o, nullptr);
    p.push(turn->body);
    auto m = p.finish();
    if (!m) {
      failed = std::string(c.name) + ": " + m.error().message;
      return ok;
    }
    const json got = response_to_openai(*m);
    bool same = norm_text(got.value("content", json())) == norm_text(c.message["content"]) &&
                norm_text(got.value("reasoning_content", json())) ==
                    norm_text(c.message.value("reasoning_content", json()));
    const json want_calls = c.message.value("tool_calls", json::array());
    const json got_calls = got.value("tool_calls", json::array());
    same = same && want_calls.size() == got_calls.size();
    for (std::size_t i = 0; same && i < want_calls.size(); ++i) {
      const auto& w = want_calls[i]["function"];
      const auto& g = got_calls[i]["function"];
      same = g["name"] == w["name"] &&
             try_parse_json(g["arguments"].get<std::string>()).value_or(json()) == w["arguments"];
    }
    if (!same) {
      failed = std::string(c.name) + ": rendered " + json(turn->body).dump() + ", parsed back as " +
               got.dump();
      return ok;
    }
    ok.emplace_back(c.name);
  }
  return ok;
}

}  // namespace ocml::detail
