// SPDX-License-Identifier: Apache-2.0
// Decoder behaviour: tokens across chunks, escapes, literal blocks, header forms,
// errors with byte offset and line:column, completion mode, limits, UTF-8.
#include <gtest/gtest.h>

#include "support.hpp"

using ocml::test::codes;
using ocml::test::events_chunked;

namespace {

ocml::parse_result p22(std::string_view text, bool lenient = false) {
  return ocml::parse(text, {.dialect = ocml::dialect::ocml_2_2, .lenient = lenient});
}

TEST(Decoder, EventLogHasByteOffsets) {
  const std::string text =
      "<|start|>user<|message|>Hi<|end|>\n<|start|>assistant<|channel|>final<|message|>Yo<|return|"
      ">";
  const std::vector<std::string> expected = {
      R"(begin@9 {"role":"user","content":""})",
      "content@24 Hi",
      "end@26 end",
      R"(begin@43 {"role":"assistant","channel":"final","content":""})",
      "content@79 Yo",
      "end@81 return",
  };
  for (std::size_t chunk : {0u, 1u, 2u, 3u, 5u, 8u, 13u, 64u}) {
    EXPECT_EQ(events_chunked(text, {}, chunk), expected) << "chunk " << chunk;
  }
}

TEST(Decoder, TokensSplitAcrossEveryBoundary) {
  const std::string text =
      "<|start|>assistant<|channel|>final<|message|>a<b<|c|>d<<|end|>e<|return|>";
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    ocml::collector c;
    ocml::decoder d({}, [&c](const ocml::event& e) { c(e); });
    d.push(std::string_view(text).substr(0, cut));
    d.push(std::string_view(text).substr(cut));
    d.finish();
    const auto r = c.take();
    ASSERT_TRUE(r.ok()) << cut;
    ASSERT_EQ(r.conversation.messages.size(), 1u);
    EXPECT_EQ(r.conversation.messages[0].content, "a<b<|c|>d<|end|>e") << "cut at " << cut;
    EXPECT_EQ(r.conversation.messages[0].end, ocml::end_token::return_);
  }
}

TEST(Decoder, EscapesDecodeToTheControlTokenText) {
  const auto r = p22("<|start|>user<|message|><<|start|>x<<|end|>y<<<|call|>z<|end|>");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.conversation.messages[0].content, "<|start|>x<|end|>y<<|call|>z");
}

TEST(Decoder, LiteralBlockIsOpaque) {
  const auto r =
      p22("<|start|>user<|message|>a<|literal|><|end|><<|x<|call|><|endliteral|>b<|end|>");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.conversation.messages[0].content, "a<|end|><<|x<|call|>b");
}

TEST(Decoder, AttributesInAnyOrderAndToAfterChannel) {
  const auto a =
      p22("<|start|>assistant call_id=1 "
          "to=functions.f<|channel|>commentary<|constrain|>json<|message|>{}<|call|>");
  const auto b =
      p22("<|start|>assistant call_id=1<|channel|>commentary "
          "to=functions.f<|constrain|>json<|message|>{}<|call|>");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a.conversation, b.conversation);
  EXPECT_EQ(a.conversation.messages[0].recipient, "functions.f");
  EXPECT_EQ(a.conversation.messages[0].call_id, "1");
}

TEST(Decoder, ToolAuthorForms) {
  const auto a =
      p22("<|start|>tool name=functions.x call_id=7<|channel|>commentary<|message|>1<|end|>");
  const auto b = p22("<|start|>functions.x call_id=7<|channel|>commentary<|message|>1<|end|>");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a.conversation, b.conversation);
  EXPECT_EQ(a.conversation.messages[0].role, ocml::role::tool);
  EXPECT_EQ(a.conversation.messages[0].name, "functions.x");
}

TEST(Decoder, UnknownAttributesAreKept) {
  const auto r = p22("<|start|>user x-trace=abc<|message|>hi<|end|>");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.conversation.messages[0].extra.size(), 1u);
  EXPECT_EQ(r.conversation.messages[0].extra[0].first, "x-trace");
  EXPECT_EQ(r.conversation.messages[0].extra[0].second, "abc");
}

TEST(Decoder, FencedAndUnfencedYamlHeaders) {
  const auto fenced =
      p22("---\nversion: 2.2\nmodel: m\nfuture: {a: 1}\n---\n<|start|>user<|message|>x<|end|>");
  const auto unfenced =
      p22("version: 2.2\nmodel: m\nfuture: {a: 1}\n<|start|>user<|message|>x<|end|>");
  for (const auto* r : {&fenced, &unfenced}) {
    ASSERT_TRUE(r->ok()) << r->diagnostics[0].to_string();
    EXPECT_TRUE(r->conversation.header.present);
    EXPECT_EQ(r->conversation.header.version, "2.2");
    EXPECT_EQ(r->conversation.header.model, "m");
    EXPECT_EQ(r->conversation.header.extra["future"]["a"], 1);
    EXPECT_EQ(r->conversation.messages.size(), 1u);
  }
}

TEST(Decoder, BadYamlHeaderReportsItsLine) {
  const auto r = p22("---\nversion: 2.2\nmodel: [unclosed\n---\n<|start|>user<|message|>x<|end|>");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(codes(r)[0], "E-PARSE-DOCUMENT-HEADER");
  EXPECT_GE(r.diagnostics[0].line, 3u);
  EXPECT_EQ(r.conversation.messages.size(), 1u);  // messages still parse
}

TEST(Decoder, HeaderWithoutVersionIsAnError) {
  const auto r = p22("---\nmodel: m\n---\n<|start|>user<|message|>x<|end|>");
  EXPECT_EQ(codes(r), std::vector<std::string>{"E-PARSE-DOCUMENT-HEADER"});
}

TEST(Decoder, UnknownRoleIsAHeaderErrorWithPosition) {
  const auto r = p22("<|start|>user<|message|>a<|end|>\n<|start|>bot<|message|>b<|end|>");
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(ocml::error_name(r.diagnostics[0].code), "E-PARSE-HEADER");
  EXPECT_EQ(r.diagnostics[0].offset, 42u);
  EXPECT_EQ(r.diagnostics[0].line, 2u);
  EXPECT_EQ(r.diagnostics[0].column, 10u);
  EXPECT_EQ(r.diagnostics[0].to_string(),
            "E-PARSE-HEADER 2:10 unknown role 'bot' (read as a tool reply)");
}

TEST(Decoder, UnknownChannelIsRejected) {
  EXPECT_EQ(codes(p22("<|start|>assistant<|channel|>secret<|message|>x<|end|>")),
            std::vector<std::string>{"E-PARSE-HEADER"});
}

TEST(Decoder, StrayTextBetweenMessages) {
  const auto r = p22("<|start|>user<|message|>a<|end|>oops<|start|>user<|message|>b<|end|>");
  ASSERT_EQ(codes(r), std::vector<std::string>{"E-PARSE-STRAY-TEXT"});
  EXPECT_EQ(r.diagnostics[0].offset, 32u);  // the "o" of "oops"
}

TEST(Decoder, TruncatedBodyAtFinish) {
  const auto r = p22("<|start|>assistant<|channel|>final<|message|>Hel");
  ASSERT_EQ(codes(r), std::vector<std::string>{"E-STREAM-TRUNCATED"});
  EXPECT_EQ(r.diagnostics[0].level, ocml::severity::error);
  EXPECT_EQ(r.diagnostics[0].offset, 48u);
  ASSERT_EQ(r.conversation.messages.size(), 1u);
  EXPECT_EQ(r.conversation.messages[0].content, "Hel");  // text is never lost
  EXPECT_EQ(r.conversation.messages[0].end, ocml::end_token::unterminated);
}

TEST(Decoder, TruncatedHeaderAtFinish) {
  EXPECT_EQ(codes(p22("<|start|>assistant<|chan")), std::vector<std::string>{"E-STREAM-TRUNCATED"});
}

TEST(Decoder, TruncatedInsideLiteral) {
  const auto r = p22("<|start|>user<|message|><|literal|>abc");
  EXPECT_EQ(codes(r), std::vector<std::string>{"E-STREAM-TRUNCATED"});
  EXPECT_EQ(r.conversation.messages[0].content, "abc");
}

TEST(Decoder, NoErrorBeforeFinishOnAPrefix) {
  std::vector<std::string> log;
  ocml::decoder d({}, [&](const ocml::event& e) {
    if (e.kind == ocml::event_kind::diagnostic) log.push_back(e.diag->to_string());
  });
  d.push("<|start|>assistant<|channel|>final<|message|>Hel");
  EXPECT_TRUE(log.empty());
  d.finish();
  EXPECT_EQ(log.size(), 1u);
}

TEST(Decoder, CompletionModeStartsInsideTheHeader) {
  const auto r = ocml::parse(
      "<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>final<|message|>42<|"
      "return|>",
      {.dialect = ocml::dialect::ocml_2_2, .completion = true});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.conversation.messages.size(), 2u);
  EXPECT_EQ(r.conversation.messages[0].role, ocml::role::assistant);
  EXPECT_EQ(r.conversation.messages[0].channel, "analysis");
  EXPECT_EQ(r.conversation.messages[1].content, "42");
}

TEST(Decoder, CompletionWithRecipientBeforeChannel) {
  const auto r = ocml::parse(
      " to=functions.f<|channel|>commentary <|constrain|>json<|message|>{\"a\":1}<|call|>",
      {.dialect = ocml::dialect::harmony, .completion = true});
  ASSERT_TRUE(r.ok()) << r.diagnostics[0].to_string();
  EXPECT_EQ(r.conversation.messages[0].recipient, "functions.f");
  EXPECT_EQ(r.conversation.messages[0].constrain, "json");
  EXPECT_EQ(r.conversation.messages[0].end, ocml::end_token::call);
}

TEST(Decoder, ConstraintAcceptsValidJsonAndRejectsDeepNesting) {
  EXPECT_TRUE(
      p22("<|start|>assistant "
          "to=functions.f<|channel|>commentary<|constrain|>json<|message|>[{\"a\":[1,2]}]<|call|>")
          .ok());
  const std::string deep = std::string(5000, '[') + std::string(5000, ']');
  const auto r =
      p22("<|start|>assistant to=functions.f<|channel|>commentary<|constrain|>json<|message|>" +
          deep + "<|call|>");
  EXPECT_EQ(codes(r), std::vector<std::string>{"E-BODY-CONSTRAINT-VIOLATION"});
}

TEST(Decoder, InvalidUtf8IsReportedAndKept) {
  const std::string text = "<|start|>user<|message|>ok\xff\xfe<|end|>";
  const auto r = p22(text);
  ASSERT_EQ(codes(r), std::vector<std::string>{"E-ENCODING-UTF8"});
  EXPECT_EQ(r.diagnostics[0].offset, 26u);
  EXPECT_EQ(r.conversation.messages[0].content, "ok\xff\xfe");
}

TEST(Decoder, Utf8SplitAcrossChunksIsValid) {
  const std::string text = "<|start|>user<|message|>\xe2\x82\xac \xf0\x9f\x98\x80<|end|>";
  for (std::size_t chunk = 1; chunk < 8; ++chunk) {
    const auto r = ocml::test::parse_chunked(text, {}, chunk);
    EXPECT_TRUE(r.ok()) << chunk;
  }
  EXPECT_EQ(codes(p22("<|start|>user<|message|>\xe2\x82<|end|>")),
            std::vector<std::string>{"E-ENCODING-UTF8"});
}

TEST(Decoder, HeaderLimitStopsUnboundedGrowth) {
  ocml::decoder_options o;
  o.limits.max_header_bytes = 100;
  const auto r = ocml::parse("<|start|>user " + std::string(1000, 'a') + "<|message|>x<|end|>", o);
  EXPECT_EQ(codes(r), std::vector<std::string>{"E-LIMIT-EXCEEDED"});
}

TEST(Decoder, NulBytesAndCrlfAreContent) {
  static const char raw[] = "<|start|>user<|message|>a\0b\r\nc<|end|>\r\n";
  const std::string text(raw, sizeof raw - 1);
  const auto r = p22(text);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.conversation.messages[0].content, std::string("a\0b\r\nc", 6));
}

TEST(Decoder, ManyTinyMessages) {
  std::string text;
  for (int i = 0; i < 10000; ++i)
    text += "<|start|>user<|message|>" + std::to_string(i) + "<|end|>";
  const auto r = p22(text);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.conversation.messages.size(), 10000u);
  EXPECT_EQ(r.conversation.messages[9999].content, "9999");
}

TEST(Decoder, HarmonyReadsBareContentTypeAndUnknownAuthor) {
  const auto r = ocml::parse(
      "<|start|>browser.search to=assistant<|channel|>commentary code<|message|>{}<|end|>",
      {.dialect = ocml::dialect::harmony});
  ASSERT_TRUE(r.ok());
  const auto& m = r.conversation.messages[0];
  EXPECT_EQ(m.role, ocml::role::tool);
  EXPECT_EQ(m.name, "browser.search");
  EXPECT_EQ(m.content_type, "code");
}

TEST(Decoder, HarmonyClosesAMessageAtEndOfInputWithAWarning) {
  const auto r = ocml::parse("<|start|>assistant<|channel|>final<|message|>hi",
                             {.dialect = ocml::dialect::harmony});
  EXPECT_TRUE(r.ok());
  ASSERT_EQ(codes(r), std::vector<std::string>{"E-STREAM-TRUNCATED"});
  EXPECT_EQ(r.diagnostics[0].level, ocml::severity::warning);
}

}  // namespace

namespace {

TEST(DocumentHeader, HostileYamlIsAnErrorNotACrash) {
  const std::string deep = "---\nversion: 2.2\nx: " + std::string(10000, '[') +
                           "\n---\n<|start|>user<|message|>x<|end|>";
  EXPECT_EQ(codes(p22(deep)), std::vector<std::string>{"E-LIMIT-EXCEEDED"});
  std::string laughs = "---\nversion: 2.2\na: &a [x,x,x,x,x,x,x,x,x,x]\n";
  for (char c = 'b'; c <= 'k'; ++c) {
    laughs += std::string(1, c) + ": &" + c + " [*" + static_cast<char>(c - 1) + ",*" +
              static_cast<char>(c - 1) + ",*" + static_cast<char>(c - 1) + ",*" +
              static_cast<char>(c - 1) + ",*" + static_cast<char>(c - 1) + ",*" +
              static_cast<char>(c - 1) + ",*" + static_cast<char>(c - 1) + ",*" +
              static_cast<char>(c - 1) + "]\n";
  }
  laughs += "---\n<|start|>user<|message|>x<|end|>";
  const auto r = p22(laughs);
  EXPECT_EQ(codes(r), std::vector<std::string>{"E-LIMIT-EXCEEDED"});
  EXPECT_NE(r.diagnostics[0].message.find("100000"), std::string::npos);
}

TEST(DocumentHeader, AnyStringValueRoundTrips) {
  for (const std::string v :
       {"", "true", "1.5", "null", "a: b", "- x", "#c", "'q'", "\"dq\"", "x\ny", "  pad  ", "\\u",
        "日本", "[1]", "{}", "*alias", "&anchor", "%t"}) {
    ocml::conversation c;
    c.header.present = true;
    c.header.version = "2.2";
    c.header.extra["k"] = v;
    c.header.generation_settings = ocml::json{{"s", v}};
    auto text = ocml::render(c, {});
    ASSERT_TRUE(text.ok());
    const auto r = p22(*text);
    ASSERT_TRUE(r.ok()) << v << "\n" << *text;
    EXPECT_EQ(r.conversation.header, c.header) << v << "\n" << *text;
  }
}

TEST(DocumentHeader, BracketsInPlainKeysAreNotNesting) {
  // "-[[[" and "a:[[[" are plain text in block YAML; 40 brackets on each of two keys must not
  // add up to the 64-level depth guard.
  ocml::conversation c;
  c.header.present = true;
  c.header.version = "2.2";
  c.header.extra["-" + std::string(40, '[') + "s"] = nullptr;
  c.header.extra["a:" + std::string(40, '[')] = ocml::json::array({"v"});
  auto text = ocml::render(c, {});
  ASSERT_TRUE(text.ok());
  const auto r = p22(*text);
  ASSERT_TRUE(r.ok()) << *text;
  EXPECT_EQ(r.conversation.header, c.header) << *text;
  // Real nesting is still refused.
  const std::string nested = "---\nversion: 2.2\nx: " + std::string(70, '[') +
                             std::string(70, ']') + "\n---\n<|start|>user<|message|>x<|end|>";
  EXPECT_EQ(codes(p22(nested)), std::vector<std::string>{"E-LIMIT-EXCEEDED"});
}

}  // namespace
