// SPDX-License-Identifier: Apache-2.0
// The tokenizer on small hand-made vocabularies (no reference files needed): merge order,
// added tokens, decoding, streaming text, refusals; and the pre-tokenizer's pieces.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ocml/json.hpp"
#include "ocml/tokens.hpp"
#include "token_support.hpp"
#include "tokens/pretokenize.hpp"

namespace {

using ocml::json;
using ocml::token_id;

using ocml::test::byte_char;

// A tokenizer.json: every byte (ID = byte), then merges he, ll, hell, hello, " w".
json tiny_tokenizer_json() {
  json vocab = json::object();
  for (int b = 0; b < 256; ++b) vocab[byte_char(b)] = b;
  vocab["he"] = 256;
  vocab["ll"] = 257;
  vocab["hell"] = 258;
  vocab["hello"] = 259;
  vocab[byte_char(' ') + "w"] = 260;
  json merges = json::array({"h e", "l l", "he ll", "hell o", byte_char(' ') + " w"});
  return {
      {"normalizer", nullptr},
      {"pre_tokenizer",
       {{"type", "Sequence"},
        {"pretokenizers",
         json::array({{{"type", "Split"},
                       {"pattern",
                        {{"Regex",
                          "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| "
                          "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}}},
                       {"behavior", "Isolated"},
                       {"invert", false}},
                      {{"type", "ByteLevel"},
                       {"add_prefix_space", false},
                       {"trim_offsets", false},
                       {"use_regex", false}}})}}},
      {"decoder", {{"type", "ByteLevel"}}},
      {"added_tokens",
       json::array(
           {{{"id", 300}, {"content", "<|end|>"}, {"special", true}, {"normalized", false}},
            {{"id", 301}, {"content", "<think>"}, {"special", false}, {"normalized", false}}})},
      {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}, {"ignore_merges", false}}},
  };
}

ocml::tokenizer tiny() {
  auto t = ocml::tokenizer::from_tokenizer_json(tiny_tokenizer_json().dump());
  EXPECT_TRUE(t.ok()) << t.error().to_string();
  return std::move(*t);
}

std::vector<token_id> bytes_of(std::string_view s) {
  std::vector<token_id> v;
  for (const char c : s) v.push_back(static_cast<unsigned char>(c));
  return v;
}

TEST(Tokens, MergesApplyInRankOrder) {
  const auto t = tiny();
  EXPECT_EQ(t.encode_ordinary("hello"), (std::vector<token_id>{259}));
  EXPECT_EQ(t.encode_ordinary("hell"), (std::vector<token_id>{258}));
  // "helo": he (rank 0) merges; l o has no merge.
  EXPECT_EQ(t.encode_ordinary("helo"), (std::vector<token_id>{256, 'l', 'o'}));
  // " world": the pre-tokenizer keeps the space with the word; " w" merges.
  EXPECT_EQ(t.encode_ordinary("hello world"),
            (std::vector<token_id>{259, 260, 'o', 'r', 'l', 'd'}));
}

TEST(Tokens, AddedTokensAreSingleIdsOnlyWhenAllowed) {
  const auto t = tiny();
  EXPECT_EQ(t.encode("hello<|end|>", ocml::special_tokens::all), (std::vector<token_id>{259, 300}));
  EXPECT_EQ(t.encode("<think>hello", ocml::special_tokens::all), (std::vector<token_id>{301, 259}));
  // As ordinary text, "<|end|>" is its bytes (the pre-tokenizer splits "<|" from "end").
  auto plain = t.encode("<|end|>", ocml::special_tokens::none);
  EXPECT_EQ(plain.size(), 7u);
  EXPECT_EQ(*t.decode(plain), "<|end|>");
  EXPECT_EQ(t.id_of("<|end|>"), 300u);
  EXPECT_TRUE(t.is_special(300));
  EXPECT_FALSE(t.id_of("<|nope|>").has_value());
}

TEST(Tokens, DecodeGivesBackTheBytesAndRefusesUnknownIds) {
  const auto t = tiny();
  const std::string text = "hello 日本語 😀 <|end|> it's";
  EXPECT_EQ(*t.decode(t.encode(text, ocml::special_tokens::all)), text);
  const std::vector<token_id> bad = {259, 99999};
  const auto r = t.decode(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ocml::error_code::token_unknown);
  EXPECT_EQ(t.token_bytes(259), "hello");
}

TEST(Tokens, StreamingDecodeNeverSplitsACharacter) {
  const auto t = tiny();
  ocml::token_text_decoder d(t);
  std::string out;
  std::vector<std::string> pieces;
  for (const token_id id : bytes_of("a日😀")) {  // one token per byte
    pieces.push_back(d.push(id));
    out += pieces.back();
  }
  out += d.finish();
  EXPECT_EQ(out, "a日😀");
  EXPECT_EQ(pieces, (std::vector<std::string>{"a", "", "", "日", "", "", "", "😀"}));
  ocml::token_text_decoder cut(t);
  EXPECT_EQ(cut.push(0xE6), "");
  EXPECT_EQ(cut.finish(), "\xE6");  // what was held, as it is
}

TEST(Tokens, UnsupportedFeaturesAreRefusedByName) {
  const auto refused = [](json j) {
    auto t = ocml::tokenizer::from_tokenizer_json(j.dump());
    EXPECT_FALSE(t.ok());
    return t.ok() ? std::string() : t.error().to_string();
  };
  json j = tiny_tokenizer_json();
  j["model"]["type"] = "WordPiece";
  EXPECT_NE(refused(j).find("E-TOKENIZER-UNSUPPORTED"), std::string::npos);
  j = tiny_tokenizer_json();
  j["model"]["byte_fallback"] = true;  // with a ByteLevel pre-tokenizer: meaningless
  EXPECT_NE(refused(j).find("byte_fallback"), std::string::npos);
  j = tiny_tokenizer_json();
  j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "(unclosed";
  EXPECT_NE(refused(j).find("PCRE2 cannot compile"), std::string::npos);
  j = tiny_tokenizer_json();  // a Unigram entry long enough to make the cut quadratic
  j["model"] = {{"type", "Unigram"},
                {"unk_id", 0},
                {"vocab", json::array({json::array({"<unk>", 0.0}),
                                       json::array({std::string(2000, 'a'), -1.0})})}};
  j["pre_tokenizer"] = nullptr;
  j["decoder"] = {{"type", "Fuse"}};
  EXPECT_NE(refused(j).find("at most 256"), std::string::npos);
  j = tiny_tokenizer_json();
  j["normalizer"] = {{"type", "BertNormalizer"}};
  EXPECT_NE(refused(j).find("BertNormalizer"), std::string::npos);
  j = tiny_tokenizer_json();
  j["normalizer"] = {{"type", "Sequence"}, {"normalizers", json::array()}};
  for (int i = 0; i < 70; ++i) j["normalizer"]["normalizers"].push_back({{"type", "NFC"}});
  EXPECT_NE(refused(j).find("more than 64"), std::string::npos);
  j = tiny_tokenizer_json();
  j["added_tokens"][0]["lstrip"] = true;
  EXPECT_NE(refused(j).find("lstrip"), std::string::npos);
  j = tiny_tokenizer_json();
  j["model"]["merges"].push_back("x y");  // "xy" is not in the vocabulary
  EXPECT_NE(refused(j).find("E-TOKENIZER-FORMAT"), std::string::npos);
  const auto bad = ocml::tokenizer::from_tokenizer_json("{not json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ocml::error_code::tokenizer_format);
}

// Issue 23: a 3.5 KB tokenizer.json with one ID of 2 000 000 000 allocated 7 GB (the tables
// are dense up to the largest ID). An ID is bounded by the entries the file holds (plus 2^20
// for gaps), refused before anything is sized by it.
TEST(Tokens, IdsFarBeyondTheEntriesAreRefused) {
  for (const char* where : {"vocab", "added"}) {
    for (const std::uint64_t id : {std::uint64_t{2000000000}, std::uint64_t{1} << 40}) {
      json j = tiny_tokenizer_json();
      if (std::string(where) == "vocab") {
        j["model"]["vocab"]["hello"] = id;
      } else {
        j["added_tokens"][1]["id"] = id;
      }
      auto t = ocml::tokenizer::from_tokenizer_json(j.dump());
      ASSERT_FALSE(t.ok()) << where << " " << id;
      EXPECT_EQ(t.error().code, ocml::error_code::limit_exceeded) << t.error().to_string();
      EXPECT_NE(t.error().message.find(std::to_string(id)), std::string::npos);
    }
  }
  // A gap as real files have (added tokens well past the vocabulary) still loads.
  json j = tiny_tokenizer_json();
  j["added_tokens"][1]["id"] = 300000;
  auto t = ocml::tokenizer::from_tokenizer_json(j.dump());
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  const std::vector<token_id> far{300000};
  EXPECT_EQ(*t->decode(far), "<think>");
}

std::string base64(std::string_view s) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < s.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(s[i]) << 16 |
                       static_cast<unsigned char>(s[i + 1]) << 8 |
                       static_cast<unsigned char>(s[i + 2]);
    for (int k2 = 18; k2 >= 0; k2 -= 6) out.push_back(k[(v >> k2) & 63]);
  }
  if (s.size() - i == 1) {
    const unsigned v = static_cast<unsigned char>(s[i]) << 16;
    out += {k[(v >> 18) & 63], k[(v >> 12) & 63], '=', '='};
  } else if (s.size() - i == 2) {
    const unsigned v = static_cast<unsigned char>(s[i]) << 16 | static_cast<unsigned char>(s[i + 1])
                                                                    << 8;
    out += {k[(v >> 18) & 63], k[(v >> 12) & 63], k[(v >> 6) & 63], '='};
  }
  return out;
}

// A .tiktoken file: every byte, then the given tokens in rank order.
std::string tiktoken_file(const std::vector<std::string>& extra) {
  std::string f;
  int rank = 0;
  for (int b = 0; b < 256; ++b)
    f += base64(std::string(1, static_cast<char>(b))) + " " + std::to_string(rank++) + "\n";
  for (const auto& t : extra) f += base64(t) + " " + std::to_string(rank++) + "\n";
  return f;
}

TEST(Tokens, TiktokenMergesTheLowestRankedConcatenationLeftmostFirst) {
  auto t = ocml::tokenizer::from_tiktoken(tiktoken_file({"bc", "ab", "abc", "aa"}),
                                          {.encoding = "o200k_base"});
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  // "abc" is a token: the whole piece is looked up first.
  EXPECT_EQ(t->encode_ordinary("abc"), (std::vector<token_id>{258}));
  // "abcb": no whole token; bc (256) beats ab (257): a + bc, then abc? a+bc is "abc" (258).
  EXPECT_EQ(t->encode_ordinary("abcb"), (std::vector<token_id>{258, 'b'}));
  // "aaa": equal ranks, the leftmost pair merges first.
  EXPECT_EQ(t->encode_ordinary("aaa"), (std::vector<token_id>{259, 'a'}));
  EXPECT_EQ(t->encode("x<|endoftext|>", ocml::special_tokens::all),
            (std::vector<token_id>{'x', 199999}));
  EXPECT_EQ(t->name(), "o200k_base");
}

TEST(Tokens, MalformedTiktokenFilesSayWhichLine) {
  auto t = ocml::tokenizer::from_tiktoken("QQ== 0\n!!! 1\n", {.encoding = "o200k_base"});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, ocml::error_code::tokenizer_format);
  EXPECT_NE(t.error().message.find("line 2"), std::string::npos);
  t = ocml::tokenizer::from_tiktoken("QQ== 1\n", {.encoding = "o200k_base"});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("expected"), std::string::npos);
  t = ocml::tokenizer::from_tiktoken(tiktoken_file({}), {.encoding = "p50k"});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, ocml::error_code::tokenizer_unsupported);
}

TEST(Tokens, ALongSinglePieceMergesCompletely) {
  auto t =
      ocml::tokenizer::from_tiktoken(tiktoken_file({"aa", "aaaa"}), {.encoding = "o200k_base"});
  ASSERT_TRUE(t.ok());
  const std::string text(100000, 'a');  // one piece of 100 000 letters
  const auto ids = t->encode_ordinary(text);
  EXPECT_EQ(ids.size(), 25000u);  // aa merges everywhere first, then aaaa
  EXPECT_EQ(*t->decode(ids), text);
}

// The pieces of `text` under pre-tokenizer `p`.
std::vector<std::string> pieces(ocml::detail::pretokenizer p, std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = ocml::detail::next_piece(p, text, i);
    out.emplace_back(text.substr(i, n));
    i += n;
  }
  return out;
}

TEST(Pretokenize, O200kSplitsAsItsRegex) {
  using P = ocml::detail::pretokenizer;
  using V = std::vector<std::string>;
  EXPECT_EQ(pieces(P::o200k, "Hello world"), (V{"Hello", " world"}));
  EXPECT_EQ(pieces(P::o200k, "HTTPServer"), (V{"HTTPServer"}));  // [upper]*[lower]+
  EXPECT_EQ(pieces(P::o200k, "DON'T stop"), (V{"DON'T", " stop"}));
  EXPECT_EQ(pieces(P::o200k, "12345"), (V{"123", "45"}));
  EXPECT_EQ(pieces(P::o200k, "a  b"), (V{"a", " ", " b"}));  // \s+(?!\S) leaves one space
  EXPECT_EQ(pieces(P::o200k, "x\n\n  y"), (V{"x", "\n\n", " ", " y"}));
  EXPECT_EQ(pieces(P::o200k, "a/b//\n"), (V{"a", "/b", "//\n"}));
  EXPECT_EQ(pieces(P::o200k, "end  "), (V{"end", "  "}));
  EXPECT_EQ(pieces(P::cl100k, "it's 12345"), (V{"it", "'s", " ", "123", "45"}));
  EXPECT_EQ(pieces(P::qwen2, "12345"), (V{"1", "2", "3", "4", "5"}));
  EXPECT_EQ(pieces(P::gpt2, "Hello  world!!\n"), (V{"Hello", " ", " world", "!!", "\n"}));
  EXPECT_TRUE(ocml::detail::recognize_pattern(ocml::detail::pattern_of(P::qwen2)) == P::qwen2);
}

}  // namespace

namespace {

TEST(Tokens, APieceCacheNeverOutlivesItsTokenizer) {
  // A model freed and another loaded (likely at the same address) must not see the first
  // one's cached pieces.
  std::vector<token_id> first;
  {
    const auto a = tiny();
    first = a.encode_ordinary("hello hello");
  }
  json j = tiny_tokenizer_json();
  j["model"]["merges"] = json::array();  // same vocabulary, no merges: bytes only
  for (int i = 0; i < 3; ++i) {
    auto b = ocml::tokenizer::from_tokenizer_json(j.dump());
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b->encode_ordinary("hello hello"), bytes_of("hello hello"));
  }
  EXPECT_EQ(first, (std::vector<token_id>{259, ' ', 259}));
}

}  // namespace

#include <filesystem>
#include <fstream>

#include "cli_support.hpp"

namespace {

TEST(Tokens, CliEncodesAndDecodes) {
  namespace fs = std::filesystem;
  const fs::path f =
      fs::temp_directory_path() / ("ocml_tiny_" + std::to_string(::getpid()) + ".tiktoken");
  std::ofstream(f) << tiktoken_file({"he", "ll", "hell", "hello"});
  const std::string tk = " --tokenizer " + f.string() + " --encoding o200k_base";
  auto r = ocml::test::run("tokens encode" + tk + " -", "hello<|endoftext|>");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "[259,199999]\n");
  r = ocml::test::run("tokens encode --special none" + tk + " -", "hello<|");
  EXPECT_EQ(r.out, "[259,60,124]\n");
  r = ocml::test::run("tokens encode --jsonl" + tk + " -", "\"hello\"\n\"hell\"\n42\n");
  EXPECT_EQ(r.out, "[259]\n[258]\nnull\n");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("line 3"), std::string::npos);
  r = ocml::test::run("tokens decode" + tk + " -", "[259, 199999]");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "hello<|endoftext|>");
  r = ocml::test::run("tokens decode" + tk + " -", "259 999999");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("E-TOKEN-UNKNOWN"), std::string::npos);
  fs::remove(f);
}

}  // namespace
