// SPDX-License-Identifier: Apache-2.0
// Properties: parse(render(c)) == c for random adversarial conversations, chunking never
// changes a result, and every prefix gives a prefix of the events with no error.
#include <gtest/gtest.h>

#include <random>

#include "generators.hpp"
#include "support.hpp"

namespace {

using ocml::dialect;

class RoundTrip : public ::testing::TestWithParam<dialect> {};

TEST_P(RoundTrip, ParseOfRenderIsIdentity) {
  const dialect d = GetParam();
  ocml::test::conversation_generator gen(1234);
  for (int i = 0; i < 3000; ++i) {
    const ocml::conversation c = gen.make(d);
    auto text = ocml::render(c, {.dialect = d});
    ASSERT_TRUE(text.ok()) << text.error().to_string();
    const auto r = ocml::parse(*text, {.dialect = d});
    // Only an unterminated last message may (and must) be reported.
    const bool unterminated =
        !c.messages.empty() && c.messages.back().end == ocml::end_token::unterminated;
    if (!unterminated) {
      ASSERT_TRUE(r.diagnostics.empty()) << i << ": " << r.diagnostics[0].to_string() << "\n"
                                         << *text;
    } else {
      ASSERT_EQ(ocml::test::codes(r), std::vector<std::string>{"E-STREAM-TRUNCATED"});
    }
    ASSERT_EQ(ocml::to_native_json(r.conversation), ocml::to_native_json(c)) << i << "\n" << *text;
    ASSERT_EQ(r.conversation, c);
  }
}

TEST_P(RoundTrip, RandomChunkingNeverChangesTheEvents) {
  const dialect d = GetParam();
  ocml::test::conversation_generator gen(99);
  std::mt19937 rng(7);
  for (int i = 0; i < 300; ++i) {
    auto text = ocml::render(gen.make(d), {.dialect = d});
    ASSERT_TRUE(text.ok());
    const auto whole = ocml::test::events_chunked(*text, {.dialect = d}, 0);
    // Random split points (not just fixed sizes).
    ocml::test::event_log log;
    ocml::decoder dec({.dialect = d}, [&log](const ocml::event& e) { log(e); });
    std::size_t pos = 0;
    while (pos < text->size()) {
      const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 20)(rng);
      dec.push(std::string_view(*text).substr(pos, n));
      pos += n;
    }
    dec.finish();
    log.flush();
    ASSERT_EQ(log.lines, whole) << *text;
  }
}

TEST_P(RoundTrip, EveryPrefixGivesAPrefixOfTheEvents) {
  const dialect d = GetParam();
  ocml::test::conversation_generator gen(5);
  for (int i = 0; i < 40; ++i) {
    ocml::conversation c = gen.make(d);
    if (!c.messages.empty() && c.messages.back().end == ocml::end_token::unterminated) {
      c.messages.back().end = ocml::end_token::end;
    }
    auto text = ocml::render(c, {.dialect = d});
    ASSERT_TRUE(text.ok());
    const auto full = ocml::test::events_chunked(*text, {.dialect = d}, 0);
    for (std::size_t k = 0; k < text->size(); ++k) {
      ocml::test::event_log log;
      ocml::decoder dec({.dialect = d}, [&log](const ocml::event& e) { log(e); });
      dec.push(std::string_view(*text).substr(0, k));  // no finish(): a live stream
      log.flush();
      ASSERT_LE(log.lines.size(), full.size());
      for (std::size_t j = 0; j < log.lines.size(); ++j) {
        ASSERT_EQ(log.lines[j].rfind("diag", 0), std::string::npos) << "error before finish";
        if (j + 1 < log.lines.size()) {
          ASSERT_EQ(log.lines[j], full[j]);
        } else {
          // The last line may be a content slice still growing.
          ASSERT_EQ(full[j].compare(0, log.lines[j].size(), log.lines[j]), 0)
              << "prefix " << k << ": " << log.lines[j] << " vs " << full[j];
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Dialects, RoundTrip,
                         ::testing::Values(dialect::ocml_2_2, dialect::ocml_2_0, dialect::harmony),
                         [](const auto& info) {
                           std::string n(ocml::dialect_name(info.param));
                           for (char& ch : n) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return n;
                         });

TEST(Robustness, RandomBytesNeverCrashAndTextIsKept) {
  std::mt19937 rng(42);
  const std::string alphabet = "<|>startendmsgchanl\n \xff\xc3\xa9";
  for (int i = 0; i < 3000; ++i) {
    std::string s;
    const int n = std::uniform_int_distribution<int>(0, 200)(rng);
    for (int k = 0; k < n; ++k) {
      s.push_back(
          alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(rng)]);
    }
    for (dialect d : {dialect::ocml_2_2, dialect::harmony}) {
      for (bool lenient : {false, true}) {
        const auto a = ocml::parse(s, {.dialect = d, .lenient = lenient});
        const auto b = ocml::test::parse_chunked(s, {.dialect = d, .lenient = lenient}, 3);
        ASSERT_EQ(a.conversation, b.conversation) << s;
        ASSERT_EQ(a.diagnostics, b.diagnostics) << s;
        for (const auto& diag : a.diagnostics) ASSERT_LE(diag.offset, s.size());
      }
    }
  }
}

}  // namespace

namespace {

TEST(Robustness, InvalidUtf8ContentRoundTripsAndIsReported) {
  std::mt19937 rng(11);
  for (int i = 0; i < 2000; ++i) {
    std::string content;
    const int n = std::uniform_int_distribution<int>(1, 40)(rng);
    for (int k = 0; k < n; ++k)
      content.push_back(static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng)));
    ocml::conversation c;
    ocml::message m;
    m.role = ocml::role::user;
    m.content = content;
    m.end = ocml::end_token::end;
    c.messages.push_back(m);
    for (auto d : {ocml::dialect::ocml_2_2, ocml::dialect::harmony}) {
      auto text = ocml::render(c, {.dialect = d});
      ASSERT_TRUE(text.ok());
      const auto r = ocml::parse(*text, {.dialect = d});
      ASSERT_EQ(r.conversation, c);
      for (const auto& diag : r.diagnostics) ASSERT_EQ(diag.code, ocml::error_code::invalid_utf8);
    }
  }
}

}  // namespace
