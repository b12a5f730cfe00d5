// Helpers for tokenizer tests: GPT-2's byte-level characters, for hand-made tokenizer.json
// vocabularies.
#pragma once

#include <string>
#include <vector>

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

}  // namespace ocml::test
