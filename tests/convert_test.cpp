// SPDX-License-Identifier: Apache-2.0
// Conversion between every pair of dialects: lossless where both hold a feature, and
// what the target cannot hold is reported (an error with strict).
#include <gtest/gtest.h>

#include "support.hpp"

using ocml::dialect;
using ocml::json;

namespace {

// Every dialect of the registry.
const std::vector<dialect> kAll = [] {
  std::vector<dialect> v;
  for (const auto& d : ocml::dialects()) v.push_back(d.id);
  return v;
}();

// Role, content, reasoning and calls of the grouped shape: what conversions must keep.
json essence(const ocml::conversation& c, bool reasoning, bool calls) {
  json out = json::array();
  for (const auto& m : ocml::grouped_form(c).messages) {
    if (m.role == ocml::role::system && m.content.rfind("You are Qwen", 0) == 0) continue;
    json o = {{"role", std::string(ocml::role_name(m.role))}, {"content", m.content}};
    if (reasoning) o["reasoning"] = m.reasoning;
    if (calls) {
      json cs = json::array();
      for (const auto& tc : m.tool_calls) cs.push_back({tc.name, json::parse(tc.arguments)});
      o["calls"] = cs;
    }
    out.push_back(o);
  }
  return out;
}

std::string render_in(const ocml::conversation& c, dialect d) {
  auto t = ocml::render(c, {.dialect = d});
  EXPECT_TRUE(t.ok()) << ocml::dialect_name(d) << ": " << t.error().to_string();
  return t.ok() ? *t : std::string();
}

TEST(Convert, EveryPairIsLosslessOnWhatAllHold) {
  ocml::conversation base;
  base.messages.push_back({.role = ocml::role::user, .content = "Is a < b? 日本 \"q\""});
  base.messages.push_back(
      {.role = ocml::role::assistant, .content = "Yes.\nIt is.", .end = ocml::end_token::end});
  for (dialect a : kAll) {
    const std::string text_a = render_in(base, a);
    const json want = essence(ocml::parse(text_a, {.dialect = a}).conversation, false, false);
    for (dialect b : kAll) {
      const auto ab = ocml::convert(text_a, {.from = a, .to = b});
      ASSERT_TRUE(ab.ok()) << ocml::dialect_name(a) << "->" << ocml::dialect_name(b) << ": "
                           << ab.diagnostics[0].to_string();
      const auto ba = ocml::convert(ab.text, {.from = b, .to = a});
      ASSERT_TRUE(ba.ok()) << ocml::dialect_name(b) << "->" << ocml::dialect_name(a);
      const auto back = ocml::parse(ba.text, {.dialect = a});
      EXPECT_EQ(essence(back.conversation, false, false), want)
          << ocml::dialect_name(a) << "->" << ocml::dialect_name(b) << "->"
          << ocml::dialect_name(a);
    }
  }
}

TEST(Convert, ReasoningAndToolCallsSurviveBetweenDialectsThatHoldThem) {
  ocml::conversation base;
  base.messages.push_back({.role = ocml::role::system, .content = "Be brief."});
  base.messages.push_back({.role = ocml::role::user, .content = "Weather?"});
  ocml::message call{.role = ocml::role::assistant};
  call.reasoning = "Need the tool.";
  call.tool_calls = {{"c1", "get_weather", "{\"city\": \"Tokyo\"}"}, {"c2", "get_time", "{}"}};
  base.messages.push_back(call);
  base.messages.push_back({.role = ocml::role::tool, .call_id = "c1", .content = "20C"});
  base.messages.push_back({.role = ocml::role::tool, .call_id = "c2", .content = "noon"});
  base.messages.push_back({.role = ocml::role::assistant, .content = "20C at noon."});
  const std::vector<dialect> rich = {dialect::ocml_2_2, dialect::harmony, dialect::pcml,
                                     dialect::ocml_0_1};
  for (dialect a : rich) {
    const std::string text_a = render_in(base, a);
    const json want = essence(ocml::parse(text_a, {.dialect = a}).conversation, true, true);
    for (dialect b : rich) {
      const auto ab = ocml::convert(text_a, {.from = a, .to = b});
      ASSERT_TRUE(ab.ok()) << ocml::dialect_name(a) << "->" << ocml::dialect_name(b) << ": "
                           << ab.diagnostics.back().to_string() << "\n"
                           << text_a;
      const auto ba = ocml::convert(ab.text, {.from = b, .to = a});
      ASSERT_TRUE(ba.ok()) << ocml::dialect_name(b) << "->" << ocml::dialect_name(a) << ": "
                           << ba.diagnostics.back().to_string() << "\n"
                           << ab.text;
      EXPECT_EQ(essence(ocml::parse(ba.text, {.dialect = a}).conversation, true, true), want)
          << ocml::dialect_name(a) << "->" << ocml::dialect_name(b) << "->" << ocml::dialect_name(a)
          << "\n"
          << ab.text;
    }
  }
}

TEST(Convert, WhatTheTargetCannotHoldIsNamedAndStrictFails) {
  const std::string pcml =
      "[USR]name=\"Alice\"[SEP]Hi[/USR]\n\n[AST]<think>hmm</think>\nHello<end>[/AST]";
  const auto r = ocml::convert(pcml, {.from = dialect::pcml, .to = dialect::chatml});
  ASSERT_TRUE(r.ok());
  std::vector<std::string> messages;
  for (const auto& d : r.diagnostics) {
    EXPECT_EQ(d.level, ocml::severity::warning);
    messages.push_back(d.message);
  }
  EXPECT_EQ(messages,
            (std::vector<std::string>{"messages[0]: chatml cannot hold author names (dropped)",
                                      "messages[1]: chatml cannot hold reasoning (dropped)"}));
  const auto strict =
      ocml::convert(pcml, {.from = dialect::pcml, .to = dialect::chatml, .strict = true});
  EXPECT_FALSE(strict.ok());
  EXPECT_TRUE(strict.text.empty());
  // Nothing to report when the target holds everything.
  const auto same = ocml::convert(pcml, {.from = dialect::pcml, .to = dialect::ocml_0_1});
  EXPECT_TRUE(same.diagnostics.empty());
}

TEST(Convert, ChunkingNeverChangesAParse) {
  ocml::conversation base;
  base.messages.push_back({.role = ocml::role::user, .content = "x<y"});
  base.messages.push_back(
      {.role = ocml::role::assistant, .content = "ok", .end = ocml::end_token::end});
  for (dialect d : kAll) {
    const std::string text = render_in(base, d);
    const auto whole = ocml::test::events_chunked(text, {.dialect = d}, 0);
    for (std::size_t chunk = 1; chunk <= text.size(); ++chunk) {
      ASSERT_EQ(ocml::test::events_chunked(text, {.dialect = d}, chunk), whole)
          << ocml::dialect_name(d);
    }
  }
}

}  // namespace

namespace {

// Found by the convert fuzzer: an unterminated last message must leave the 0.1 sequence
// open (no [EOS] inside its body).
TEST(Convert, UnterminatedMessageStaysOpenInOcml01) {
  const auto r = ocml::convert("<|im_start|>user\nhalf a messa",
                               {.from = dialect::chatml, .to = dialect::ocml_0_1, .lenient = true});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.text, "[BOS]<|im_start|>user\nhalf a messa");
  const auto back = ocml::parse(r.text, {.dialect = dialect::ocml_0_1});
  ASSERT_EQ(back.diagnostics.size(), 1u);
  EXPECT_EQ(back.diagnostics[0].code, ocml::error_code::stream_truncated);
}

}  // namespace

namespace {

// Found by the convert fuzzer: only the last container may stay open.
TEST(Convert, EarlierUnterminatedTurnsAreClosedInPcmlAndOcml01) {
  const std::string gab =
      "<|user|>q<|assistant|>a<|assistant|>b";  // 'a' closed by the next segment
  for (auto to : {dialect::pcml, dialect::ocml_0_1}) {
    const auto r = ocml::convert(gab, {.from = dialect::gabgpt, .to = to, .lenient = true});
    ASSERT_TRUE(r.ok());
    const auto back = ocml::parse(r.text, {.dialect = to});
    for (const auto& d : back.diagnostics)
      EXPECT_EQ(d.code, ocml::error_code::stream_truncated) << r.text;
    ASSERT_EQ(back.conversation.messages.size(), 3u) << r.text;
    EXPECT_EQ(back.conversation.messages[1].content, "a");
  }
}

}  // namespace
