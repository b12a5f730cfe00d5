// SPDX-License-Identifier: Apache-2.0
// ocml/text_buffer.hpp - a growing output buffer that JSON-escapes as it is written: what
// render_json_line fills, so a batch writes its lines with no copy and no zero-fill.
//
//   ocml::text_buffer line;
//   line.raw("{\"text\":\"");
//   line.escape("a \"quoted\" word\n");
//   line.raw("\"}");  // line.view() == R"({"text":"a \"quoted\" word\n"})"
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace ocml {

/// Bytes appended raw or escaped as the inside of a JSON string (valid UTF-8 in; 16 bytes
/// a step). Its storage is kept across clear(), so a reused buffer allocates once.
class text_buffer {
 public:
  void clear() noexcept { used_ = 0; }
  [[nodiscard]] std::size_t size() const noexcept { return used_; }
  void truncate(std::size_t n) noexcept { used_ = n < used_ ? n : used_; }
  [[nodiscard]] std::string_view view() const noexcept { return {buf_.get(), used_}; }

  /// Appends bytes that need no escaping (JSON structure, digits).
  void raw(std::string_view s) {
    std::memcpy(room(s.size()), s.data(), s.size());
    used_ += s.size();
  }
  void raw(char c) {
    *room(1) = c;
    ++used_;
  }
  /// Appends valid UTF-8 escaped as the inside of a JSON string.
  void escape(std::string_view s);
  /// Appends `s` escaped twice: the inside of a JSON string that holds a JSON string.
  void escape_twice(std::string_view s);

 private:
  // At least n writable bytes at the end.
  char* room(std::size_t n) {
    if (buf_ == nullptr || capacity_ - used_ < n) grow(n);  // never null after this
    return buf_.get() + used_;
  }
  void grow(std::size_t n);
  bool plain(std::string_view s);  // a short string with nothing to escape, copied
  void escape_with(const void* table, std::string_view s);

  std::unique_ptr<char[]> buf_;  // capacity_ bytes, never zero-filled; used_ of them hold text
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
};

}  // namespace ocml
