// SPDX-License-Identifier: Apache-2.0
// The ocml tool's contract: exit codes 0/1/2, `E-CODE line:col message` on stderr.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "cli_support.hpp"
#include "ocml/convert.hpp"
#include "ocml/json.hpp"

namespace fs = std::filesystem;

namespace {

using ocml::test::run;

const std::string kGood =
    "<|start|>user<|message|>Hi<|end|>\n<|start|>assistant<|channel|>final<|message|>Hello<|return|"
    ">";

TEST(Cli, ParseAndChunkedParseAgree) {
  const auto a = run("parse -d ocml-2.2 -", kGood);
  const auto b = run("parse -d ocml-2.2 --chunk 1 -", kGood);
  EXPECT_EQ(a.code, 0);
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out.find("\"content\": \"Hello\""), std::string::npos);
}

TEST(Cli, InvalidInputExitsOneWithCodeLineColumn) {
  const auto r = run("parse -d ocml-2.2 -",
                     "<|start|>user<|message|>a<|end|>\n<|start|>bot<|message|>b<|end|>");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("E-PARSE-HEADER 2:10 ", 0), 0u) << r.err;
}

// A batch's failed lines go to --failures FILE (one {"line", "error"} object each) and the
// output holds the results alone; stderr closes with the count.
TEST(Cli, FailedBatchLinesGoToTheirOwnFile) {
  const fs::path failures = fs::temp_directory_path() / "ocml_cli_failures.jsonl";
  const std::string in = R"({"messages":[{"role":"user","content":"a"}]})"
                         "\n{\"messages\": 3}\nnot json\n" +
                         std::string(R"({"messages":[{"role":"user","content":"b"}]})") + "\n";
  const auto r = run("render -d chatml --jsonl --failures " + failures.string() + " -", in);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 2) << r.out;
  EXPECT_EQ(r.out.find("error"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("lines: 4, failed: 2 (E-JSON-INPUT 2)"), std::string::npos) << r.err;
  std::ifstream f(failures);
  std::vector<int> lines;
  for (std::string line; std::getline(f, line);) {
    const auto j = ocml::json::parse(line);
    lines.push_back(j["line"].get<int>());
    EXPECT_EQ(j["error"]["code"], "E-JSON-INPUT");
  }
  EXPECT_EQ(lines, (std::vector<int>{2, 3}));
  fs::remove(failures);
  // Training lines: the closing line counts the examples, their tokens and trained tokens.
  const std::string two =
      R"({"messages":[{"role":"user","content":"a"},{"role":"assistant","reasoning_content":"r",)"
      R"("content":"b"},{"role":"user","content":"c"},{"role":"assistant","content":"d"}]})";
  const auto t = run("render -d qwen3 --jsonl --ids --training --tokenizer " +
                         (fs::path(OCML_FIXTURE_DIR) / "tokenizers" / "bytes.json").string() + " -",
                     two + "\n" + two + "\n");
  ASSERT_EQ(t.code, 0) << t.err;
  std::size_t examples = 0;
  std::size_t tokens = 0;
  std::size_t trained = 0;
  std::istringstream out(t.out);
  for (std::string line; std::getline(out, line);) {
    const auto j = ocml::json::parse(line);
    ++examples;
    tokens += j["input_ids"].size();
    for (const auto& l : j["labels"]) trained += l.get<int>() != -100 ? 1 : 0;
  }
  EXPECT_EQ(examples, 4u);  // the first turn's reasoning is dropped later: its own example
  EXPECT_NE(t.err.find("examples: 4, tokens: " + std::to_string(tokens) +
                       ", trained tokens: " + std::to_string(trained)),
            std::string::npos)
      << t.err;
  // Without --jsonl it is a usage error; without failures, no count.
  EXPECT_EQ(run("render -d chatml --failures x -", in).code, 2);
  const auto ok = run("render -d chatml --jsonl -", R"({"messages":[]})"
                                                    "\n");
  EXPECT_EQ(ok.err.find("lines:"), std::string::npos) << ok.err;
}

// A batch prints the first warning of each kind (a code and a JSON path, indices left out)
// where it happens and sums up the kind at the end with its first lines; --verbose prints
// each, and --failures FILE receives each as a {"line", "warning"} object.
TEST(Cli, BatchWarningsAreGroupedByKind) {
  std::string in;
  for (int i = 0; i < 7; ++i) {
    in += R"({"messages":[{"role":"user","name":"ann","content":"q"},)"
          R"({"role":"assistant","reasoning_content":"think","content":"a"},)"
          R"({"role":"user","content":"q2"},)"
          R"({"role":"assistant","reasoning_content":"more","content":"b"}]})"
          "\n";
  }
  const auto count = [](const std::string& s, const std::string& what) {
    std::size_t n = 0;
    for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
  };
  const auto r = run("render -d chatml --jsonl -", in);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(count(r.err, "line 1: E-RENDER-UNREPRESENTABLE 1:"), 2u) << r.err;
  EXPECT_EQ(count(r.err, "line 2: "), 0u) << r.err;
  EXPECT_NE(r.err.find("warnings: 14 E-RENDER-UNREPRESENTABLE messages[*].reasoning_content "
                       "(first at lines 1, 2, 3, 4, 5)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("warnings: 7 E-RENDER-UNREPRESENTABLE messages[*].name (first at lines "
                       "1, 2, 3, 4, 5)"),
            std::string::npos)
      << r.err;
  // The reader's recorded place: the value of the first reasoning_content.
  const auto first = in.find("\"think\"");
  EXPECT_NE(r.err.find("line 1: E-RENDER-UNREPRESENTABLE 1:" + std::to_string(first + 1) +
                       " warning: messages[1].reasoning_content"),
            std::string::npos)
      << r.err;
  const auto v = run("render -d chatml --jsonl --verbose -", in);
  EXPECT_EQ(count(v.err, ": E-RENDER-UNREPRESENTABLE "), 21u) << v.err;
  const auto q = run("render -d chatml --jsonl --quiet -", in);
  EXPECT_EQ(count(q.err, "line "), 0u) << q.err;
  EXPECT_NE(q.err.find("warnings: 7 E-RENDER-UNREPRESENTABLE messages[*].name"), std::string::npos);
  const fs::path failures = fs::temp_directory_path() / "ocml_cli_warnings.jsonl";
  const auto f = run("render -d chatml --jsonl --failures " + failures.string() + " -", in);
  EXPECT_EQ(f.code, 0);
  std::ifstream file(failures);
  std::size_t objects = 0;
  for (std::string line; std::getline(file, line); ++objects) {
    const auto j = ocml::json::parse(line);
    EXPECT_EQ(j["line"].get<std::size_t>(), objects / 3 + 1);
    EXPECT_EQ(j["warning"]["code"], "E-RENDER-UNREPRESENTABLE");
  }
  EXPECT_EQ(objects, 21u);
  fs::remove(failures);
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(run("parse -").code, 2);             // missing -d
  EXPECT_EQ(run("parse -d klingon -").code, 2);  // unknown dialect
  EXPECT_EQ(run("render -d harmony --openai --native -").code, 2);
  EXPECT_EQ(run("frobnicate").code, 2);
}

// Plain role/content JSON is OpenAI chat JSON (issue 14): to harmony it gets gpt-oss's
// preamble, as with --openai; --native renders the messages alone.
TEST(Cli, RenderFromOpenAIJson) {
  const std::string in = R"({"messages":[{"role":"system","content":"Be brief."},)"
                         R"({"role":"user","content":"2+2?"}]})";
  const auto r = run("render -d harmony --add-generation-prompt --reasoning-effort high -", in);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, run("render -d harmony --add-generation-prompt --reasoning-effort high "
                       "--openai -",
                       in)
                       .out);
  EXPECT_EQ(r.out.rfind("<|start|>system<|message|>You are ChatGPT", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("Reasoning: high"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<|start|>developer<|message|># Instructions\n\nBe brief.<|end|>"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(r.out.ends_with("<|start|>user<|message|>2+2?<|end|><|start|>assistant"));
  EXPECT_TRUE(r.err.empty()) << r.err;
  const auto native = run("render -d harmony --add-generation-prompt --native -",
                          R"({"messages":[{"role":"user","content":"Hi"}]})");
  EXPECT_EQ(native.out, "<|start|>user<|message|>Hi<|end|><|start|>assistant");
  // Native-only keys choose the native form without --native.
  const auto keyed = run("render -d harmony --add-generation-prompt -",
                         R"({"messages":[{"role":"user","content":"Hi","end":"end"}]})");
  EXPECT_EQ(keyed.out, "<|start|>user<|message|>Hi<|end|><|start|>assistant");
}

TEST(Cli, RenderReportsBadJsonPosition) {
  const auto r = run("render -d ocml-2.2 -", "{\"messages\": [}");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("E-JSON-INPUT 1:", 0), 0u) << r.err;
}

TEST(Cli, ValidateViewStreamDialectsVersion) {
  EXPECT_EQ(run("validate -d ocml-2.2 -", kGood).code, 0);
  EXPECT_EQ(run("validate -d ocml-2.2 -", "<|start|>user<|message|>x").code, 1);
  // validate streams its input now (standard input was held twice): the diagnostics are
  // still those of the whole text, and a directory is an E-IO.
  const auto bad = run("validate -d ocml-2.2 -", std::string(kGood) + "<|start|>user<|message|>x");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("E-STREAM-TRUNCATED"), std::string::npos) << bad.err;
  const auto dir = run("validate -d ocml-2.2 " + std::string(OCML_SOURCE_DIR));
  EXPECT_EQ(dir.code, 1);
  EXPECT_NE(dir.err.find("E-IO"), std::string::npos) << dir.err;
  const auto v = run("view -d ocml-2.2 -", kGood);
  EXPECT_EQ(v.out, "user: Hi\n\nassistant: Hello\n\n");
  const auto s = run("stream -d ocml-2.2 --chunk 3 -", kGood);
  EXPECT_EQ(s.code, 0);
  EXPECT_NE(s.out.find(R"({"event":"message_end","offset":84,"end":"return","span":[84,84]})"),
            std::string::npos)
      << s.out;
  // A byte at a time, a character cut by a chunk boundary is held, never written as two
  // U+FFFD (decision 86): the text events join to the characters, and none is lost.
  const std::string jp = "<|im_start|>user\n\xe6\x97\xa5\xe6\x9c\xac<|im_end|>\n";
  const auto one = run("stream -d chatml --chunk 1 -", jp);
  EXPECT_EQ(one.code, 0);
  EXPECT_EQ(one.out.find("\xef\xbf\xbd"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("\xe6\x97\xa5"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("\xe6\x9c\xac"), std::string::npos) << one.out;
  // Colours: never on a pipe unless asked; NO_COLOR does not override an explicit flag.
  const auto plain = run("view --debug -d ocml-2.2 -", kGood);
  EXPECT_EQ(plain.out.find("\x1b["), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("[shown user] Hi"), std::string::npos) << plain.out;
  const auto always = run("view --debug --color=always -d ocml-2.2 -", kGood);
  EXPECT_NE(always.out.find("\x1b[1;32m[shown user]\x1b[0m Hi"), std::string::npos) << always.out;
  EXPECT_EQ(run("view --color=never -d ocml-2.2 -", kGood).out, v.out);
  EXPECT_EQ(run("view --color=sometimes -d ocml-2.2 -", kGood).code, 2);
  const auto d = run("dialects");
  EXPECT_NE(d.out.find("harmony"), std::string::npos);
  EXPECT_EQ(run("--version").out.rfind("ocml ", 0), 0u);
}

}  // namespace

namespace {

TEST(Cli, ConvertReportsWhatTheTargetCannotHold) {
  const std::string pcml = "[USR]name=\"Alice\"[SEP]Hi[/USR]\n\n[AST]Hello<end>[/AST]";
  const auto r = run("convert --from pcml --to chatml -", pcml);
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("<|im_start|>user\nHi<|im_end|>"), std::string::npos);
  EXPECT_NE(r.err.find("warning: messages[0]: chatml cannot hold author names (dropped)"),
            std::string::npos);
  const auto s = run("convert --from pcml --to chatml --strict -", pcml);
  EXPECT_EQ(s.code, 1);
  EXPECT_TRUE(s.out.empty());
}

TEST(Cli, BatchModeKeepsOrderAndReportsBadLines) {
  std::string in;
  for (int i = 0; i < 300; ++i) {
    in += i == 150
              ? std::string("{broken\n")
              : "{\"messages\":[{\"role\":\"user\",\"content\":\"m" + std::to_string(i) + "\"}]}\n";
  }
  const auto r = run("render -d pcml --jsonl -j 2 -", in);
  EXPECT_EQ(r.code, 1);
  std::istringstream out(r.out);
  std::string line;
  int n = 0;
  while (std::getline(out, line)) {
    const auto j = ocml::json::parse(line);
    if (n == 150) {
      EXPECT_EQ(j["line"], 151);
      EXPECT_EQ(j["error"]["code"], "E-JSON-INPUT");
    } else {
      EXPECT_EQ(j["text"], "[USR]m" + std::to_string(n) + "[/USR]");
    }
    ++n;
  }
  EXPECT_EQ(n, 300);
  EXPECT_EQ(r.err.rfind("line 151: E-JSON-INPUT", 0), 0u) << r.err;
  // parse and convert take one JSON-encoded markup string per line.
  const auto p = run("parse -d gabgpt --jsonl --openai -",
                     "\"<|user|>Hi<|assistant|>Yo<|end|>\"\n{\"text\": \"<|user|>A\"}\n");
  EXPECT_EQ(p.code, 0);
  EXPECT_NE(p.out.find("\"content\":\"Yo\""), std::string::npos);
  const auto c =
      run("convert --from gabgpt --to pcml --jsonl -", "\"<|user|>Hi<|assistant|>Yo<|end|>\"\n");
  EXPECT_EQ(c.out, "{\"text\":\"[USR]Hi[/USR]\\n\\n[AST]Yo<end>[/AST]\"}\n");
}

TEST(Cli, PrepareGabgpt) {
  const auto r = run("prepare -d gabgpt --user \"How are you?\" -",
                     "<|user|>Hi<|assistant|>Hello!<|end|><|user|>");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "<|user|>Hi<|assistant|>Hello!<|end|><|user|>How are you?<|assistant|>");
  EXPECT_EQ(run("prepare -d gabgpt --think --user Q -", "").out, "<|user|>Q<|think|>");
  EXPECT_EQ(run("prepare -d gabgpt --user \"x<|end|>\" -", "").code, 1);
}

}  // namespace

namespace {

// `--jsonl -` answers each line as soon as it is complete (issue 14): a co-process writes
// a line, reads its answer, then writes the next, in order with -j 2 too.
TEST(Cli, JsonlOnStdinAnswersEachLineWhileTheInputIsOpen) {
  for (const char* args : {"render -d chatml --jsonl -", "render -d chatml --jsonl -j 2 -",
                           "parse -d chatml --jsonl -"}) {
    ocml::test::coprocess p(args);
    const bool parse = std::string_view(args).starts_with("parse");
    for (int i = 0; i < 3; ++i) {
      const std::string n = std::to_string(i);
      p.write(parse ? "\"<|im_start|>user\\nm" + n + "<|im_end|>\\n\"\n"
                    : R"({"messages":[{"role":"user","content":"m)" + n + "\"}]}\n");
      const auto line = p.read_line();
      ASSERT_TRUE(line.has_value()) << args << ": no answer to line " << i;
      EXPECT_NE(line->find("m" + n), std::string::npos) << *line;
    }
    p.close_input();
    EXPECT_FALSE(p.read_line().has_value());
  }
}

}  // namespace

namespace {

// Per-line options in JSONL win over the command line's (issue 14): continue_final_message
// and reasoning_effort here.
TEST(Cli, PerLineOptionsInJsonl) {
  const std::string in =
      R"({"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Well,"}],)"
      R"("continue_final_message":true})"
      "\n"
      R"({"messages":[{"role":"user","content":"Hi"}],"reasoning_effort":"high"})"
      "\n";
  const auto r = run("render -d harmony --jsonl -", in);
  EXPECT_EQ(r.code, 0) << r.err;
  std::istringstream out(r.out);
  std::string line;
  std::vector<std::string> texts;
  while (std::getline(out, line)) texts.push_back(ocml::json::parse(line)["text"]);
  ASSERT_EQ(texts.size(), 2u);
  EXPECT_TRUE(texts[0].ends_with("<|channel|>final<|message|>Well,")) << texts[0];
  EXPECT_NE(texts[1].find("Reasoning: high"), std::string::npos) << texts[1];
  const auto chatml = run("render -d chatml --jsonl -", in);
  EXPECT_NE(chatml.out.find("<|im_start|>assistant\\nWell,\"}"), std::string::npos) << chatml.out;
}

}  // namespace

namespace {

// Convert meaning, not markup (issue 14): harmony's preamble read back as instructions and
// tools, so harmony -> chatml equals rendering the original conversation to chatml, and
// `parse --openai` gives back the tools and the instructions.
TEST(Cli, ConvertFromHarmonyKeepsInstructionsAndTools) {
  const std::string conv =
      R"({"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Weather?"}],)"
      R"("tools":[{"type":"function","function":{"name":"get_weather","description":"Get the weather.",)"
      R"("parameters":{"type":"object","properties":{"city":{"type":"string","description":"City name"},)"
      R"("unit":{"type":"string","enum":["c","f"]},"days":{"type":"number"},)"
      R"("tags":{"type":"array","items":{"type":"string"}},)"
      R"("where":{"type":"object","properties":{"lat":{"type":"number"},"lon":{"type":"number"}},)"
      R"("required":["lat","lon"]}},"required":["city"]}}},)"
      R"({"type":"function","function":{"name":"now","description":"Time now."}}]})";
  const auto harmony = run("render -d harmony -", conv);
  ASSERT_EQ(harmony.code, 0) << harmony.err;
  for (const char* to : {"chatml", "qwen3", "pcml"}) {
    const auto converted =
        run(std::string("convert --from harmony --to ") + to + " -", harmony.out);
    const auto direct = run(std::string("render -d ") + to + " -", conv);
    EXPECT_EQ(converted.code, 0) << converted.err;
    EXPECT_EQ(converted.out, direct.out) << to;
  }
  const auto parsed = run("parse -d harmony --openai -", harmony.out);
  const auto j = ocml::json::parse(parsed.out);
  const auto want = ocml::json::parse(conv);
  EXPECT_EQ(j["tools"], want["tools"]);
  EXPECT_EQ(j["messages"][0], want["messages"][0]);  // the instructions, as the system prompt
}

}  // namespace

// `ocml dialects --json` is the registry: every dialect with its tokens, stops and features.
TEST(Cli, DialectsJsonIsTheRegistry) {
  const auto r = run("dialects --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = ocml::json::parse(r.out);
  ASSERT_EQ(j.size(), ocml::dialects().size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    const auto& d = ocml::dialects()[i];
    EXPECT_EQ(j[i]["name"], std::string(d.name));
    ASSERT_EQ(j[i]["tokens"].size(), d.tokens.size()) << d.name;
    for (std::size_t k = 0; k < d.tokens.size(); ++k) {
      EXPECT_EQ(j[i]["tokens"][k], std::string(d.tokens[k]));
    }
    const auto holds = ocml::dialect_holds(d.id);
    EXPECT_EQ(j[i]["holds"].size(), holds.size()) << d.name;
  }
  // What the conversion warnings say agrees with the list: ChatML holds no developer role.
  const auto chatml = ocml::dialect_holds(ocml::dialect::chatml);
  EXPECT_EQ(std::count(chatml.begin(), chatml.end(), "developer messages"), 0);
  const auto harmony = ocml::dialect_holds(ocml::dialect::harmony);
  EXPECT_EQ(std::count(harmony.begin(), harmony.end(), "reasoning"), 1);
  // What the commands start from is the registry's too.
  EXPECT_TRUE(ocml::json_render_defaults(ocml::dialect::harmony).render.drop_analysis);
  EXPECT_FALSE(ocml::json_render_defaults(ocml::dialect::chatml).render.drop_analysis);
  EXPECT_EQ(ocml::openai_defaults(ocml::dialect::ocml_2_0).reasoning_key, "thinking");
  EXPECT_EQ(ocml::openai_defaults(ocml::dialect::qwen3).reasoning_key, "reasoning_content");
}
