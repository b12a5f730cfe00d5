// SPDX-License-Identifier: Apache-2.0
// Event projections: a recorded completion per dialect replayed through the scripted
// backend at several chunk sizes gives the same merged OpenAI chunks, the same merged
// OpenChatML events and the same messages; hidden text never reaches `content`.
#include <gtest/gtest.h>

#include "ocml/decoder.hpp"
#include "ocml/display.hpp"
#include "runtime_support.hpp"
#include "support.hpp"

namespace {

struct recording {
  const char* file;
  ocml::dialect dialect;
  bool think;
  const char* finish;  // expected finish_reason
};

class Recorded : public ::testing::TestWithParam<recording> {};

// The answer of a decoded completion in the OpenAI form: the text of assistant messages
// that are neither reasoning nor calls (final, and commentary preambles), one per line.
std::string visible_text(const std::vector<ocml::message>& ms) {
  std::string out;
  bool first = true;
  for (const auto& m : ms) {
    if (m.role == ocml::role::assistant && m.effective_channel() != "analysis" &&
        ocml::classify_recipient(m.recipient) == ocml::recipient_kind::none) {
      if (!first) out += "\n";
      out += m.content;
      first = false;
    }
  }
  return out;
}

TEST_P(Recorded, SameResultAtEveryChunkSize) {
  const auto rec = GetParam();
  const std::string text = ocml::test::read_completion(rec.file);
  ASSERT_FALSE(text.empty());
  const auto base = ocml::test::replay_completion(text, rec.dialect, text.size(), rec.think);
  EXPECT_EQ(ocml::finish_reason_name(base.gen.finish), rec.finish);
  for (const auto& d : base.gen.diagnostics) ADD_FAILURE() << d.to_string();
  const auto openai = ocml::test::merge_openai(base.openai);
  const auto events = ocml::test::merge_ocml(base.ocml);
  for (const std::size_t chunk : {1, 2, 3, 7, 64}) {
    const auto r = ocml::test::replay_completion(text, rec.dialect, chunk, rec.think);
    EXPECT_EQ(ocml::test::merge_openai(r.openai), openai) << "chunk " << chunk;
    EXPECT_EQ(ocml::test::merge_ocml(r.ocml), events) << "chunk " << chunk;
    EXPECT_EQ(r.gen.messages, base.gen.messages) << "chunk " << chunk;
    EXPECT_EQ(r.gen.text, base.gen.text) << "chunk " << chunk;
    EXPECT_EQ(r.gen.finish, base.gen.finish) << "chunk " << chunk;
  }
  // The streamed content is exactly the final-channel text of the decoded completion, and
  // the hidden reasoning (every recording marks it ANALYSIS-ONLY) is never part of it.
  EXPECT_EQ(openai["content"], visible_text(base.gen.messages));
  EXPECT_EQ(openai["content"].get<std::string>().find("ANALYSIS-ONLY"), std::string::npos);
  if (rec.dialect != ocml::dialect::chatml) {  // Qwen2.5 ChatML has no reasoning
    EXPECT_NE(openai["reasoning_content"].get<std::string>().find("ANALYSIS-ONLY"),
              std::string::npos);
  }
  for (const auto& e : events) {
    if (e["event"] == "response.delta") {
      EXPECT_EQ(e["delta"].get<std::string>().find("ANALYSIS-ONLY"), std::string::npos);
    }
  }
  // The decoded messages are those of a one-shot parse of the completion text.
  ocml::decoder_options o{.dialect = rec.dialect, .completion = true};
  if (rec.think) o.completion_role = "think";
  const auto once = ocml::parse(base.gen.text, o);
  EXPECT_EQ(once.conversation.messages, base.gen.messages);
}

INSTANTIATE_TEST_SUITE_P(
    Dialects, Recorded,
    ::testing::Values(recording{"ocml-2.2-answer.txt", ocml::dialect::ocml_2_2, false, "stop"},
                      recording{"ocml-2.2-call.txt", ocml::dialect::ocml_2_2, false, "tool_calls"},
                      recording{"ocml-2.0-answer.txt", ocml::dialect::ocml_2_0, false, "stop"},
                      recording{"harmony-answer.txt", ocml::dialect::harmony, false, "stop"},
                      recording{"harmony-call.txt", ocml::dialect::harmony, false, "tool_calls"},
                      recording{"chatml-call.txt", ocml::dialect::chatml, false, "tool_calls"},
                      recording{"pcml-call.txt", ocml::dialect::pcml, false, "tool_calls"},
                      recording{"gabgpt-think.txt", ocml::dialect::gabgpt, true, "stop"},
                      recording{"ocml-0.1-call.txt", ocml::dialect::ocml_0_1, false, "tool_calls"}),
    [](const auto& info) {
      std::string n = info.param.file;
      for (char& c : n) {
        if (c == '.' || c == '-') c = '_';
      }
      return n;
    });

TEST(Projection, EveryPrefixGivesAPrefixOfTheDeltas) {
  const std::string text = ocml::test::read_completion("ocml-2.2-answer.txt");
  const auto collect = [](std::string_view input) {
    std::string content, reasoning;
    ocml::projection p({}, [&](const ocml::delta& d) {
      if (d.kind == ocml::delta_kind::text) content.append(d.text);
      if (d.kind == ocml::delta_kind::reasoning) reasoning.append(d.text);
    });
    ocml::decoder dec({.dialect = ocml::dialect::ocml_2_2, .completion = true},
                      [&p](const ocml::event& e) { p(e); });
    dec.push(input);
    return std::make_pair(content, reasoning);
  };
  const auto whole = collect(text);
  EXPECT_EQ(whole.first, "Grüße aus Zürich — 日本.\n\nSecond paragraph.\n\n\nThird.");
  for (std::size_t k = 0; k <= text.size(); ++k) {
    const auto part = collect(std::string_view(text).substr(0, k));
    EXPECT_EQ(whole.first.compare(0, part.first.size(), part.first), 0) << k;
    EXPECT_EQ(whole.second.compare(0, part.second.size(), part.second), 0) << k;
  }
}

TEST(Projection, FlushAfterEachParagraphBreak) {
  const auto r = ocml::test::replay_completion(ocml::test::read_completion("ocml-2.2-answer.txt"),
                                               ocml::dialect::ocml_2_2, 1);
  const auto events = ocml::test::merge_ocml(r.ocml);
  std::vector<std::string> shape;
  for (const auto& e : events) {
    shape.push_back(e["event"].get<std::string>() +
                    (e.contains("delta") ? "=" + e["delta"].get<std::string>() : ""));
  }
  const std::vector<std::string> want = {
      "response.reasoning_text.delta=ANALYSIS-ONLY: the user wants two paragraphs.",
      "response.reasoning_text.done",
      "response.delta=Grüße aus Zürich — 日本.\n\n",
      "response.delta.flush",
      "response.delta=Second paragraph.\n\n",
      "response.delta.flush",
      "response.delta=\nThird.",
      "response.done",
      "response.finish"};
  EXPECT_EQ(shape, want);
}

TEST(Projection, NoDeltaEndsInsideACharacter) {
  const std::string text = "<|channel|>final<|message|>é日本😀<|return|>";
  const auto r = ocml::test::replay_completion(text, ocml::dialect::harmony, 1);
  std::size_t deltas = 0;
  for (const auto& line : r.ocml) {
    const auto j = nlohmann::json::parse(line);  // throws on a broken UTF-8 sequence
    if (j["event"] == "response.delta") ++deltas;
  }
  EXPECT_EQ(deltas, 4u);  // one per character
}

TEST(Projection, CallIdsAndNamesInOpenAIChunks) {
  const auto r = ocml::test::replay_completion(ocml::test::read_completion("chatml-call.txt"),
                                               ocml::dialect::chatml, 5);
  const auto m = ocml::test::merge_openai(r.openai);
  ASSERT_EQ(m["tool_calls"].size(), 2u);
  EXPECT_EQ(m["tool_calls"][0]["name"], "get_weather");
  const std::string id0 = m["tool_calls"][0]["id"];
  EXPECT_TRUE(ocml::test::is_generated_call_id(id0)) << id0;
  EXPECT_EQ(nlohmann::json::parse(m["tool_calls"][0]["arguments"].get<std::string>()),
            nlohmann::json::parse(R"({"city":"Zürich"})"));
  EXPECT_EQ(m["tool_calls"][1]["name"], "get_time");
  const std::string id1 = m["tool_calls"][1]["id"];
  EXPECT_TRUE(ocml::test::is_generated_call_id(id1)) << id1;
  EXPECT_NE(id0, id1);
  EXPECT_EQ(m["finish_reason"], "tool_calls");
  EXPECT_EQ(m["role"], "assistant");
}

// Ids the model did not write: unique per response, the same for a call in the stream and
// in the folded message, reproducible with a seed.
TEST(Projection, GeneratedCallIdsAreRandomPerResponseAndStableWithinOne) {
  const std::string text = ocml::test::read_completion("chatml-call.txt");
  const ocml::decoder_options o{
      .dialect = ocml::dialect::chatml, .lenient = true, .completion = true};
  const auto stream_ids = [&](std::optional<std::uint64_t> seed) {
    std::vector<std::string> ids;
    ocml::projection p({.call_id_seed = seed}, [&](const ocml::delta& d) {
      if (d.kind == ocml::delta_kind::call_begin) ids.emplace_back(d.call_id);
    });
    ocml::decoder dec(o, [&](const ocml::event& e) { p(e); });
    dec.push(text);
    dec.finish();
    p.finish();
    return ids;
  };
  const auto parsed = ocml::parse(text, o);
  ASSERT_TRUE(parsed.ok());
  const auto folded_ids = [&](std::optional<std::uint64_t> seed) {
    std::vector<std::string> ids;
    const auto j = ocml::to_openai_json(parsed.conversation, {.call_id_seed = seed});
    for (const auto& m : j["messages"]) {
      if (!m.contains("tool_calls")) continue;
      for (const auto& c : m["tool_calls"]) ids.push_back(c["id"]);
    }
    return ids;
  };
  const auto a = stream_ids(std::nullopt);
  const auto b = stream_ids(std::nullopt);
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  for (const auto& id : a) EXPECT_TRUE(ocml::test::is_generated_call_id(id)) << id;
  EXPECT_NE(a[0], a[1]);
  EXPECT_NE(a[0], b[0]);  // two responses: other ids (2^-142 odds of a clash)
  EXPECT_NE(folded_ids(std::nullopt), a);
  // One response seen two ways: the same ids.
  EXPECT_EQ(stream_ids(42), folded_ids(42));
  EXPECT_EQ(stream_ids(42), stream_ids(42));
  EXPECT_NE(stream_ids(42), stream_ids(43));
  EXPECT_EQ(stream_ids(42)[1], ocml::call_ids(42)(1));
}

}  // namespace

// ChatML and Qwen3 calls stream their arguments (issue 26): the call (id, name) begins at
// its first complete argument, each argument is a delta as soon as the byte after it shows
// it ended, and the deltas concatenate to exactly the parsed call's arguments, at every
// chunk size; a call the stream began stays a call when its JSON breaks (lenient).
struct streamed_call {
  std::vector<std::pair<std::size_t, std::string>> args;  // (bytes read, delta)
  std::size_t begun_at = 0;
  std::vector<std::string> names;
  std::vector<std::string> ids;
  std::vector<std::string> all;  // the arguments of each call, concatenated
};

streamed_call stream_calls(std::string_view text, ocml::dialect d, bool lenient,
                           std::size_t chunk) {
  streamed_call s;
  std::size_t read = 0;
  ocml::projection p({}, [&](const ocml::delta& x) {
    if (x.kind == ocml::delta_kind::call_begin) {
      if (s.names.empty()) s.begun_at = read;
      s.names.emplace_back(x.name);
      s.ids.emplace_back(x.call_id);
      s.all.emplace_back();
    }
    if (x.kind == ocml::delta_kind::call_arguments) {
      s.args.emplace_back(read, std::string(x.text));
      s.all.back() += x.text;
    }
  });
  ocml::decoder dec({.dialect = d, .lenient = lenient, .completion = true},
                    [&](const ocml::event& e) { p(e); });
  for (std::size_t i = 0; i < text.size(); i += chunk) {
    read = std::min(text.size(), i + chunk);
    dec.push(text.substr(i, chunk));
  }
  dec.finish();
  p.finish();
  return s;
}

std::vector<std::string> parsed_arguments(std::string_view text, ocml::dialect d, bool lenient) {
  std::vector<std::string> out;
  const auto r = ocml::parse(text, {.dialect = d, .lenient = lenient, .completion = true});
  for (const auto& m : r.conversation.messages) {
    for (const auto& c : m.tool_calls) out.push_back(c.arguments);
  }
  return out;
}

TEST(Projection, ChatmlAndQwen3CallsStreamTheirArguments) {
  const std::string text =
      "Checking.\n<tool_call>\n{\"name\": \"book\", \"arguments\": {\"city\": \"K\\u00f8ge\", "
      "\"n\": 4, \"opts\": {\"a\": [1, \"}\"]}}}\n</tool_call>\n<tool_call>\n"
      "{\"name\": \"ping\", \"arguments\": {}}\n</tool_call><|im_end|>";
  for (const auto d : {ocml::dialect::chatml, ocml::dialect::qwen3}) {
    const auto want = parsed_arguments(text, d, false);
    ASSERT_EQ(want.size(), 2u);
    EXPECT_EQ(want[0], R"({"city": "Køge", "n": 4, "opts": {"a": [1, "}"]}})");
    const auto one = stream_calls(text, d, false, 1);
    EXPECT_EQ(one.names, (std::vector<std::string>{"book", "ping"}));
    EXPECT_EQ(one.all, want);
    // Begun when "city" ended, its argument out then, long before </tool_call>.
    EXPECT_EQ(one.begun_at, text.find(", \"n\"") + 1);
    ASSERT_GE(one.args.size(), 4u);
    EXPECT_EQ(one.args[0].second, R"({"city": "Køge")");
    EXPECT_LT(one.args[1].first, text.find("</tool_call>"));
    for (const std::size_t chunk : {2, 3, 7, 64}) {
      const auto r = stream_calls(text, d, false, chunk);
      EXPECT_EQ(r.all, want) << chunk;
      EXPECT_EQ(r.names, one.names) << chunk;
    }
  }
}

TEST(Projection, AChatmlCallBeganThenBrokenStaysACallInLenientMode) {
  // The object's '}' missing: lenient keeps the call the stream began; strict is an error.
  const std::string broken =
      "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}\n</tool_call><|im_end|>";
  EXPECT_EQ(parsed_arguments(broken, ocml::dialect::chatml, true),
            std::vector<std::string>{R"({"a": 1})"});
  EXPECT_EQ(stream_calls(broken, ocml::dialect::chatml, true, 1).all,
            std::vector<std::string>{R"({"a": 1})"});
  EXPECT_FALSE(ocml::parse(broken, {.dialect = ocml::dialect::chatml, .completion = true}).ok());
  // White space in the closed arguments: the parse (which stops scanning at the first
  // argument and reads the body again) gives what the stream sent.
  const std::string spaced =
      "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1 , \"b\": [2] }\n</tool_call>";
  EXPECT_EQ(parsed_arguments(spaced, ocml::dialect::chatml, true),
            std::vector<std::string>{R"({"a": 1, "b": [2]})"});
  EXPECT_EQ(stream_calls(spaced, ocml::dialect::chatml, true, 1).all,
            parsed_arguments(spaced, ocml::dialect::chatml, true));
  // Cut by the end of the generation: the arguments as written, no byte lost.
  const std::string cut = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1, \"b\": \"x";
  EXPECT_EQ(parsed_arguments(cut, ocml::dialect::chatml, true),
            std::vector<std::string>{R"({"a": 1, "b": "x)"});
  EXPECT_EQ(stream_calls(cut, ocml::dialect::chatml, true, 3).all,
            std::vector<std::string>{R"({"a": 1, "b": "x)"});
  // Broken before its first argument: never begun, text as before.
  const std::string early = "<tool_call>\n{\"name\": \"f\", \"arguments\": {a: 1}}\n</tool_call>";
  EXPECT_TRUE(parsed_arguments(early, ocml::dialect::chatml, true).empty());
  EXPECT_TRUE(stream_calls(early, ocml::dialect::chatml, true, 1).names.empty());
}

TEST(Projection, PcmlCallsStreamTheirArgumentsWithTheirIds) {
  const std::string text =
      "Checking.\n<call>{\"id\": \"c1\", \"name\": \"f\", \"arguments\": {\"a\": 1, "
      "\"b\": \"x\"}}</call><end>[/AST]";
  const auto want = parsed_arguments(text, ocml::dialect::pcml, false);
  ASSERT_EQ(want, std::vector<std::string>{R"({"a": 1, "b": "x"})"});
  for (const std::size_t chunk : {1, 2, 3, 64}) {
    const auto r = stream_calls(text, ocml::dialect::pcml, false, chunk);
    EXPECT_EQ(r.all, want) << chunk;
    EXPECT_EQ(r.names, std::vector<std::string>{"f"}) << chunk;
    EXPECT_EQ(r.ids, std::vector<std::string>{"c1"}) << chunk;  // written before the arguments
  }
  const auto one = stream_calls(text, ocml::dialect::pcml, false, 1);
  EXPECT_EQ(one.begun_at, text.find(", \"b\"") + 1);
  // Cut off after its first argument (lenient): the call stays, its arguments as written.
  const std::string cut = "<call>{\"id\": \"c2\", \"name\": \"g\", \"arguments\": {\"a\": 1, \"b";
  EXPECT_EQ(parsed_arguments(cut, ocml::dialect::pcml, true),
            std::vector<std::string>{R"({"a": 1, "b)"});
  EXPECT_EQ(stream_calls(cut, ocml::dialect::pcml, true, 2).all,
            parsed_arguments(cut, ocml::dialect::pcml, true));
}
