// SPDX-License-Identifier: Apache-2.0
// openai/harmony v0.0.8 goldens (../shared/reference/harmony): every rendering golden
// byte-exact from its request, every text parsing golden to its expected messages.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "ocml/token_decoder.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using ocml::json;

namespace {

const fs::path kDir = fs::path(OCML_REFERENCE_DIR) / "harmony";

// Harmony's tests read goldens with "\r\n" -> "\n" and trailing whitespace trimmed.
std::string golden_text(const fs::path& p) {
  std::string s = ocml::test::read_file(p);
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') continue;
    out.push_back(s[i]);
  }
  while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
  return out;
}

std::vector<std::string> requests(bool parsing) {
  std::vector<std::string> out;
  if (!fs::exists(kDir / "requests")) return {"reference_absent"};
  for (const auto& e : fs::directory_iterator(kDir / "requests")) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".json") continue;
    if (name.ends_with(".expected.json") == parsing) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param.substr(0, info.param.find('.'));
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
}

class HarmonyRender : public ::testing::TestWithParam<std::string> {};

TEST_P(HarmonyRender, ByteExact) {
  if (GetParam() == "reference_absent") GTEST_SKIP() << "../shared/reference is absent";
  const json req = json::parse(ocml::test::read_file(kDir / "requests" / GetParam()));
  auto conv = ocml::harmony::from_conversation_json(req["conversation"]);
  ASSERT_TRUE(conv.ok()) << conv.error().to_string();
  ocml::render_options o;
  o.dialect = ocml::dialect::harmony;
  const std::string call = req["call"];
  if (call == "render_conversation_for_completion") {
    o.add_generation_prompt = true;
    o.generation_role = req["next_role"];
  } else if (call == "render_conversation_for_training") {
    o.training = true;
  } else {
    ASSERT_EQ(call, "render_conversation");
  }
  o.drop_analysis = req["config"].is_object() && req["config"].value("auto_drop_analysis", false);
  auto text = ocml::render(*conv, o);
  ASSERT_TRUE(text.ok()) << text.error().to_string();
  EXPECT_EQ(*text, golden_text(kDir / req["golden"].get<std::string>()));
}

INSTANTIATE_TEST_SUITE_P(Goldens, HarmonyRender, ::testing::ValuesIn(requests(false)), test_name);

class HarmonyParse : public ::testing::TestWithParam<std::string> {};

TEST_P(HarmonyParse, ExpectedMessages) {
  if (GetParam() == "reference_absent") GTEST_SKIP() << "../shared/reference is absent";
  const json req = json::parse(ocml::test::read_file(kDir / "requests" / GetParam()));
  ocml::decoder_options o;
  o.dialect = ocml::dialect::harmony;
  if (req["role"].is_string()) {
    o.completion = true;
    o.completion_role = req["role"];
  }
  if (req["input"] == "tokens") {  // decimal IDs, parsed with o200k_harmony as harmony does
    const fs::path ranks = fs::path(OCML_SOURCE_DIR) / "tests/reference/o200k_base.tiktoken";
    if (!fs::exists(ranks)) {
      GTEST_SKIP() << "token-ID golden: tests/reference not installed (scripts/setup.sh --dev)";
    }
    const auto tok = *ocml::tokenizer::from_file(ranks.string(), {.encoding = "o200k_harmony"});
    std::vector<ocml::token_id> ids;
    std::istringstream in(ocml::test::read_file(kDir / req["golden"].get<std::string>()));
    for (ocml::token_id id = 0; in >> id;) ids.push_back(id);
    for (std::size_t chunk : {ids.size(), std::size_t{1}, std::size_t{5}}) {
      ocml::collector c;
      ocml::token_decoder d(tok, o, [&c](const ocml::event& e) { c(e); });
      for (std::size_t i = 0; i < ids.size(); i += chunk) {
        d.push_tokens(
            std::span<const ocml::token_id>(ids.data() + i, std::min(chunk, ids.size() - i)));
      }
      d.finish();
      const auto r = c.take();
      ASSERT_TRUE(r.ok()) << r.diagnostics[0].to_string();
      const nlohmann::json got = nlohmann::json::parse(
          ocml::harmony::to_conversation_json(r.conversation)["messages"].dump());
      EXPECT_EQ(got, nlohmann::json::parse(req["expected_messages"].dump())) << "chunk " << chunk;
    }
    return;
  }
  const std::string text = golden_text(kDir / req["golden"].get<std::string>());
  for (std::size_t chunk : {0u, 1u, 5u}) {
    const auto r = ocml::test::parse_chunked(text, o, chunk);
    // Harmony closes a message at end of input; that is a warning, not an error.
    ASSERT_TRUE(r.ok()) << r.diagnostics[0].to_string();
    const nlohmann::json got = nlohmann::json::parse(
        ocml::harmony::to_conversation_json(r.conversation)["messages"].dump());
    const nlohmann::json want = nlohmann::json::parse(req["expected_messages"].dump());
    EXPECT_EQ(got, want) << "chunk " << chunk;
  }
}

INSTANTIATE_TEST_SUITE_P(Goldens, HarmonyParse, ::testing::ValuesIn(requests(true)), test_name);

}  // namespace
