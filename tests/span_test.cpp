// SPDX-License-Identifier: Apache-2.0
// Every byte accounted for: in every dialect, the spans of all events but diagnostics tile
// the input (random token soups, strict and lenient, transcript
// and completion, whole and at chunk sizes 1 and 7); spans do not depend on the chunking;
// a text event's span holds exactly its text (an escape's '<' is structure of its own).
#include <gtest/gtest.h>

#include <ostream>
#include <random>

#include "support.hpp"

namespace {

struct span_event {
  ocml::event_kind kind;
  ocml::byte_span span;
  friend bool operator==(const span_event&, const span_event&) = default;
  friend std::ostream& operator<<(std::ostream& os, const span_event& e) {
    return os << static_cast<int>(e.kind) << "[" << e.span.begin << "," << e.span.end << ")";
  }
};

bool is_text(ocml::event_kind k) {
  return k == ocml::event_kind::content || k == ocml::event_kind::reasoning ||
         k == ocml::event_kind::reflection || k == ocml::event_kind::introspection;
}

// Decodes `text` in `chunk`-byte pushes (0: whole); the events with spans, adjacent text
// slices of one kind joined (chunking may cut them anywhere). Fails the test on a gap, an
// overlap, a span past the input, or text that is not the bytes of its span.
std::vector<span_event> spans_of(const std::string& text, const ocml::decoder_options& o,
                                 std::size_t chunk, const std::string& what) {
  std::vector<span_event> out;
  std::size_t cursor = 0;
  ocml::decoder d(o, [&](const ocml::event& e) {
    if (e.kind == ocml::event_kind::diagnostic) return;
    if (e.span.begin != cursor || e.span.end < e.span.begin || e.span.end > text.size()) {
      ADD_FAILURE() << what << ": event " << static_cast<int>(e.kind) << " spans [" << e.span.begin
                    << ", " << e.span.end << ") after " << cursor << "\n"
                    << text;
    }
    if (is_text(e.kind) && text.substr(e.span.begin, e.span.end - e.span.begin) != e.text) {
      ADD_FAILURE() << what << ": text event's bytes differ from its text";
    }
    cursor = e.span.end;
    if (e.span.begin == e.span.end && is_text(e.kind)) return;
    if (!out.empty() && out.back().kind == e.kind && out.back().span.end == e.span.begin &&
        (is_text(e.kind) || e.kind == ocml::event_kind::structure ||
         e.kind == ocml::event_kind::skipped)) {
      out.back().span.end = e.span.end;
      return;
    }
    out.push_back({e.kind, e.span});
  });
  ocml::test::feed(d, text, chunk);
  EXPECT_EQ(cursor, text.size()) << what << ": the spans stop short of the end\n" << text;
  return out;
}

// Random soups of the dialect's own tokens, role words, JSON, white space and prose.
std::string soup(std::mt19937& rng, const ocml::dialect_info& info) {
  static const std::vector<std::string> words = {"system\n",
                                                 "user\n",
                                                 "assistant\n",
                                                 "tool\n",
                                                 "\n",
                                                 "\n\n",
                                                 " ",
                                                 "Hello",
                                                 "日本語",
                                                 "😀",
                                                 "\t",
                                                 "{\"name\": \"f\", \"arguments\": {}}",
                                                 "{\"a\": \"",
                                                 "\"}",
                                                 "}",
                                                 "<b>",
                                                 "<|",
                                                 "\xff",
                                                 "\xe6\x97",
                                                 "robot\n",
                                                 "x",
                                                 "<think>",
                                                 "</tool",
                                                 "_call>",
                                                 "<",
                                                 "---\n",
                                                 "version: \"2.2\"\n",
                                                 " to=functions.f",
                                                 "analysis",
                                                 "final",
                                                 "[SEP]",
                                                 "name=\"a\" "};
  std::uniform_int_distribution<int> len(0, 40);
  std::string s;
  for (int n = len(rng); n > 0; --n) {
    if (rng() % 3 == 0) {
      s += info.tokens[rng() % info.tokens.size()];
    } else {
      s += words[rng() % words.size()];
    }
  }
  return s;
}

TEST(Spans, TileTheInputOfRandomTokenSoupsInEveryDialect) {
  std::size_t dialects = 0;
  for (const auto& info : ocml::dialects()) {
    if (!ocml::spans_reported(info.id)) continue;
    ++dialects;
    std::mt19937 rng(20261123u + static_cast<unsigned>(info.id));
    for (int i = 0; i < 2000; ++i) {
      const std::string text = soup(rng, info);
      for (const bool lenient : {false, true}) {
        const ocml::decoder_options o{
            .dialect = info.id, .lenient = lenient, .completion = (i % 2) == 1};
        const std::string what =
            std::string(info.name) + " #" + std::to_string(i) + (lenient ? " lenient" : " strict");
        const auto whole = spans_of(text, o, 0, what);
        EXPECT_EQ(spans_of(text, o, 1, what + " chunk 1"), whole) << what << "\n" << text;
        EXPECT_EQ(spans_of(text, o, 7, what + " chunk 7"), whole) << what << "\n" << text;
        if (::testing::Test::HasFailure()) return;  // one case explained beats a flood
      }
    }
  }
  EXPECT_EQ(dialects, ocml::dialect_count);
}

TEST(Spans, ChatmlEventLogWithOffsets) {
  // llhttp-style expected log: every byte of a small transcript, by event.
  const std::string text =
      "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nOk.\n<tool_call>\n"
      "{\"name\": \"f\", \"arguments\": {}}\n</tool_call><|im_end|>\n";
  std::vector<std::string> log;
  const auto name = [](ocml::event_kind k) -> std::string {
    switch (k) {
      case ocml::event_kind::structure:
        return "structure";
      case ocml::event_kind::message_begin:
        return "begin";
      case ocml::event_kind::content:
        return "content";
      case ocml::event_kind::message_end:
        return "end";
      case ocml::event_kind::tool_call:
        return "call";
      case ocml::event_kind::call_begin:
        return "call_begin";
      default:
        return "other";
    }
  };
  ocml::decoder d({.dialect = ocml::dialect::chatml}, [&](const ocml::event& e) {
    if (e.kind == ocml::event_kind::diagnostic) return;
    log.push_back(name(e.kind) + "[" + std::to_string(e.span.begin) + "," +
                  std::to_string(e.span.end) + ")");
  });
  d.push(text);
  d.finish();
  // <|im_start|> user\n Hi <|im_end|> \n <|im_start|> assistant\n Ok. \n<tool_call>…</tool_call>
  // <|im_end|> \n. The call begins (no bytes) when its empty arguments close, before the
  // call event that covers its bytes.
  const std::vector<std::string> expected = {
      "structure[0,12)",  "structure[12,17)", "begin[17,17)",       "content[17,19)",
      "end[19,19)",       "structure[19,29)", "structure[29,30)",   "structure[30,42)",
      "structure[42,52)", "begin[52,52)",     "content[52,55)",     "call_begin[55,55)",
      "call[55,111)",     "end[111,111)",     "structure[111,121)", "structure[121,122)"};
  EXPECT_EQ(log, expected);
}

// The same log for harmony: an escape's '<' is structure, the token after it text.
TEST(Spans, OpenChatmlEventLogWithEscapeAndDocumentHeader) {
  const std::string text =
      "---\nversion: \"2.2\"\n---\n<|start|>user<|message|>a<<|end|>b<|end|>\n"
      "<|start|>assistant<|channel|>final<|message|>ok<|return|>";
  std::vector<std::string> log;
  ocml::decoder d({.dialect = ocml::dialect::ocml_2_2}, [&](const ocml::event& e) {
    if (e.kind == ocml::event_kind::diagnostic) return;
    log.push_back(std::to_string(static_cast<int>(e.kind)) + "[" + std::to_string(e.span.begin) +
                  "," + std::to_string(e.span.end) + ")" + std::string(e.text));
  });
  d.push(text);
  d.finish();
  // 0 document header, 11 structure, 1 begin, 2 content, 3 end.
  const std::vector<std::string> expected = {
      // header 23 bytes; <|start|>user<|message|> 24; a; '<'; <|end|> as text; b; <|end|>;
      // \n; <|start|>assistant<|channel|>final<|message|> 45; ok; <|return|> 10.
      "0[0,23)",         "11[23,47)",  "1[47,47)",     "2[47,48)a",  "11[48,49)",
      "2[49,56)<|end|>", "2[56,57)b",  "3[57,57)",     "11[57,64)",  "11[64,65)",
      "11[65,110)",      "1[110,110)", "2[110,112)ok", "3[112,112)", "11[112,122)"};
  EXPECT_EQ(log, expected);
}

// PCML: a system container's text and its tools block come out in input order, the
// newline before <tools> and the block's tags inside the tools event's span.
TEST(Spans, PcmlSystemWithToolsInInputOrder) {
  const std::string text =
      "[SYS]Be brief.\n<tools>[{\"name\": \"f\", \"description\": \"\", \"parameters\": {}}]"
      "</tools>[/SYS]";
  std::vector<std::string> log;
  ocml::decoder d({.dialect = ocml::dialect::pcml}, [&](const ocml::event& e) {
    if (e.kind == ocml::event_kind::diagnostic) return;
    log.push_back(std::to_string(static_cast<int>(e.kind)) + "[" + std::to_string(e.span.begin) +
                  "," + std::to_string(e.span.end) + ")");
  });
  d.push(text);
  d.finish();
  const std::size_t close = text.find("[/SYS]");
  const std::vector<std::string> expected = {
      "11[0,5)",
      "1[5,5)",
      "2[5,14)",
      "7[14," + std::to_string(close) + ")",
      "3[" + std::to_string(close) + "," + std::to_string(close) + ")",
      "11[" + std::to_string(close) + "," + std::to_string(text.size()) + ")"};
  EXPECT_EQ(log, expected);
  const auto r = ocml::parse(text, {.dialect = ocml::dialect::pcml});
  ASSERT_EQ(r.conversation.messages.size(), 1u);
  EXPECT_EQ(r.conversation.messages[0].content, "Be brief.");
  ASSERT_EQ(r.conversation.tools.size(), 1u);
}

}  // namespace

namespace {

// Found by the span property: a token kept as text inside a ChatML system turn (whose text
// is held until the turn ends, to cut off the tools block) was written before the text held
// before it.
TEST(Spans, TokenKeptAsTextInSystemTurnStaysInOrder) {
  for (const auto d : {ocml::dialect::chatml, ocml::dialect::qwen3}) {
    const auto r = ocml::parse("<|im_start|>system\nA<|im_start|>B<|im_end|>",
                               {.dialect = d, .lenient = true});
    ASSERT_EQ(r.conversation.messages.size(), 1u);
    EXPECT_EQ(r.conversation.messages[0].content, "A<|im_start|>B");
  }
}

}  // namespace

namespace {

// Found by the span property: an OpenChatML 0.1 input that ended inside a role line after
// a system message emitted that system message a second time (empty).
TEST(Spans, Ocml01RoleLineAtTheEndAddsNoMessage) {
  const auto r = ocml::parse("<|im_start|>system\nA<|im_end|>\n<|im_start|>use",
                             {.dialect = ocml::dialect::ocml_0_1, .lenient = true});
  ASSERT_EQ(r.conversation.messages.size(), 1u);
  EXPECT_EQ(r.conversation.messages[0].content, "A");
}

// Found by the span property: a harmony completion of white space then text (no header)
// reported its content one byte per space past where it is.
TEST(Spans, HarmonyHeaderlessTextKeepsItsOffset) {
  std::vector<std::size_t> offsets;
  ocml::decoder d({.dialect = ocml::dialect::harmony, .lenient = true, .completion = true},
                  [&](const ocml::event& e) {
                    if (e.kind == ocml::event_kind::content) offsets.push_back(e.offset);
                  });
  d.push("  hi");
  d.finish();
  ASSERT_FALSE(offsets.empty());
  EXPECT_EQ(offsets.front(), 2u);
}

}  // namespace
