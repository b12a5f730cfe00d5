// SPDX-License-Identifier: Apache-2.0
// Spec fixtures (2.2 §17, worked examples of 2.2 §16 and 2.0 §11): expected parse, every
// chunk size, and render -> parse round trip.
#include <gtest/gtest.h>

#include <filesystem>

#include "support.hpp"

namespace fs = std::filesystem;
using ocml::json;

namespace {

struct fixture {
  std::string name;
  ocml::dialect dialect;
  fs::path text;
  fs::path expected;
};

std::vector<fixture> all_fixtures() {
  std::vector<fixture> out;
  for (const char* d : {"ocml-2.2", "ocml-2.0"}) {
    const fs::path dir = fs::path(OCML_FIXTURE_DIR) / d;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() != ".txt") continue;
      fs::path exp = e.path();
      exp.replace_extension(".expected.json");
      out.push_back({std::string(d) + "/" + e.path().stem().string(), *ocml::parse_dialect(d),
                     e.path(), exp});
    }
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return out;
}

class Fixture : public ::testing::TestWithParam<fixture> {};

TEST_P(Fixture, ParsesToExpectedNativeJson) {
  const fixture& f = GetParam();
  const std::string text = ocml::test::read_file(f.text);
  const json expected = json::parse(ocml::test::read_file(f.expected));
  const auto r = ocml::parse(text, {.dialect = f.dialect});
  EXPECT_EQ(r.ok(), expected["ok"].get<bool>());
  EXPECT_EQ(ocml::to_native_json(r.conversation), expected["native"]);
  if (expected.contains("diagnostics")) {
    ASSERT_EQ(r.diagnostics.size(), expected["diagnostics"].size());
    for (std::size_t i = 0; i < r.diagnostics.size(); ++i) {
      const auto& d = r.diagnostics[i];
      const auto& e = expected["diagnostics"][i];
      EXPECT_EQ(ocml::error_name(d.code), e["code"].get<std::string>());
      EXPECT_EQ(d.offset, e["offset"].get<std::size_t>());
      EXPECT_EQ(d.line, e["line"].get<std::size_t>());
      EXPECT_EQ(d.column, e["column"].get<std::size_t>());
    }
  } else {
    EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].to_string();
  }
  if (expected.contains("effective_channels")) {
    std::vector<std::string> got;
    for (const auto& m : r.conversation.messages) got.emplace_back(m.effective_channel());
    EXPECT_EQ(json(got), expected["effective_channels"]);
  }
  if (expected.contains("visible")) {
    std::vector<bool> got;
    for (const auto& m : r.conversation.messages) got.push_back(ocml::is_user_visible(m));
    EXPECT_EQ(json(got), expected["visible"]);
  }
}

TEST_P(Fixture, EveryChunkSizeGivesTheSameEvents) {
  const fixture& f = GetParam();
  const std::string text = ocml::test::read_file(f.text);
  const auto whole = ocml::test::events_chunked(text, {.dialect = f.dialect}, 0);
  for (std::size_t chunk = 1; chunk <= text.size(); ++chunk) {
    ASSERT_EQ(ocml::test::events_chunked(text, {.dialect = f.dialect}, chunk), whole)
        << "chunk size " << chunk;
  }
}

TEST_P(Fixture, RendersBackToTheSameConversation) {
  const fixture& f = GetParam();
  const auto r = ocml::parse(ocml::test::read_file(f.text), {.dialect = f.dialect});
  auto text = ocml::render(r.conversation, {.dialect = f.dialect});
  ASSERT_TRUE(text.ok()) << text.error().to_string();
  const auto again = ocml::parse(*text, {.dialect = f.dialect});
  EXPECT_EQ(ocml::test::codes(again), ocml::test::codes(r));
  auto expected = r.conversation;
  if (f.dialect == ocml::dialect::ocml_2_0) {
    for (auto& m : expected.messages) m.constrain.clear();  // 2.0 has no <|constrain|>
  }
  EXPECT_EQ(ocml::to_native_json(again.conversation), ocml::to_native_json(expected)) << *text;
}

INSTANTIATE_TEST_SUITE_P(Spec, Fixture, ::testing::ValuesIn(all_fixtures()), [](const auto& info) {
  std::string n = info.param.name;
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
});

}  // namespace

namespace {

TEST_P(Fixture, EveryProperPrefixGivesAPrefixOfTheEventsAndNoError) {
  const fixture& f = GetParam();
  const std::string text = ocml::test::read_file(f.text);
  const auto full = ocml::test::events_chunked(text, {.dialect = f.dialect}, 0);
  for (std::size_t k = 0; k < text.size(); ++k) {
    ocml::test::event_log log;
    ocml::decoder d({.dialect = f.dialect}, [&log](const ocml::event& e) { log(e); });
    d.push(std::string_view(text).substr(0, k));
    log.flush();
    ASSERT_LE(log.lines.size(), full.size());
    for (std::size_t j = 0; j < log.lines.size(); ++j) {
      if (full[j].rfind("diag", 0) != 0) {
        ASSERT_EQ(log.lines[j].rfind("diag", 0), std::string::npos) << "prefix " << k;
      }
      if (j + 1 < log.lines.size()) {
        ASSERT_EQ(log.lines[j], full[j]) << "prefix " << k;
      } else {
        ASSERT_EQ(full[j].compare(0, log.lines[j].size(), log.lines[j]), 0) << "prefix " << k;
      }
    }
  }
}

}  // namespace
