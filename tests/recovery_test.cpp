// SPDX-License-Identifier: Apache-2.0
// The recovery corpus (tests/recovery/<dialect>.json): what models really write, with the
// OpenAI message lenient mode must return and the error strict mode must give. Every case
// runs whole and at every chunk size 1-16, lenient and strict; and the OpenAI chunks of the
// stream, folded together, must equal the parsed response (here and on the whole
// conformance suite).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "ocml/convert.hpp"
#include "ocml/events.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using ocml::json;

namespace {

const fs::path kRoot = fs::path(OCML_SOURCE_DIR) / "tests";

// Generated call ids are random per response; the corpus is replayed with this seed, and
// its expected "call_N" stands for call_ids(kSeed)(N), so the parsed message and the folded
// stream must give each call the very same id.
constexpr std::uint64_t kSeed = 7;

json with_ids(json j) {
  const auto id_of = [](const json& v) {
    const std::string s = v;
    return s.rfind("call_", 0) == 0 && s.size() < 10
               ? json(ocml::call_ids(kSeed)(std::stoul(s.substr(5))))
               : v;
  };
  for (auto& m : j) {
    if (m.contains("tool_call_id")) m["tool_call_id"] = id_of(m["tool_call_id"]);
    if (!m.contains("tool_calls")) continue;
    for (auto& c : m["tool_calls"]) c["id"] = id_of(c["id"]);
  }
  return j;
}

std::vector<std::string> codes(const ocml::parse_result& r) {
  std::vector<std::string> out;
  for (const auto& d : r.diagnostics) out.emplace_back(ocml::error_name(d.code));
  return out;
}

const ocml::diagnostic* first_error(const ocml::parse_result& r) {
  for (const auto& d : r.diagnostics) {
    if (d.level == ocml::severity::error) return &d;
  }
  return nullptr;
}

// The assistant's side of a parsed response as one OpenAI message: texts of successive
// messages joined with "\n", calls in order (what a client gets from a non-streamed call).
json merged_response(const ocml::conversation& c) {
  const json msgs = ocml::to_openai_json(c, {.call_id_seed = kSeed})["messages"];
  std::string content, reasoning;
  bool has_content = false, has_reasoning = false;
  json calls = json::array();
  for (const auto& m : msgs) {
    if (m["role"] != "assistant") continue;
    if (m.contains("content") && m["content"].is_string()) {
      if (has_content) content += "\n";
      content += m["content"].get<std::string>();
      has_content = true;
    }
    if (m.contains("reasoning_content")) {
      if (has_reasoning) reasoning += "\n";
      reasoning += m["reasoning_content"].get<std::string>();
      has_reasoning = true;
    }
    if (m.contains("tool_calls")) {
      for (const auto& tc : m["tool_calls"]) calls.push_back(tc);
    }
  }
  // An empty answer and no answer read the same to a client folding a stream.
  json out = {{"content", content.empty() ? json(nullptr) : json(content)}};
  if (has_reasoning) out["reasoning_content"] = reasoning;
  for (const char* block : {"reflection", "introspection"}) {
    std::string all;
    for (const auto& m : msgs) {
      if (m["role"] == "assistant" && m.contains(block)) all += m[block].get<std::string>();
    }
    if (!all.empty()) out[block] = all;
  }
  if (!calls.empty()) out["tool_calls"] = calls;
  return out;
}

// JSON text for comparing (invalid UTF-8 shown as U+FFFD, so a difference can be printed).
std::string text_of(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// `ocml stream --events openai` in process, its chunks folded the way a client folds them.
json folded_stream(std::string_view text, const ocml::decoder_options& o, std::size_t chunk) {
  std::string content, reasoning, reflection, introspection;
  bool has_reasoning = false;
  json calls = json::array();
  ocml::openai_chunk_writer out({}, [&](std::string_view line) {
    const json j = json::parse(line);
    if (!j.contains("choices")) return;  // a diagnostic line
    const json& d = j["choices"][0]["delta"];
    if (d.contains("content") && d["content"].is_string())
      content += d["content"].get<std::string>();
    if (d.contains("reflection")) reflection += d["reflection"].get<std::string>();
    if (d.contains("introspection")) introspection += d["introspection"].get<std::string>();
    if (d.contains("reasoning_content")) {
      reasoning += d["reasoning_content"].get<std::string>();
      has_reasoning = true;
    }
    if (d.contains("tool_calls")) {
      for (const auto& tc : d["tool_calls"]) {
        const std::size_t i = tc["index"];
        if (i >= calls.size()) {
          calls.push_back(
              {{"id", tc.value("id", "")},
               {"type", "function"},
               {"function", {{"name", tc["function"].value("name", "")}, {"arguments", ""}}}});
        }
        calls[i]["function"]["arguments"] = calls[i]["function"]["arguments"].get<std::string>() +
                                            tc["function"].value("arguments", "");
      }
    }
  });
  ocml::projection p({.call_id_seed = kSeed}, [&](const ocml::delta& d) { out(d); });
  ocml::decoder dec(o, [&](const ocml::event& e) { p(e); });
  ocml::test::feed(dec, text, chunk);
  p.finish();
  out.finish(p.natural_finish());
  json r = {{"content", content.empty() ? json(nullptr) : json(content)}};
  if (has_reasoning) r["reasoning_content"] = reasoning;
  if (!reflection.empty()) r["reflection"] = reflection;
  if (!introspection.empty()) r["introspection"] = introspection;
  if (!calls.empty()) r["tool_calls"] = calls;
  return r;
}

class Recovery : public ::testing::TestWithParam<std::string> {};

TEST_P(Recovery, EveryCaseWholeAndAtChunkSizes1To16) {
  const json corpus =
      json::parse(ocml::test::read_file(kRoot / "recovery" / (GetParam() + ".json")));
  const ocml::dialect d = *ocml::parse_dialect(corpus["dialect"].get<std::string>());
  ASSERT_GE(corpus["cases"].size(), 10u);
  for (const auto& c : corpus["cases"]) {
    const std::string name = c["name"];
    const std::string text = c["input"];
    SCOPED_TRACE(name);
    const bool completion = c.value("completion", true);
    const ocml::decoder_options lenient{.dialect = d, .lenient = true, .completion = completion};
    const ocml::decoder_options strict{.dialect = d, .completion = completion};
    const auto whole = ocml::parse(text, lenient);
    EXPECT_TRUE(whole.ok()) << name;
    EXPECT_EQ(ocml::to_openai_json(whole.conversation, {.call_id_seed = kSeed})["messages"],
              with_ids(c["messages"]))
        << name;
    EXPECT_EQ(json(codes(whole)), c["warnings"]) << name;
    const auto s = ocml::parse(text, strict);
    const ocml::diagnostic* err = first_error(s);
    if (c["strict"].is_null()) {
      EXPECT_EQ(err, nullptr) << name << ": " << (err ? err->to_string() : "");
    } else if (err == nullptr) {
      ADD_FAILURE() << name << ": strict mode accepted it";
    } else {
      EXPECT_EQ(ocml::error_name(err->code), c["strict"]["code"].get<std::string>()) << name;
      EXPECT_EQ(err->offset, c["strict"]["offset"].get<std::size_t>()) << name;
    }
    const json parsed = merged_response(whole.conversation);
    for (std::size_t chunk = 1; chunk <= 16; ++chunk) {
      const auto r = ocml::test::parse_chunked(text, lenient, chunk);
      EXPECT_EQ(r.conversation, whole.conversation) << name << " at chunk size " << chunk;
      EXPECT_EQ(r.diagnostics, whole.diagnostics) << name << " at chunk size " << chunk;
      const auto rs = ocml::test::parse_chunked(text, strict, chunk);
      EXPECT_EQ(rs.diagnostics, s.diagnostics) << name << " strict, chunk size " << chunk;
      EXPECT_EQ(text_of(folded_stream(text, lenient, chunk)), text_of(parsed))
          << name << " stream, chunk " << chunk;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, Recovery, ::testing::Values("harmony", "harmony-peers", "chatml"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// Stream equals parse on every conformance case of every dialect (lenient mode, whole and
// at chunk size 7; the recovery corpus runs every size from 1 to 16).
TEST(StreamEqualsParse, EveryConformanceCase) {
  std::size_t n = 0;
  for (const auto& dir : fs::directory_iterator(kRoot / "conformance")) {
    if (!dir.is_directory()) continue;
    const ocml::dialect d = *ocml::parse_dialect(dir.path().filename().string());
    for (const auto& f : fs::directory_iterator(dir.path())) {
      if (f.path().extension() != ".txt") continue;
      const std::string text = ocml::test::read_file(f.path());
      const ocml::decoder_options o{.dialect = d, .lenient = true};
      const json parsed = merged_response(ocml::parse(text, o).conversation);
      for (std::size_t chunk : {std::size_t{0}, std::size_t{7}}) {
        EXPECT_EQ(text_of(folded_stream(text, o, chunk)), text_of(parsed))
            << f.path() << " chunk " << chunk;
      }
      ++n;
    }
  }
  EXPECT_GT(n, 500u);
}

}  // namespace
