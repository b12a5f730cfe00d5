// SPDX-License-Identifier: Apache-2.0
// The tokenizer cache (decision 106): a cache file is used only when everything in it
// checks out. A damaged, truncated, foreign or forged file is a miss, never a crash nor a
// tokenizer that encodes otherwise; the real families are compared through the cache in
// tokens_families_test.cpp.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "ocml/tokens.hpp"
#include "tokens/load.hpp"
#include "tokens/model_cache.hpp"

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void put(const fs::path& p, std::string_view bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

class TokenizerCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ocml_tokcache_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    source_ = fs::path(OCML_FIXTURE_DIR) / "tokenizers" / "bytes.json";
    text_ = slurp(source_);
    key_ = ocml::detail::key_of_source(text_);
    file_ = dir_ / ocml::detail::cache_file_name(key_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Whether the cache file as it stands reads back for the source.
  [[nodiscard]] bool reads_back() const {
    const int fd = ::open(file_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = ocml::detail::read_model_cache(fd, key_) != nullptr;
    ::close(fd);
    return ok;
  }
  [[nodiscard]] ocml::result<ocml::tokenizer> load() const {
    return ocml::tokenizer::from_file(source_.string(), {.cache_dir = dir_.string()});
  }
  // The IDs of a text with an added token and bytes outside ASCII.
  static std::vector<ocml::token_id> sample(const ocml::tokenizer& t) {
    return t.encode("hello hello <|start|> héllo wörld 123", ocml::special_tokens::all);
  }

  fs::path dir_;
  fs::path source_;
  fs::path file_;
  std::string text_;
  ocml::detail::source_key key_;
};

TEST_F(TokenizerCache, AMissWritesTheFileAndAHitEncodesTheSame) {
  auto plain = ocml::tokenizer::from_file(source_.string());
  ASSERT_TRUE(plain);
  auto first = load();
  ASSERT_TRUE(first) << first.error().to_string();
  ASSERT_TRUE(fs::exists(file_));
  EXPECT_TRUE(reads_back());
  auto second = load();
  ASSERT_TRUE(second);
  EXPECT_EQ(sample(*second), sample(*plain));
  EXPECT_EQ(second->vocab_size(), plain->vocab_size());
  EXPECT_EQ(second->id_of("<|start|>"), plain->id_of("<|start|>"));
  EXPECT_EQ(*second->decode(sample(*plain)), *plain->decode(sample(*plain)));
  // Nothing is left beside the file (the temporary it was written through is renamed).
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(TokenizerCache, DamagedTruncatedOrForeignFilesAreMissesAndAreRewritten) {
  ASSERT_TRUE(load());
  const std::string good = slurp(file_);
  ASSERT_GT(good.size(), 100u);
  auto plain = ocml::tokenizer::from_file(source_.string());
  ASSERT_TRUE(plain);
  std::vector<std::string> bad;
  for (const std::size_t at : {std::size_t{3}, std::size_t{20}, good.size() / 2, good.size() - 1}) {
    std::string b = good;
    b[at] = static_cast<char>(b[at] ^ 0x40);  // the magic, the key, a table, the last scalar
    bad.push_back(b);
  }
  bad.push_back(good.substr(0, good.size() - 1));
  bad.push_back(good.substr(0, 10));
  bad.push_back(good + "x");
  bad.emplace_back();
  for (const std::string& b : bad) {
    put(file_, b);
    EXPECT_FALSE(reads_back()) << b.size() << " bytes";
    auto t = load();  // a miss: built from the JSON, and the file written again
    ASSERT_TRUE(t);
    EXPECT_EQ(sample(*t), sample(*plain));
    EXPECT_TRUE(reads_back());
  }
  // A valid cache file of another source, under this source's name.
  std::string other_text = text_;
  other_text.insert(other_text.find('{') + 1, " ");
  auto other = ocml::detail::load_tokenizer_json(other_text);
  ASSERT_TRUE(other);
  put(file_, ocml::detail::write_model_cache(**other, other_text));
  EXPECT_FALSE(reads_back());
}

// Files whose hash is right but whose tables point outside themselves (written by
// write_model_cache from a model damaged on purpose): refused by the bounds checks.
TEST_F(TokenizerCache, ForgedTablesWithAValidHashAreRefused) {
  const auto forged = [&](auto damage) {
    auto m = ocml::detail::load_tokenizer_json(text_);
    EXPECT_TRUE(m);
    damage(**m);
    fs::create_directories(dir_);
    put(file_, ocml::detail::write_model_cache(**m, text_));
    return reads_back();
  };
  EXPECT_TRUE(forged([](ocml::detail::bpe_model&) {}));  // undamaged: it does read back
  EXPECT_FALSE(forged([](ocml::detail::bpe_model& m) { m.spans[5].first = 1u << 30; }));
  EXPECT_FALSE(forged([](ocml::detail::bpe_model& m) { m.spans.pop_back(); }));
  EXPECT_FALSE(forged([](ocml::detail::bpe_model& m) {
    m.by_bytes.assign(m.by_bytes.size(), 0);  // no empty slot: a lookup would never end
  }));
  EXPECT_FALSE(forged([](ocml::detail::bpe_model& m) { m.byte_token[7] = 1u << 30; }));
  EXPECT_FALSE(forged([](ocml::detail::bpe_model& m) { m.unk = 1u << 30; }));
  EXPECT_FALSE(forged([](ocml::detail::bpe_model& m) {
    m.merges.assign(std::uint64_t{1} << 32 | 2, std::uint64_t{0} << 32 | (1u << 30));
  }));
  EXPECT_FALSE(forged([](ocml::detail::bpe_model& m) { m.ordinary_count = m.spans.size() + 1; }));
}

TEST_F(TokenizerCache, AFolderThatCannotBeWrittenOnlyCostsTheSpeed) {
  fs::create_directories(dir_.parent_path());
  put(dir_, "a file where the folder should be");
  auto t = load();
  ASSERT_TRUE(t) << t.error().to_string();
  auto plain = ocml::tokenizer::from_file(source_.string());
  EXPECT_EQ(sample(*t), sample(*plain));
  fs::remove(dir_);
}

}  // namespace
