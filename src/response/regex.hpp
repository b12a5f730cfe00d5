// SPDX-License-Identifier: Apache-2.0
// A Python-`regex`-compatible pattern on PCRE2: Unicode-aware (UTF + UCP), DOTALL, `(?P<name>…)`
// groups, and partial matching (PCRE2_PARTIAL_HARD) for streaming hold-back.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ocml::resp {

/// One search result: [start, end) of the input, whether it is only a partial match (the
/// input ended inside it), and its named groups that took part.
struct regex_match {
  std::size_t start = 0;
  std::size_t end = 0;
  bool partial = false;
  std::vector<std::pair<std::string, std::string>> groups;
};

enum class search_status : unsigned char { found, none, limit };

class regex {
 public:
  /// Compiles a pattern written for Python's `regex` module. On failure returns nullptr and
  /// sets `error` ("missing closing parenthesis at 7").
  [[nodiscard]] static std::shared_ptr<const regex> compile(std::string_view pattern,
                                                            std::string& error);
  ~regex();
  regex(const regex&) = delete;
  regex& operator=(const regex&) = delete;

  /// Leftmost match in `subject` at or after `from`. With `partial`, a match the end of
  /// `subject` cut short is reported (as partial) where Python's regex would report it.
  [[nodiscard]] search_status search(std::string_view subject, std::size_t from, bool partial,
                                     regex_match& out) const;
  /// The names of the pattern's named groups.
  [[nodiscard]] const std::vector<std::string>& names() const noexcept { return names_; }
  /// True when the pattern can match the empty string.
  [[nodiscard]] bool matches_empty() const noexcept { return empty_; }
  /// The most bytes a match may look at before its start (lookbehinds and \b, at 4 bytes a
  /// character).
  [[nodiscard]] std::size_t lookbehind() const noexcept { return behind_; }

 private:
  regex() = default;
  void* code_ = nullptr;  // pcre2_code_8
  std::vector<std::string> names_;
  std::vector<std::pair<std::string, int>> groups_;
  bool empty_ = false;
  std::size_t behind_ = 0;
};

/// The pattern rewritten for PCRE2: `\Z` → `\z`, `\uXXXX`/`\UXXXXXXXX` → `\x{…}`, `{,n}` →
/// `{0,n}` (exposed for tests).
[[nodiscard]] std::string translate_python_pattern(std::string_view pattern);

}  // namespace ocml::resp
