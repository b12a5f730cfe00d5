// SPDX-License-Identifier: Apache-2.0
// Deriving a response template from a chat template: probe renderings diffed for their
// markers, a template written from them, and a round trip that must give the probes back.
#include "ocml/derive.hpp"

#include <algorithm>
#include <optional>

#include "api/derive_probe.hpp"
#include "ocml/response.hpp"
#include "ocml/template.hpp"

namespace ocml {

namespace {

using detail::probe;

// A literal as a pattern: metacharacters escaped, white space runs as \s*, digit runs as
// \d+ (a call's index, such as Kimi's ":0").
std::string pattern_of(std::string_view lit) {
  std::string out;
  for (std::size_t i = 0; i < lit.size();) {
    const char c = lit[i];
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      while (i < lit.size() &&
             (lit[i] == ' ' || lit[i] == '\n' || lit[i] == '\t' || lit[i] == '\r')) {
        ++i;
      }
      out += "\\s*";
      continue;
    }
    if (c >= '0' && c <= '9') {
      while (i < lit.size() && lit[i] >= '0' && lit[i] <= '9') ++i;
      out += "\\d+";
      continue;
    }
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
    ++i;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// The last marker of a text ("<|im_start|>assistant\n<think>" → "<think>"): from its last
// '<' or '[' on, or the whole trimmed text.
std::string last_marker(std::string_view s) {
  s = trim(s);
  const auto at = s.find_last_of("<[");
  return std::string(at == std::string_view::npos ? s : s.substr(at));
}

// The first marker of a text ("</think>\n\n" → "</think>").
std::string first_marker(std::string_view s) {
  s = trim(s);
  if (s.empty() || (s[0] != '<' && s[0] != '[')) return std::string(s);
  const auto end = s.find_first_of(s[0] == '<' ? ">" : "]");
  return std::string(end == std::string_view::npos ? s : s.substr(0, end + 1));
}

std::size_t common_suffix(std::string_view a, std::string_view b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[a.size() - 1 - n] == b[b.size() - 1 - n]) ++n;
  return n;
}

struct call_shape {
  std::string open;    // pattern
  std::string close;   // pattern (empty: the JSON's end)
  bool list = false;   // the region holds a JSON list of calls
  bool named = false;  // the name is outside the JSON (a capture), the JSON is the arguments
  std::string first_key;
  std::string content = "json";
  json content_args;  // xml-inline: its tag pattern and value parser
  std::vector<std::string> found;
};

// The call units of a body: [start, end) of each call's JSON (object or, for `named`, the
// arguments), and where each name starts.
struct unit {
  std::size_t name = 0;
  std::size_t start = 0;
  std::size_t end = 0;
};

std::optional<unit> call_unit(std::string_view body, std::string_view name, std::size_t from) {
  const std::size_t n = body.find(name, from);
  if (n == std::string_view::npos) return std::nullopt;
  // The outermost JSON object around the name (a call object), else the first after it
  // (the arguments of a call whose name stands outside).
  std::optional<unit> best;
  for (std::size_t p = body.rfind('{', n); p != std::string_view::npos && p >= from;
       p = p == 0 ? std::string_view::npos : body.rfind('{', p - 1)) {
    const std::size_t e = detail::json_value_end(body, p);
    if (e != std::string_view::npos && e > n) best = unit{n, p, e};
    if (p == 0) break;
  }
  if (best) return best;
  const std::size_t p = body.find('{', n);
  if (p == std::string_view::npos) return std::nullopt;
  const std::size_t e = detail::json_value_end(body, p);
  if (e == std::string_view::npos) return std::nullopt;
  return unit{n, p, e};
}

// The start of a marker at or after the split `k` bytes from the end of `s`: the split
// moves right until it stands on '<' or '['.
std::size_t snap(std::string_view s, std::size_t k) {
  while (k > 0 && s[s.size() - k] != '<' && s[s.size() - k] != '[') --k;
  return k;
}

// XML-style parameters: <function=NAME><parameter=K>V</parameter>…, <arg_key>K</arg_key>
// <arg_value>V</arg_value>, <invoke name="NAME"><parameter name="K">V</parameter>.
std::optional<call_shape> xml_calls_of(const probe& pr, const probe::turn& one,
                                       const std::optional<probe::turn>& two,
                                       std::string_view reasoning_close, json& content_args,
                                       std::string& why) {
  const std::string_view b = one.body;
  const std::size_t n = b.find(probe::kFn);
  const std::size_t k1 = b.find("ocmlprobe_arg", n);
  const std::size_t v1 = b.find("ocmlprobeval", k1);
  const std::size_t k2 = b.find("ocmlprobe_brg", v1);
  const std::size_t v2 = b.find("ocmlprobewal", k2);
  if (n == std::string_view::npos || k1 == std::string_view::npos || v1 == std::string_view::npos ||
      k2 == std::string_view::npos || v2 == std::string_view::npos) {
    why = "the call's name, keys and values are not in order in its rendering";
    return std::nullopt;
  }
  constexpr std::size_t kKey = 13;  // "ocmlprobe_arg"
  constexpr std::size_t kVal = 12;  // "ocmlprobeval"
  const std::string_view name_to_key = b.substr(n + probe::kFn.size(), k1 - n - probe::kFn.size());
  const std::string_view key_to_value = b.substr(k1 + kKey, v1 - k1 - kKey);
  const std::string_view value_to_key = b.substr(v1 + kVal, k2 - v1 - kVal);
  const std::size_t po = snap(value_to_key, common_suffix(name_to_key, value_to_key));
  if (po == 0) {
    why = "no marker opens each parameter";
    return std::nullopt;
  }
  const std::string param_open(value_to_key.substr(value_to_key.size() - po));
  const std::string_view name_close = name_to_key.substr(0, name_to_key.size() - po);
  const std::string_view value_close = value_to_key.substr(0, value_to_key.size() - po);
  const std::string key_pat =
      trim(key_to_value).empty() ? "(?P<key>[^\\s<>\"=]+)" : "(?P<key>[^\\s<>\"=]+?)";
  content_args = {{"tag_pattern", pattern_of(param_open) + key_pat + pattern_of(key_to_value) +
                                      "(?P<value>.*?)" + pattern_of(value_close)},
                  {"value_parser", {{"name", "text"}, {"args", {{"strip", false}}}}}};
  // The call: what comes before its name, and after its last value's close.
  const std::size_t end1 = v2 + kVal + value_close.size();
  std::string_view before = b.substr(0, n);
  if (!reasoning_close.empty()) {
    const std::size_t r = before.rfind(reasoning_close);
    if (r != std::string_view::npos) before.remove_prefix(r + reasoning_close.size());
  }
  std::string_view after = b.substr(end1);
  std::size_t k = before.size();
  std::string per_close;
  if (two) {
    const std::string_view b2 = two->body;
    const std::size_t n1 = b2.find(probe::kFn);
    const std::size_t w1 = b2.find("ocmlprobewal", n1);
    const std::size_t n2 = b2.find(probe::kFn2, w1);
    if (n1 != std::string_view::npos && w1 != std::string_view::npos &&
        n2 != std::string_view::npos && w1 + kVal + value_close.size() <= n2) {
      const std::size_t e1 = w1 + kVal + value_close.size();
      const std::string_view between = b2.substr(e1, n2 - e1);
      k = snap(before, common_suffix(before, between));
      per_close = std::string(trim(between.substr(0, between.size() - k)));
      const std::size_t w2 = b2.find("ocmlprobewbl", n2);
      after = w2 == std::string_view::npos ? after : b2.substr(w2 + kVal + value_close.size());
    }
  }
  const std::string_view rest = trim(after);
  if (per_close.empty()) {
    per_close = first_marker(rest);
    if (per_close == pr.end_marker) per_close.clear();
  }
  std::string section_close;
  if (!per_close.empty() && rest.starts_with(per_close)) {
    section_close = first_marker(rest.substr(per_close.size()));
  }
  if (section_close == pr.end_marker || section_close.find_first_of("<[") != 0) {
    section_close.clear();
  }
  if (per_close.empty()) {
    why = "no marker closes a call";
    return std::nullopt;
  }
  const std::string per_open(before.substr(before.size() - k));
  const std::string section_open(trim(before.substr(0, before.size() - k)));
  call_shape s;
  s.named = true;
  s.open = (section_open.empty() ? "" : "(?:" + pattern_of(section_open) + "\\s*)?") +
           pattern_of(per_open) +
           (trim(name_close).empty() ? "(?P<name>[^\\s<>\"=]+)" : "(?P<name>[^\\s<>\"=]+?)") +
           pattern_of(name_close);
  s.close = pattern_of(per_close) +
            (section_close.empty() ? "" : "(?:\\s*" + pattern_of(section_close) + ")?");
  s.found.push_back("calls: XML-style parameters " + std::string(trim(param_open)) + "…" +
                    std::string(trim(value_close)) + "; section " +
                    (section_open.empty() ? "-" : section_open) + " … " +
                    (section_close.empty() ? "-" : section_close) + "; each " +
                    std::string(trim(per_open)) + " … " + per_close);
  return s;
}

std::optional<call_shape> calls_of(const probe& pr, const std::string& reasoning_close,
                                   std::string& why) {
  const auto one = pr.call_turn(1);
  // A template that takes one call at a time (Llama 3.2 raises on two): the one call's
  // rendering stands for both.
  auto two = pr.call_turn(2);
  const bool single = !two;
  if (single) two = one;
  if (!one) {
    why = "the chat template renders no tool call (or raises on one)";
    return std::nullopt;
  }
  const std::string_view b1 = one->body;
  const std::string_view b2 = two->body;
  const auto u1 = call_unit(b1, probe::kFn, 0);
  const auto c1 = call_unit(b2, probe::kFn, 0);
  const auto c2 = c1 && !single ? call_unit(b2, probe::kFn2, c1->end) : c1;
  if (!u1 || !c1 || !c2) {
    json args;
    auto x = xml_calls_of(pr, *one, single ? std::nullopt : two, reasoning_close, args, why);
    if (!x) {
      why =
          "no JSON call, no JSON arguments and no XML-style parameters around the probe "
          "call's name (" +
          why + ")";
      return std::nullopt;
    }
    x->content = "xml-inline";
    x->content_args = std::move(args);
    return x;
  }
  call_shape s;
  s.named = u1->start > u1->name;
  if (!s.named) {
    const auto obj = detail::try_parse_json(b1.substr(u1->start, u1->end - u1->start));
    if (!obj || !obj->is_object() || obj->empty()) {
      why = "the call's JSON does not parse";
      return std::nullopt;
    }
    s.first_key = obj->begin().key();
  }
  // A list of calls: the two calls are in one JSON list.
  const auto lb = trim(b2.substr(0, c1->start));
  if (!s.named && !lb.empty() && lb.back() == '[') {
    const std::size_t ls = b2.substr(0, c1->start).rfind('[');
    const std::size_t le = detail::json_value_end(b2, ls);
    if (le != std::string_view::npos && le >= c2->end) {
      s.list = true;
      const std::string open = std::string(trim(b2.substr(0, ls)));
      const std::string close = first_marker(b2.substr(le));
      s.open = open.empty() ? "(?=\\[\\s*\\{)" : pattern_of(open) + "\\s*(?=\\[)";
      s.close = close.empty() || close == pr.end_marker ? "" : pattern_of(close);
      s.found.push_back("calls: a JSON list after " + (open.empty() ? "nothing" : open));
      return s;
    }
  }
  const std::size_t start1 = s.named ? c1->name : c1->start;
  std::string_view before = b2.substr(0, start1);
  // What the prompt's reasoning markers left before the calls (Qwen3's empty think block)
  // is not the calls' section.
  if (!reasoning_close.empty()) {
    const std::size_t r = before.rfind(reasoning_close);
    if (r != std::string_view::npos) before.remove_prefix(r + reasoning_close.size());
  }
  std::string_view after = b2.substr(c2->end);
  std::size_t k = before.size();  // one call: all of it opens the call
  std::string per_close;
  if (single) {
    per_close = first_marker(after);  // its close is the first marker after it
    if (per_close == pr.end_marker || per_close.find_first_of("<[") != 0) per_close.clear();
    after = trim(after).substr(per_close.size());
  } else {
    const std::size_t start2 = s.named ? c2->name : c2->start;
    const std::string_view between = b2.substr(c1->end, start2 - c1->end);
    k = common_suffix(before, between);
    // The split falls where a marker starts ("<|tool_call_begin|>", not "|><|tool…").
    while (k > 0 && std::string_view("<[ \t\r\n").find(before[before.size() - k]) ==
                        std::string_view::npos) {
      --k;
    }
    per_close = std::string(trim(between.substr(0, between.size() - k)));
  }
  const std::string per_open(before.substr(before.size() - k));
  const std::string section_open(trim(before.substr(0, before.size() - k)));
  std::string section_close;
  const std::string_view rest = trim(after);
  if (single || per_close.empty()) {
    section_close = first_marker(rest);
  } else if (rest.starts_with(per_close)) {
    section_close = first_marker(rest.substr(per_close.size()));
  }
  if (section_close == pr.end_marker || section_close.find_first_of("<[") != 0) {
    section_close.clear();
  }
  std::string open = section_open.empty() ? "" : "(?:" + pattern_of(section_open) + "\\s*)?";
  open += pattern_of(per_open);
  if (s.named) {
    const std::string_view mid =
        b1.substr(u1->name + probe::kFn.size(), u1->start - u1->name - probe::kFn.size());
    open += "(?P<name>[^\\s<>\\[\\]{}\"]+?)" + pattern_of(mid);
  } else if (trim(per_open).empty() && section_open.empty()) {
    open = "(?=\\{\\s*\"" + s.first_key + "\"\\s*:)";
  } else {
    open += "(?=\\{)";
  }
  s.open = open;
  if (!per_close.empty()) {
    s.close = pattern_of(per_close) +
              (section_close.empty() ? "" : "(?:\\s*" + pattern_of(section_close) + ")?");
  }
  s.found.push_back(
      "calls: " + std::string(s.named ? "name, then JSON arguments" : "JSON objects") +
      "; section " + (section_open.empty() ? "-" : section_open) + " … " +
      (section_close.empty() ? "-" : section_close) + "; each " +
      std::string(trim(per_open).empty() ? "-" : trim(per_open)) + " … " +
      (per_close.empty() ? "(the JSON's end)" : per_close));
  return s;
}

json build(const probe& pr, const std::optional<std::pair<std::string, std::string>>& reasoning,
           const std::optional<call_shape>& calls) {
  json t = {{"defaults", {{"role", "assistant"}}}, {"fields", json::object()}};
  if (!pr.anchor.empty()) t["start_anchor"] = pr.anchor;
  if (!pr.skip.empty()) t["x-ocml-skip"] = pr.skip;
  json& f = t["fields"];
  if (reasoning) {
    f["reasoning_content"] = {
        {"open", reasoning->first}, {"close", reasoning->second}, {"x-ocml-once", true}};
  }
  json content_close = json::array();
  if (!pr.end_marker.empty()) content_close.push_back(pr.end_marker);
  if (!pr.eos.empty() && pr.eos != pr.end_marker) content_close.push_back(pr.eos);
  if (calls) {
    json c = {{"open_pattern", calls->open},
              {"repeats", true},
              {"content", calls->content},
              {"x-ocml-fallback", "text"}};
    if (!calls->content_args.is_null()) c["content_args"] = calls->content_args;
    if (calls->close.empty()) {
      c["x-ocml-json-end"] = true;
      if (!content_close.empty()) c["close"] = content_close;
    } else {
      c["close_pattern"] = calls->close;
    }
    if (calls->named) {
      c["transform"] = {{"type", "function"},
                        {"function", {{"name", "{name}"}, {"arguments", "{content}"}}}};
    }
    f["tool_calls"] = c;
  }
  json content = {{"content_args", {{"strip", false}}}, {"repeats", true}, {"join", ""}};
  if (!content_close.empty()) content["close"] = content_close;
  f["content"] = content;
  return t;
}

}  // namespace

result<derived_template> derive_response_template(const model_template& chat) {
  probe pr(chat);
  std::string why;
  if (!pr.read_content(why)) return make_error(error_code::response_template, why);
  derived_template d;
  d.found.push_back("assistant turn: anchor " + json(pr.anchor).dump() + ", end " +
                    json(pr.end_marker).dump());
  std::optional<std::pair<std::string, std::string>> reasoning;
  if (const auto r = pr.reasoning_turn()) {
    const std::size_t i = r->body.find(probe::kReason);
    const std::size_t j = r->body.find(probe::kAnswer);
    if (i != std::string::npos && j != std::string::npos && j > i) {
      std::string open = last_marker(std::string_view(r->body).substr(0, i));
      if (open.empty()) open = last_marker(r->prompt);
      const std::string close = first_marker(std::string_view(r->body).substr(
          i + probe::kReason.size(), j - i - probe::kReason.size()));
      if (!open.empty() && !close.empty()) {
        reasoning = std::make_pair(open, close);
        d.found.push_back("reasoning: " + open + " … " + close);
        // The prompt may open reasoning itself: the anchor stops before it, so the parser
        // reads the open.
        const std::size_t at = pr.anchor.rfind(open);
        if (at != std::string::npos && at > 0) pr.anchor.resize(at);
      }
    }
    if (!reasoning && r->body.find(probe::kReason) != std::string::npos) {
      return make_error(error_code::response_template,
                        "the chat template writes reasoning, but no open and close markers "
                        "around it were found");
    }
  }
  std::string calls_why;
  const auto calls = calls_of(pr, reasoning ? reasoning->second : std::string(), calls_why);
  if (calls) {
    d.found.insert(d.found.end(), calls->found.begin(), calls->found.end());
  } else if (const auto one = pr.call_turn(1);
             one && one->body.find(probe::kFn) != std::string::npos) {
    // The template has a call syntax and it was not understood: no template that would read
    // calls as text.
    return make_error(
        error_code::response_template,
        "the chat template writes tool calls, but their syntax was not derived: " + calls_why);
  } else {
    d.found.push_back("calls: none (" + calls_why + ")");
  }
  d.response_template = build(pr, reasoning, calls);
  auto t = response_template::from_json(d.response_template);
  if (!t)
    return make_error(error_code::response_template,
                      "derived template does not load: " + t.error().message);
  std::string failed;
  d.verified = pr.verify(*t, reasoning.has_value(), calls.has_value(), failed);
  if (!failed.empty()) {
    return make_error(error_code::response_template,
                      "derived template does not round-trip: " + failed);
  }
  // The same without ocml's extensions, for transformers' loader, if it still verifies.
  json portable = d.response_template;
  portable.erase("x-ocml-skip");
  for (auto& [name, f] : portable["fields"].items()) {
    for (auto it = f.begin(); it != f.end();) {
      it = it.key().starts_with("x-ocml-") ? f.erase(it) : std::next(it);
    }
  }
  if (auto pt = response_template::from_json(portable)) {
    std::string pfailed;
    (void)pr.verify(*pt, reasoning.has_value(), calls.has_value(), pfailed);
    if (pfailed.empty()) d.portable = std::move(portable);
  }
  return d;
}

}  // namespace ocml
