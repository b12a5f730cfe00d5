// SPDX-License-Identifier: Apache-2.0
#include "interchange/json_path.hpp"

#include <cctype>

namespace ocml::detail {

namespace {

class walker {
 public:
  explicit walker(std::string_view t) : t_(t) {}
  void ws() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r'))
      ++i_;
  }
  [[nodiscard]] bool at(char c) {
    ws();
    return i_ < t_.size() && t_[i_] == c;
  }
  [[nodiscard]] std::size_t pos() const { return i_; }
  // Past the string at i_ (which is '"'); its raw text between the quotes.
  std::string_view string() {
    const std::size_t b = ++i_;
    while (i_ < t_.size() && t_[i_] != '"') i_ += t_[i_] == '\\' ? 2 : 1;
    const std::string_view s = t_.substr(b, std::min(i_, t_.size()) - b);
    ++i_;
    return s;
  }
  // Past one value (any nesting); false on malformed text.
  bool skip() {
    ws();
    if (i_ >= t_.size()) return false;
    if (t_[i_] == '"') {
      (void)string();
      return true;
    }
    if (t_[i_] == '[' || t_[i_] == '{') {
      std::size_t depth = 0;
      while (i_ < t_.size()) {
        const char c = t_[i_];
        if (c == '"') {
          (void)string();
          continue;
        }
        if (c == '[' || c == '{') ++depth;
        if ((c == ']' || c == '}') && --depth == 0) {
          ++i_;
          return true;
        }
        ++i_;
      }
      return false;
    }
    while (i_ < t_.size() && t_[i_] != ',' && t_[i_] != ']' && t_[i_] != '}' && t_[i_] != ' ' &&
           t_[i_] != '\n' && t_[i_] != '\t' && t_[i_] != '\r') {
      ++i_;
    }
    return true;
  }
  // Into the member `key` of the object at i_; false when it has none.
  bool member(std::string_view key) {
    if (!at('{')) return false;
    ++i_;
    for (;;) {
      if (!at('"')) return false;
      const std::string_view k = string();
      if (!at(':')) return false;
      ++i_;
      ws();
      if (k == key) return true;
      if (!skip()) return false;
      if (!at(',')) return false;
      ++i_;
    }
  }
  // Into element `n` of the array at i_; false when it has fewer.
  bool element(std::size_t n) {
    if (!at('[')) return false;
    ++i_;
    for (std::size_t k = 0;; ++k) {
      ws();
      if (at(']')) return false;
      if (k == n) return true;
      if (!skip()) return false;
      if (!at(',')) return false;
      ++i_;
    }
  }

 private:
  std::string_view t_;
  std::size_t i_ = 0;
};

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
}

}  // namespace

std::optional<std::size_t> json_path_offset(std::string_view text, std::string_view path) {
  walker w(text);
  std::size_t i = 0;
  bool first = true;
  while (i < path.size()) {
    if (path[i] == '[') {
      std::size_t n = 0;
      for (++i; i < path.size() && std::isdigit(static_cast<unsigned char>(path[i])) != 0; ++i) {
        n = n * 10 + static_cast<std::size_t>(path[i] - '0');
      }
      if (i >= path.size() || path[i] != ']') return std::nullopt;
      ++i;
      if (!w.element(n)) return std::nullopt;
    } else {
      if (path[i] == '.') ++i;
      const std::size_t b = i;
      while (i < path.size() && name_char(path[i])) ++i;
      const std::string_view key = path.substr(b, i - b);
      if (key.empty()) return std::nullopt;
      // A bare array of messages stands for {"messages": [...]}.
      const bool bare = first && key == "messages" && w.at('[');
      if (!bare && !w.member(key)) return std::nullopt;
    }
    first = false;
  }
  w.ws();
  return w.pos();
}

std::string_view leading_json_path(std::string_view message) {
  std::size_t i = 0;
  while (i < message.size() &&
         (name_char(message[i]) || message[i] == '.' || message[i] == '[' || message[i] == ']')) {
    ++i;
  }
  std::string_view p = message.substr(0, i);
  while (!p.empty() && p.back() == '.') p.remove_suffix(1);
  return p.find('[') == std::string_view::npos && p.find('.') == std::string_view::npos
             ? std::string_view{}
             : p;
}

}  // namespace ocml::detail
