// SPDX-License-Identifier: Apache-2.0
// A seeded corpus of OpenAI chat conversations: tools with varied schemas, parallel calls,
// unicode, quotes, code, floats. Used for the template differential tests.
#pragma once

#include <random>
#include <string>

#include "ocml/model.hpp"

namespace ocml::test {

class openai_corpus {
 public:
  explicit openai_corpus(std::uint32_t seed) : rng_(seed) {}

  std::string text() {
    static const std::vector<std::string> pieces = {"Hello",
                                                    " world",
                                                    "日本語",
                                                    "émoji 😀",
                                                    "\"quoted\"",
                                                    "back\\slash",
                                                    "\n",
                                                    "\t",
                                                    "```python\nprint('x')\n```",
                                                    "<b>bold</b>",
                                                    "a < b && c > d",
                                                    "{\"json\": 1}",
                                                    "    indented",
                                                    "ümlaut",
                                                    "\u00a0",
                                                    "tab\there",
                                                    "100%",
                                                    "#include <vector>",
                                                    "  "};
    std::string s;
    const int n = pick(1, 6);
    for (int i = 0; i < n; ++i)
      s += pieces[static_cast<std::size_t>(pick(0, static_cast<int>(pieces.size()) - 1))];
    return s;
  }

  json value(int depth) {
    switch (pick(0, depth > 2 ? 4 : 6)) {
      case 0:
        return text();
      case 1:
        return pick(-1000, 100000);
      case 2: {
        static const double floats[] = {0.5, 1.0, -2.25, 1e-7, 3.14159, 1e21, 100.0, 0.1};
        return floats[pick(0, 7)];
      }
      case 3:
        return pick(0, 1) == 1;
      case 4:
        return nullptr;
      case 5: {
        json a = json::array();
        for (int i = pick(0, 3); i > 0; --i) a.push_back(value(depth + 1));
        return a;
      }
      default: {
        json o = json::object();
        for (int i = pick(0, 3); i > 0; --i) o[key()] = value(depth + 1);
        return o;
      }
    }
  }

  std::string key() {
    static const char* keys[] = {"city",  "unit",   "query", "n",  "zeta",
                                 "alpha", "nested", "ключ",  "x y"};
    return keys[pick(0, 8)];
  }

  json tool_def() {
    json props = json::object();
    json required = json::array();
    for (int i = pick(0, 3); i > 0; --i) {
      const std::string k = key();
      static const char* types[] = {"string", "number", "integer", "boolean", "array", "object"};
      json p = {{"type", types[pick(0, 5)]}};
      if (pick(0, 1)) p["description"] = text();
      if (pick(0, 3) == 0) p["enum"] = json::array({"a", "b"});
      if (pick(0, 3) == 0) p["default"] = value(2);
      props[k] = p;
      if (pick(0, 1)) required.push_back(k);
    }
    json fn = {{"name", "fn_" + std::to_string(pick(0, 20))}};
    if (pick(0, 3) != 0) fn["description"] = text();
    fn["parameters"] = {{"type", "object"}, {"properties", props}, {"required", required}};
    json t = {{"type", "function"}, {"function", fn}};
    if (pick(0, 5) == 0) t["strict"] = true;
    return t;
  }

  json conversation() {
    json c = json::object();
    if (pick(0, 1)) {
      json tools = json::array();
      for (int i = pick(1, 3); i > 0; --i) tools.push_back(tool_def());
      c["tools"] = tools;
    }
    json msgs = json::array();
    if (pick(0, 2) != 0) msgs.push_back({{"role", "system"}, {"content", text()}});
    for (int turn = pick(1, 4); turn > 0; --turn) {
      json u = {{"role", "user"}, {"content", text()}};
      if (pick(0, 5) == 0) u["name"] = "alice";
      msgs.push_back(u);
      if (pick(0, 1)) {
        json a = {{"role", "assistant"}};
        a["content"] = pick(0, 1) ? json(text()) : json(nullptr);
        json calls = json::array();
        const int n = pick(1, 3);
        for (int i = 0; i < n; ++i) {
          json args = json::object();
          for (int k = pick(0, 3); k > 0; --k) args[key()] = value(1);
          calls.push_back(
              {{"id", "call_" + std::to_string(i)},
               {"type", "function"},
               {"function",
                {{"name", "fn_" + std::to_string(pick(0, 20))}, {"arguments", args.dump()}}}});
        }
        a["tool_calls"] = calls;
        if (pick(0, 3) == 0) a["reasoning_content"] = text();
        msgs.push_back(a);
        for (int i = 0; i < n; ++i) {
          msgs.push_back({{"role", "tool"},
                          {"tool_call_id", "call_" + std::to_string(i)},
                          {"content", text()}});
        }
      }
      msgs.push_back({{"role", "assistant"}, {"content", text()}});
    }
    c["messages"] = msgs;
    if (pick(0, 1)) c["add_generation_prompt"] = true;
    return c;
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  std::mt19937 rng_;
};

}  // namespace ocml::test
