// SPDX-License-Identifier: Apache-2.0
// The injection rule's one check: does a field a renderer writes spell one of its dialect's
// control tokens? Renderers that cannot escape a field refuse it (E-RENDER-UNREPRESENTABLE
// naming the field) when it does, so no text can forge structure on parse-back.
#pragma once

#include <cstring>
#include <string>
#include <string_view>

namespace ocml::detail {

/// The bytes some token of a set begins with, and where the next one is in a text: with
/// one such byte (as '<' for every dialect's markup) memchr finds it, else a table does.
class token_starts {
 public:
  template <typename Tokens>
  explicit token_starts(const Tokens& tokens) {
    for (const auto& t : tokens) {
      const std::string_view v(t);
      if (v.empty() || first_[static_cast<unsigned char>(v.front())]) continue;
      first_[static_cast<unsigned char>(v.front())] = true;
      only_ = v.front();
      ++count_;
    }
  }
  /// The first position in [i, e) of `text` a token may begin at, or e.
  [[nodiscard]] std::size_t next(std::string_view text, std::size_t i, std::size_t e) const {
    if (i >= e) return e;  // (memchr is never given an empty range: its pointer may be null)
    if (count_ == 1) {
      const void* p = std::memchr(text.data() + i, only_, e - i);
      return p == nullptr ? e : static_cast<std::size_t>(static_cast<const char*>(p) - text.data());
    }
    while (i < e && !first_[static_cast<unsigned char>(text[i])]) ++i;
    return i;
  }

 private:
  bool first_[256] = {};
  int count_ = 0;
  char only_ = 0;
};

/// The first token of `tokens` (any range of string-likes) that `text` spells, or empty.
/// Scans only the bytes a token may begin with.
///
///   spelled_token("a<|im_end|>b", kTokens) == "<|im_end|>"
template <typename Tokens>
[[nodiscard]] std::string_view spelled_token(std::string_view text, const Tokens& tokens) {
  const token_starts starts(tokens);
  for (std::size_t i = starts.next(text, 0, text.size()); i < text.size();
       i = starts.next(text, i + 1, text.size())) {
    const std::string_view rest = text.substr(i);
    for (const auto& t : tokens) {
      const std::string_view v(t);
      if (!v.empty() && rest.starts_with(v)) return v;
    }
  }
  return {};
}

/// "FIELD holds 'TOKEN', which DIALECT cannot escape": the refusal's text.
[[nodiscard]] inline std::string forged_field(std::string_view field, std::string_view token,
                                              std::string_view dialect) {
  std::string s(field);
  s += " holds '";
  s += token;
  s += "', which ";
  s += dialect;
  s += " cannot escape";
  return s;
}

}  // namespace ocml::detail
