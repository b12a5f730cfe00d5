// SPDX-License-Identifier: Apache-2.0
// Helpers for the runtime tests: replaying a recorded completion and merging event logs so
// that logs from different chunkings can be compared.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ocml/events.hpp"
#include "ocml/generate.hpp"

namespace ocml::test {

inline std::string read_completion(const std::string& name) {
  std::ifstream f(std::string(OCML_FIXTURE_DIR) + "/completions/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// OpenAI chunks folded into one object: role, content, reasoning_content, tool_calls by
/// index (arguments concatenated), finish_reason, errors.
inline nlohmann::json merge_openai(const std::vector<std::string>& lines) {
  nlohmann::json out = {{"content", ""},
                        {"reasoning_content", ""},
                        {"tool_calls", nlohmann::json::array()},
                        {"errors", nlohmann::json::array()}};
  for (const auto& line : lines) {
    const auto j = nlohmann::json::parse(line);
    if (j.contains("error")) {
      out["errors"].push_back(j["error"]["code"]);
      continue;
    }
    const auto& c = j.at("choices").at(0);
    if (!c["finish_reason"].is_null()) out["finish_reason"] = c["finish_reason"];
    const auto& d = c.at("delta");
    if (d.contains("role")) out["role"] = d["role"];
    if (d.contains("content"))
      out["content"] = out["content"].get<std::string>() + d["content"].get<std::string>();
    if (d.contains("reasoning_content")) {
      out["reasoning_content"] =
          out["reasoning_content"].get<std::string>() + d["reasoning_content"].get<std::string>();
    }
    for (const auto& tc : d.value("tool_calls", nlohmann::json::array())) {
      const auto i = tc.at("index").get<std::size_t>();
      auto& calls = out["tool_calls"];
      while (calls.size() <= i) calls.push_back({{"arguments", ""}});
      if (tc.contains("id")) calls[i]["id"] = tc["id"];
      const auto& f = tc.at("function");
      if (f.contains("name")) calls[i]["name"] = f["name"];
      calls[i]["arguments"] =
          calls[i]["arguments"].get<std::string>() + f.value("arguments", std::string());
    }
  }
  return out;
}

/// OpenChatML events with adjacent deltas of the same event, message and call joined.
inline nlohmann::json merge_ocml(const std::vector<std::string>& lines) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& line : lines) {
    auto j = nlohmann::json::parse(line);
    if (!out.empty() && j.contains("delta")) {
      auto& last = out.back();
      if (last.value("event", "") == j.value("event", "") &&
          last.value("message_id", "") == j.value("message_id", "") &&
          last.value("call_id", "") == j.value("call_id", "") && last.contains("delta")) {
        last["delta"] = last["delta"].get<std::string>() + j["delta"].get<std::string>();
        continue;
      }
    }
    out.push_back(std::move(j));
  }
  return out;
}

/// One replay of a recorded completion through the scripted backend.
struct replay {
  generation gen;
  std::vector<std::string> openai, ocml;
};

inline replay replay_completion(const std::string& text, dialect d, std::size_t chunk,
                                bool think = false) {
  replay r;
  scripted_engine engine({{.text = text, .chunk = chunk}});
  prompt p;
  p.text = "(prompt)";
  p.stop = stop_sequences(d);
  openai_chunk_writer openai({}, [&r](std::string_view s) { r.openai.emplace_back(s); });
  ocml_event_writer ocml([&r](std::string_view s) { r.ocml.emplace_back(s); });
  // One seed for every replay, so a call has the same id at every chunk size.
  r.gen =
      generate(engine, p, {.dialect = d, .think = think, .call_id_seed = 1}, [&](const delta& x) {
        openai(x);
        ocml(x);
      });
  openai.finish(r.gen.finish);
  ocml.finish(r.gen.finish);
  return r;
}

}  // namespace ocml::test
