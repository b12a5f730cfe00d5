// SPDX-License-Identifier: Apache-2.0
// Text for comparing tokenizers with their references: a seeded corpus of documents (prose,
// code, JSON, CJK, emoji, marks, digits of many scripts, every kind of white space,
// contractions in every case) and a sweep of every Unicode scalar value in the contexts the
// pre-tokenizer patterns tell apart (after a letter, a space, a digit, an apostrophe, alone
// and doubled).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/utf8.hpp"

namespace ocml::test {

/// Appends the UTF-8 of `cp` to `out`.
inline void put_utf8(std::string& out, std::uint32_t cp) {
  detail::append_utf8(out, cp);
}

/// Documents of about `bytes` bytes in all, from `seed`.
inline std::vector<std::string> token_corpus(std::size_t bytes, std::uint32_t seed) {
  static const std::vector<std::string> pieces = {
      "The quick brown fox jumps over the lazy dog. ",
      "It's, we'd, they'll, I'M, YOU'RE, She'S, he'Ll, we'VE, DON'T, o'clock, rock'n'roll ",
      "naïve café résumé Ångström Ærø straße ſ 'ſ ",
      "def f(x):\n    return {\"a\": [1, 2.5, -3e10], 'b': None}  # comment\n",
      "for (int i = 0; i < n; ++i) { sum += a[i] * b[i]; }\n",
      "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"東京\", \"unit\": \"°C\"}}",
      "日本語のテキストです。中文文本，韩国어 한국어 텍스트입니다. ",
      "Русский текст, Ελληνικά, עברית, العربية ١٢٣٤٥, हिन्दी ०१२३, ไทย ",
      "emoji 😀🎉👩‍👩‍👧‍👦 🇯🇵 ❤️ 👍🏽 ",
      "e\u0301 a\u0308 n\u0303 \u0915\u094d\u0937 combining ",
      "123 4567 89012345 ０１２３ 1,000,000.00 3.14159 ",
      "\t\ttabs\t and   spaces   \n\n\nnewlines\r\n\r\nCRLF \u00a0nbsp\u2003em\u3000ideo ",
      "\u2028line\u2029para\u0085nel\u000bvt\u000cff \u180e mongolian \u200bzwsp \ufeffbom ",
      "!!! ??? ... --- *** /// \\\\ ||| <<< >>> @@@ ### $$$ %%% ^^^ &&& ",
      "https://example.com/path/to/file?query=1&x=y#frag ",
      "<|start|>user<|message|>hi<|end|> <|im_start|>assistant\n<think>\n",
      "   leading spaces",
      "trailing spaces   ",
      "\n",
      " ",
      "  ",
      "\n\n",
      "'",
      "'s",
      "' s",
      "ABCdefGHI jklMNO ǅungla ǈ ǋ ᾈ ",
      "\U00010D50\U00010D70 garay \U000105C0 todhri \U00011BC0 sunuwar ",
      "private \ue000\U000F0000 unassigned \U0003FFFD \U000E0100 ",
  };
  std::mt19937 rng(seed);
  std::vector<std::string> docs;
  std::size_t total = 0;
  while (total < bytes) {
    std::string d;
    const int n = std::uniform_int_distribution<int>(1, 40)(rng);
    for (int i = 0; i < n; ++i) {
      d += pieces[std::uniform_int_distribution<std::size_t>(0, pieces.size() - 1)(rng)];
    }
    total += d.size();
    docs.push_back(std::move(d));
  }
  return docs;
}

/// Single pre-tokens longer than the short-piece merge handles (65 bytes to 8 KiB: longer
/// would take the tiktoken reference seconds, being quadratic): random letters, one letter,
/// CJK, punctuation, spaces. They go through the long-piece merge and its pair cache.
inline std::vector<std::string> long_pieces(std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  const auto random_run = [&](std::string_view alphabet, std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s.push_back(alphabet[rng() % alphabet.size()]);
    return s;
  };
  for (const std::size_t n : {65, 66, 100, 257, 1000, 4096, 8192}) {
    out.push_back(random_run("abcdefghijklmnopqrstuvwxyz", n));
    out.push_back(" " + random_run("etaoinshr", n));
    out.push_back(random_run("!?.,;:-*/#", n));
  }
  out.emplace_back(5000, 'a');
  out.emplace_back(4000, ' ');
  std::string cjk;
  for (int i = 0; i < 2000; ++i) put_utf8(cjk, 0x4E00 + rng() % 64);
  out.push_back(cjk);
  return out;
}

/// Every Unicode scalar value in a few contexts, `per_line` code points a line.
inline std::vector<std::string> code_point_sweep(std::size_t per_line = 256) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t count = 0;
  for (std::uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    line += 'a';
    put_utf8(line, cp);
    line += ' ';
    put_utf8(line, cp);
    put_utf8(line, cp);
    line += "1";
    put_utf8(line, cp);
    line += "'s ";
    if (++count % per_line == 0) {
      lines.push_back(std::move(line));
      line.clear();
    }
  }
  if (!line.empty()) lines.push_back(std::move(line));
  return lines;
}

}  // namespace ocml::test
