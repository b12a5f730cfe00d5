// SPDX-License-Identifier: Apache-2.0
// Helpers for tokenizer tests: GPT-2's byte-level characters, for hand-made tokenizer.json
// vocabularies, and such a vocabulary holding every dialect's control tokens.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ocml/dialect.hpp"
#include "ocml/tokens.hpp"

namespace ocml::test {

/// The character GPT-2's byte-level alphabet writes byte `b` as (UTF-8).
inline std::string byte_char(int b) {
  static const std::vector<std::string> table = [] {
    std::vector<std::string> t(256);
    int extra = 0;
    for (int x = 0; x < 256; ++x) {
      const bool printable = (x >= 33 && x <= 126) || (x >= 161 && x <= 172) || x >= 174;
      const int cp = printable ? x : 256 + extra++;
      std::string s;
      if (cp < 0x80) {
        s.push_back(static_cast<char>(cp));
      } else {
        s.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      }
      t[static_cast<std::size_t>(x)] = s;
    }
    return t;
  }();
  return table[static_cast<std::size_t>(b)];
}

// A byte-level tokenizer.json with every dialect's control tokens as added tokens.
inline nlohmann::json all_dialects_vocab_json() {
  nlohmann::json vocab = nlohmann::json::object();
  for (int b = 0; b < 256; ++b) vocab[ocml::test::byte_char(b)] = b;
  nlohmann::json added = nlohmann::json::array();
  std::vector<std::string> seen;
  int id = 1000;
  for (const auto& d : ocml::dialects()) {
    for (const auto t : d.tokens) {
      if (std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
      seen.emplace_back(t);
      added.push_back({{"id", id++}, {"content", std::string(t)}, {"special", true}});
    }
  }
  return {
      {"normalizer", nullptr},
      {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
      {"added_tokens", added},
      {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", nlohmann::json::array()}}}};
}

inline const ocml::tokenizer& all_dialects_vocab() {
  static const ocml::tokenizer tok =
      *ocml::tokenizer::from_tokenizer_json(all_dialects_vocab_json().dump());
  return tok;
}

}  // namespace ocml::test
