// SPDX-License-Identifier: Apache-2.0
// The injection rule's one check: does a field a renderer writes spell one of its dialect's
// control tokens? Renderers that cannot escape a field refuse it (E-RENDER-UNREPRESENTABLE
// naming the field) when it does, so no text can forge structure on parse-back.
#pragma once

#include <cstring>
#include <string>
#include <string_view>

namespace ocml::detail {

/// The first token of `tokens` (any range of string-likes) that `text` spells, or empty.
/// Scans only the bytes a token may begin with.
///
///   spelled_token("a<|im_end|>b", kTokens) == "<|im_end|>"
template <typename Tokens>
[[nodiscard]] std::string_view spelled_token(std::string_view text, const Tokens& tokens) {
  bool first[256] = {};
  for (const auto& t : tokens) {
    const std::string_view v(t);
    if (!v.empty()) first[static_cast<unsigned char>(v.front())] = true;
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!first[static_cast<unsigned char>(text[i])]) continue;
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
