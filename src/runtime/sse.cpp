// SPDX-License-Identifier: Apache-2.0
#include "runtime/sse.hpp"

#include <cstring>

namespace ocml::detail {

bool sse_parser::feed(std::string_view bytes) {
  while (!stopped_ && !bytes.empty()) {
    const void* nl = std::memchr(bytes.data(), '\n', bytes.size());
    if (nl == nullptr) {
      partial_.append(bytes);
      if (partial_.size() > max_line) stopped_ = true;
      return !stopped_;
    }
    const auto n = static_cast<std::size_t>(static_cast<const char*>(nl) - bytes.data());
    std::string_view l = bytes.substr(0, n);
    bytes.remove_prefix(n + 1);
    if (!partial_.empty()) {
      partial_.append(l);
      const std::string whole = std::move(partial_);
      partial_.clear();
      if (!line(whole)) stopped_ = true;
    } else if (!line(l)) {
      stopped_ = true;
    }
  }
  return !stopped_;
}

bool sse_parser::line(std::string_view l) {
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  if (l.empty()) {  // the blank line that ends an event
    if (!has_data_) return true;
    has_data_ = false;
    const std::string data = std::move(data_);
    data_.clear();
    return sink_(data);
  }
  if (l.substr(0, 5) != "data:") return true;  // comments, event:, id:, retry:
  l.remove_prefix(5);
  if (!l.empty() && l.front() == ' ') l.remove_prefix(1);
  if (has_data_) data_ += '\n';
  data_.append(l);
  has_data_ = true;
  return true;
}

}  // namespace ocml::detail
