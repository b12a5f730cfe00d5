// SPDX-License-Identifier: Apache-2.0
// Where a JSON object ends in a stream, without parsing it: strings, escapes and bracket
// depth are tracked a byte at a time in O(1) state, so a close tag written inside a JSON
// string (`{"a": "</tool_call>"}`) is told from the one that ends the value, at any chunking.
//
//   json_extent x;
//   x.feed("{\"a\": \"</tool");   // x.in_string() == true
//   x.feed("_call>\"}");          // x.complete() == true
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ocml::detail {

class json_extent {
 public:
  enum class state : std::uint8_t {
    before,      ///< Only white space so far.
    object,      ///< Inside the top-level object.
    complete,    ///< The object closed (anything after it is trailing text).
    not_object,  ///< The first non-space byte was not '{'.
  };

  json_extent() = default;
  /// `arrays`: a top-level array is a value too (its state is still `object`).
  explicit json_extent(bool arrays) noexcept : arrays_(arrays) {}

  void reset() noexcept { *this = json_extent{arrays_}; }

  void feed(std::string_view s) noexcept { (void)feed_until_complete(s); }

  /// Feeds `s` up to the byte that completes the value: the bytes read (all of `s` when the
  /// value does not complete in it).
  std::size_t feed_until_complete(std::string_view s) noexcept {
    for (std::size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      switch (st_) {
        case state::before:
          if (c == ' ' || c == '\t' || c == '\n' || c == '\r') break;
          st_ = c == '{' || (arrays_ && c == '[') ? state::object : state::not_object;
          depth_ = 1;
          break;
        case state::object:
          object_byte(c);
          if (st_ == state::complete) return i + 1;
          break;
        case state::complete:
        case state::not_object:
          return i;
      }
    }
    return s.size();
  }

  [[nodiscard]] state current() const noexcept { return st_; }
  [[nodiscard]] bool in_string() const noexcept { return st_ == state::object && string_; }
  [[nodiscard]] bool complete() const noexcept { return st_ == state::complete; }

 private:
  void object_byte(char c) noexcept {
    if (string_) {
      if (escape_) {
        escape_ = false;
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '"') {
        string_ = false;
      }
      return;
    }
    if (c == '"') {
      string_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if ((c == '}' || c == ']') && --depth_ == 0) {
      st_ = state::complete;
    }
  }

  state st_ = state::before;
  std::size_t depth_ = 0;
  bool string_ = false;
  bool escape_ = false;
  bool arrays_ = false;
};

/// The offset of the first '[' or '{' of `text` (JSON or not) that opens nesting deeper than
/// `max_depth`, or npos. Strings and escapes are skipped, so brackets inside them do not
/// count. One pass, no allocation: the guard run before any recursive JSON code (dumps,
/// copies, comparisons) sees a value, so no input can overflow the stack.
///
///   json_too_deep("[[1]]", 1) == 1
[[nodiscard]] inline std::size_t json_too_deep(std::string_view text,
                                               std::size_t max_depth) noexcept {
  std::size_t depth = 0;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char c = *p;
    if (c == '"') {
      for (++p; p < end && *p != '"'; ++p) {
        if (*p == '\\') ++p;
      }
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return static_cast<std::size_t>(p - text.data());
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    ++p;
  }
  return std::string_view::npos;
}

}  // namespace ocml::detail
