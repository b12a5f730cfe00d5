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
  int firsts = 0;
  unsigned char only = 0;  // the one byte every token begins with, when there is one
  for (const auto& t : tokens) {
    const std::string_view v(t);
    if (v.empty() || first[static_cast<unsigned char>(v.front())]) continue;
    first[static_cast<unsigned char>(v.front())] = true;
    only = static_cast<unsigned char>(v.front());
    ++firsts;
  }
  const auto at = [&](std::size_t i) -> std::string_view {
    const std::string_view rest = text.substr(i);
    for (const auto& t : tokens) {
      const std::string_view v(t);
      if (!v.empty() && rest.starts_with(v)) return v;
    }
    return {};
  };
  if (firsts == 1) {  // the usual case ('<'): memchr finds the candidates
    for (std::size_t i = text.find(static_cast<char>(only)); i != std::string_view::npos;
         i = text.find(static_cast<char>(only), i + 1)) {
      if (const auto v = at(i); !v.empty()) return v;
    }
    return {};
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!first[static_cast<unsigned char>(text[i])]) continue;
    if (const auto v = at(i); !v.empty()) return v;
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
