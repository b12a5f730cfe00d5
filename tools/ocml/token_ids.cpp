// SPDX-License-Identifier: Apache-2.0
// Token IDs as `ocml tokens decode` and `render --ids` input read them.
#include "token_ids.hpp"

#include <charconv>

namespace ocml::cli {

result<std::vector<token_id>> read_token_ids(std::string_view text) {
  // One flat JSON array of IDs ([9707, 11]), or IDs separated by white space or commas;
  // anything else ("[9707" without its ']', "[[1]]", a sign, a letter) is an error at its
  // byte, never read around.
  std::vector<token_id> ids;
  const auto bad = [](std::size_t at, const std::string& what) {
    return make_error(error_code::invalid_json, "byte " + std::to_string(at) + ": " + what);
  };
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  std::size_t i = 0;
  while (i < text.size() && space(text[i])) ++i;
  const bool array = i < text.size() && text[i] == '[';
  if (array) ++i;
  bool want_id = true;  // an ID may come next (not right after another without a separator)
  bool closed = false;
  while (i < text.size()) {
    const char c = text[i];
    if (space(c)) {
      ++i;
      if (!array) want_id = true;
      continue;
    }
    if (closed) return bad(i, "text after the array's ']'");
    if (c == ',') {
      if (want_id && (array || ids.empty())) return bad(i, "',' where a token ID belongs");
      want_id = true;
      ++i;
      continue;
    }
    if (c == ']' && array) {
      if (want_id && !ids.empty()) return bad(i, "']' where a token ID belongs");
      closed = true;
      ++i;
      continue;
    }
    if (!want_id) return bad(i, "a token ID must follow a separator");
    token_id id = 0;
    const auto r = std::from_chars(text.data() + i, text.data() + text.size(), id);
    if (r.ec != std::errc{} || c == '-' || c == '+') return bad(i, "not a token ID");
    ids.push_back(id);
    i = static_cast<std::size_t>(r.ptr - text.data());
    want_id = false;
  }
  if (array && !closed) return bad(text.size(), "the array has no ']'");
  return ids;
}

}  // namespace ocml::cli
