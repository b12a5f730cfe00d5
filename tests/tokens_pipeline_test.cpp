// SPDX-License-Identifier: Apache-2.0
// The general tokenizer.json pipeline on hand-made inputs: Unicode normalization (UAX #15
// over the Unicode 9.0 tables), Hugging Face's split behaviours, Metaspace, Digits, and a
// SentencePiece-style BPE (character symbols, byte fallback, unk fusing, Strip decoder).
// The real files are compared with the reference in tokens_families_test.cpp.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "ocml/json.hpp"
#include "ocml/tokens.hpp"
#include "tokens/normalize.hpp"
#include "tokens/split.hpp"

namespace {

using ocml::json;
using ocml::detail::normalize_unicode;
using ocml::detail::unicode_form;

std::string norm(unicode_form f, const std::string& s) {
  std::string out;
  return normalize_unicode(f, s, out) ? out : s;
}

TEST(Normalize, ComposesDecomposesAndOrdersMarks) {
  EXPECT_EQ(norm(unicode_form::nfc, "e\xCC\x81"), "\xC3\xA9");         // e + acute -> é
  EXPECT_EQ(norm(unicode_form::nfd, "\xC3\xA9"), "e\xCC\x81");         // é -> e + acute
  EXPECT_EQ(norm(unicode_form::nfkc, "\xEF\xAC\x81"), "fi");           // the ﬁ ligature
  EXPECT_EQ(norm(unicode_form::nfc, "\xEF\xAC\x81"), "\xEF\xAC\x81");  // compatibility only
  EXPECT_EQ(norm(unicode_form::nfkd, "\xE2\x91\xA0"), "1");            // circled one
  // Marks out of canonical order: dot below (220) sorts before acute (230), and the acute
  // still composes with the e across the dot below, which composes first.
  EXPECT_EQ(norm(unicode_form::nfd, "e\xCC\x81\xCC\xA3"), "e\xCC\xA3\xCC\x81");
  EXPECT_EQ(norm(unicode_form::nfc, "e\xCC\x81\xCC\xA3"), "\xE1\xBA\xB9\xCC\x81");
  // Hangul: 가 = ᄀ + ᅡ; 각 = 가 + ᆨ (arithmetic, both ways).
  EXPECT_EQ(norm(unicode_form::nfc, "\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8"), "\xEA\xB0\x81");
  EXPECT_EQ(norm(unicode_form::nfd, "\xEA\xB0\x81"), "\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8");
  // Already normalized text is reported as such (nothing written).
  std::string out = "untouched";
  EXPECT_FALSE(normalize_unicode(unicode_form::nfc, "plain \xC3\xA9t\xC3\xA9", out));
  EXPECT_EQ(out, "untouched");
}

TEST(Normalize, FollowsUnicode9AsTheReferenceDoes) {
  // U+1DF6 (Unicode 10, class 232) is unassigned in 9.0: class 0, so it is not moved
  // after U+0316 (class 220), as Hugging Face tokenizers leaves it (docs/tokens.md).
  const std::string s = "a\xE1\xB7\xB6\xCC\x96";
  EXPECT_EQ(norm(unicode_form::nfd, s), s);
  // U+1E944 (Adlam, Unicode 9, class 230) is moved.
  EXPECT_EQ(norm(unicode_form::nfd, "a\xF0\x9E\xA5\x84\xCC\x96"), "a\xCC\x96\xF0\x9E\xA5\x84");
}

TEST(Normalize, ALongRunOfMarksIsSortedStably) {
  std::string s = "a";
  for (int i = 0; i < 100000; ++i) s += i % 2 == 0 ? "\xCC\x81" : "\xCC\x96";  // 230, 220
  std::string want = "a";
  for (int i = 0; i < 50000; ++i) want += "\xCC\x96";
  for (int i = 0; i < 50000; ++i) want += "\xCC\x81";
  EXPECT_EQ(norm(unicode_form::nfd, s), want);
}

TEST(Normalize, IllFormedBytesPassThroughAndBlockComposition) {
  const std::string s = "e\xFF\xCC\x81 \x80";
  EXPECT_EQ(norm(unicode_form::nfc, s), s);
  EXPECT_EQ(norm(unicode_form::nfc,
                 "\xFF"
                 "e\xCC\x81"),
            "\xFF\xC3\xA9");
}

// Lowercase as Rust's char::to_lowercase: full mappings, no final sigma, bytes that are not
// UTF-8 kept.
TEST(Normalize, LowercaseMapsEachCodePointAlone) {
  std::string out;
  ASSERT_TRUE(ocml::detail::lowercase("HeLLo \xCE\xA3\xCE\x91\xCE\xA3 \xC4\xB0 \xC7\x84\xFF", out));
  // σασ (the last Σ is σ too: no final-sigma rule), i + U+0307, ǆ, the stray byte as it was
  EXPECT_EQ(out, "hello \xCF\x83\xCE\xB1\xCF\x83 i\xCC\x87 \xC7\x86\xFF");
  EXPECT_FALSE(ocml::detail::lowercase("already lower \xCF\x83 123", out));
  ASSERT_TRUE(ocml::detail::lowercase("\xF0\x90\x90\x80x", out));  // U+10400 DESERET
  EXPECT_EQ(out, "\xF0\x90\x90\xA8x");
}

std::vector<std::string> pieces(const std::vector<ocml::detail::pre_step>& steps,
                                const std::string& text, bool origin = true) {
  ocml::detail::piece_list out;
  ocml::detail::pre_tokenize(steps, text, origin, out);
  std::vector<std::string> v;
  std::size_t b = 0;
  for (const auto e : out.ends) {
    v.push_back(out.text.substr(b, e - b));
    b = e;
  }
  return v;
}

using ocml::detail::pre_step;
using ocml::detail::split_behavior;
using V = std::vector<std::string>;

pre_step literal(const char* s, split_behavior b, bool invert = false) {
  pre_step p;
  p.what = pre_step::kind::literal;
  p.literal = s;
  p.behavior = b;
  p.invert = invert;
  return p;
}

TEST(Split, EveryBehaviourFoldsAsHuggingFace) {
  const std::string t = "a-b--c";
  EXPECT_EQ(pieces({literal("-", split_behavior::removed)}, t), (V{"a", "b", "c"}));
  EXPECT_EQ(pieces({literal("-", split_behavior::isolated)}, t), (V{"a", "-", "b", "-", "-", "c"}));
  EXPECT_EQ(pieces({literal("-", split_behavior::merged_with_previous)}, t),
            (V{"a-", "b-", "-", "c"}));
  EXPECT_EQ(pieces({literal("-", split_behavior::merged_with_next)}, t), (V{"a", "-b", "-", "-c"}));
  EXPECT_EQ(pieces({literal("-", split_behavior::contiguous)}, t), (V{"a", "-", "b", "--", "c"}));
  EXPECT_EQ(pieces({literal("-", split_behavior::removed, true)}, t), (V{"-", "-", "-"}));
}

TEST(Split, RegexDigitsAndSequences) {
  auto re = ocml::detail::split_regex::compile("\\p{N}{1,3}");
  ASSERT_TRUE(re);
  pre_step r;
  r.what = pre_step::kind::regex;
  r.re = *re;
  EXPECT_EQ(pieces({r}, "ab12345c\xD9\xA1"), (V{"ab", "123", "45", "c", "\xD9\xA1"}));
  pre_step d;
  d.what = pre_step::kind::digits;
  d.behavior = split_behavior::isolated;
  EXPECT_EQ(pieces({d}, "x12y"), (V{"x", "1", "2", "y"}));
  d.behavior = split_behavior::contiguous;
  EXPECT_EQ(pieces({d}, "x12y"), (V{"x", "12", "y"}));
  // A sequence refines each piece on its own: the second step never sees across pieces.
  EXPECT_EQ(pieces({literal("|", split_behavior::removed), d}, "a1|2b"), (V{"a", "1", "2", "b"}));
}

TEST(Split, HostileRegexesAreBoundedBeforeTheyCostMemory) {
  auto long_one = ocml::detail::split_regex::compile(std::string(70000, 'a'));
  ASSERT_FALSE(long_one);
  EXPECT_EQ(long_one.error().code, ocml::error_code::limit_exceeded);
  std::string classes;
  for (int i = 0; i < 600; ++i) classes += "\\p{L}";  // about 9 KB each once spelled
  auto spelled = ocml::detail::split_regex::compile(classes);
  ASSERT_FALSE(spelled);
  EXPECT_EQ(spelled.error().code, ocml::error_code::limit_exceeded);
  // A few classes are fine, and mean Unicode 16's letters: U+10570 (Vithkuqi, Unicode 14)
  // and U+105C0 (Todhri, Unicode 16) are both letters.
  auto ok = ocml::detail::split_regex::compile("\\p{L}+");
  ASSERT_TRUE(ok);
  const std::string text = "1\xF0\x90\x97\x80\xF0\x90\x95\xB0 ";
  EXPECT_EQ((*ok)->find(text, 0), (std::pair<std::size_t, std::size_t>{1, 9}));
}

TEST(Split, AnEmptyMatchWhereTheLastMatchEndedIsSkipped) {
  auto re = ocml::detail::split_regex::compile("a*");
  ASSERT_TRUE(re);
  pre_step r;
  r.what = pre_step::kind::regex;
  r.re = *re;
  r.behavior = split_behavior::merged_with_next;
  EXPECT_EQ(pieces({r}, "ab"), (V{"ab"}));  // as rust-onig's find_iter iterates
}

TEST(Split, MetaspacePrependsOnlyAtTheOriginWithSchemeFirst) {
  pre_step m;
  m.what = pre_step::kind::metaspace;
  m.literal = "\xE2\x96\x81";
  m.scheme = pre_step::prepend::first;
  EXPECT_EQ(pieces({m}, "hi there", true), (V{"\xE2\x96\x81hi", "\xE2\x96\x81there"}));
  EXPECT_EQ(pieces({m}, "hi there", false), (V{"hi", "\xE2\x96\x81there"}));
  m.scheme = pre_step::prepend::always;
  EXPECT_EQ(pieces({m}, "hi", false), (V{"\xE2\x96\x81hi"}));
  // Spaces are replaced before the prefix is considered: " hi" is "▁hi", not "▁▁hi".
  EXPECT_EQ(pieces({m}, " hi", false), (V{"\xE2\x96\x81hi"}));
  m.split = false;
  EXPECT_EQ(pieces({m}, "a b", true), (V{"\xE2\x96\x81"
                                         "a\xE2\x96\x81"
                                         "b"}));
}

// A SentencePiece-style tokenizer.json: <unk>, <s>, </s>, the 256 byte tokens, characters
// and merges that spell "▁hello".
json sentencepiece_json(bool byte_fallback) {
  json vocab = json::object();
  vocab["<unk>"] = 0;
  vocab["<s>"] = 1;
  vocab["</s>"] = 2;
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    vocab[name] = 3 + b;
  }
  int id = 259;
  for (const char* t : {"\xE2\x96\x81", "h", "e", "l", "o", "\xE2\x96\x81h", "\xE2\x96\x81he", "ll",
                        "llo", "\xE2\x96\x81hello"}) {
    vocab[t] = id++;
  }
  json merges =
      json::array({"\xE2\x96\x81 h", "\xE2\x96\x81h e", "l l", "ll o", "\xE2\x96\x81he llo"});
  return {
      {"model",
       {{"type", "BPE"},
        {"vocab", vocab},
        {"merges", merges},
        {"byte_fallback", byte_fallback},
        {"fuse_unk", true},
        {"unk_token", "<unk>"}}},
      {"normalizer",
       {{"type", "Sequence"},
        {"normalizers", json::array({{{"type", "Prepend"}, {"prepend", "\xE2\x96\x81"}},
                                     {{"type", "Replace"},
                                      {"pattern", {{"String", " "}}},
                                      {"content", "\xE2\x96\x81"}}})}}},
      {"pre_tokenizer", nullptr},
      {"decoder",
       {{"type", "Sequence"},
        {"decoders",
         json::array(
             {{{"type", "Replace"}, {"pattern", {{"String", "\xE2\x96\x81"}}}, {"content", " "}},
              {{"type", "ByteFallback"}},
              {{"type", "Fuse"}},
              {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}})}}},
      {"added_tokens", json::array({{{"id", 1}, {"content", "<s>"}, {"special", true}},
                                    {{"id", 2}, {"content", "</s>"}, {"special", true}}})},
  };
}

TEST(SentencePieceBpe, CharactersMergeBytesFallBackAndDecodeStripsTheLeadingSpace) {
  auto t = ocml::tokenizer::from_tokenizer_json(sentencepiece_json(true).dump());
  ASSERT_TRUE(t) << t.error().to_string();
  using ids = std::vector<ocml::token_id>;
  EXPECT_EQ(t->encode_ordinary("hello"), (ids{268}));
  // U+2603 is not in the vocabulary: its three bytes' tokens.
  EXPECT_EQ(t->encode_ordinary("hello \xE2\x98\x83"),
            (ids{268, 259, 3 + 0xE2, 3 + 0x98, 3 + 0x83}));
  // Each text segment between added tokens gets its own prepended ▁.
  EXPECT_EQ(t->encode("<s>hello</s>", ocml::special_tokens::all), (ids{1, 268, 2}));
  auto text = t->decode(ids{268, 259, 3 + 0xE2, 3 + 0x98, 3 + 0x83});
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, "hello \xE2\x98\x83");
  EXPECT_EQ(t->token_bytes(268), " hello");
  // Streaming decodes the first token as decode() does: its leading space stripped.
  ocml::token_text_decoder d(*t);
  std::string streamed = d.push(268);
  streamed += d.push(259);
  streamed += d.push(260);
  streamed += d.finish();
  EXPECT_EQ(streamed, "hello h");
}

TEST(SentencePieceBpe, MemoizedIdsEqualFreshOnesAtTheOriginAndAfterASpecialToken) {
  json j = sentencepiece_json(true);
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = {{"type", "Metaspace"},
                        {"replacement", "\xE2\x96\x81"},
                        {"prepend_scheme", "first"},
                        {"split", true}};
  auto t = ocml::tokenizer::from_tokenizer_json(j.dump());
  ASSERT_TRUE(t) << t.error().to_string();
  std::string text;
  for (int i = 0; i < 20; ++i) text += "hello ";  // 120 bytes: memoized
  const auto all = ocml::special_tokens::all;
  // The origin matters: "▁hello" there, "hello" after <s>. A memo keyed by bytes alone
  // would answer one with the other.
  const auto alone = t->encode(text, all);
  const auto after = t->encode("<s>" + text, all);
  ASSERT_FALSE(alone.empty());
  ASSERT_FALSE(after.empty());
  EXPECT_NE(alone, std::vector<ocml::token_id>(after.begin() + 1, after.end()));
  for (const std::string& s : {text, "<s>" + text, text + "</s>" + text, text, "<s>" + text}) {
    const auto fresh = t->encode(s, all);
    for (int round = 0; round < 2; ++round) {
      std::vector<ocml::token_id> got;
      t->append(s, got, {.specials = all, .memoize = true});
      EXPECT_EQ(got, fresh) << s.substr(0, 12) << " round " << round;
    }
  }
}

TEST(SentencePieceBpe, APairListedTwiceTakesItsLastRank) {
  // "a b" is listed first and last: the reference's map of merges keeps the last rank, so
  // "b c" (rank 1) merges before "a b" (rank 2) in "abc".
  const json j = {
      {"model",
       {{"type", "BPE"},
        {"vocab", {{"<unk>", 0}, {"a", 1}, {"b", 2}, {"c", 3}, {"ab", 4}, {"bc", 5}}},
        {"merges", json::array({"a b", "b c", "a b"})},
        {"unk_token", "<unk>"}}},
      {"decoder", {{"type", "Fuse"}}},
  };
  auto t = ocml::tokenizer::from_tokenizer_json(j.dump());
  ASSERT_TRUE(t) << t.error().to_string();
  EXPECT_EQ(t->encode_ordinary("abc"), (std::vector<ocml::token_id>{1, 5}));
}

TEST(SentencePieceBpe, UnknownCharactersFuseIntoOneUnk) {
  auto t = ocml::tokenizer::from_tokenizer_json(sentencepiece_json(false).dump());
  ASSERT_TRUE(t) << t.error().to_string();
  EXPECT_EQ(t->encode_ordinary("\xE2\x98\x83\xE2\x98\x83h"),
            (std::vector<ocml::token_id>{259, 0, 260}));
}

}  // namespace
