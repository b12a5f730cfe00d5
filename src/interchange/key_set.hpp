// SPDX-License-Identifier: Apache-2.0
// The keys of one JSON object seen so far, for the fast paths that decline an object which
// repeats a key (readers disagree on which one counts).
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <string_view>
#include <vector>

namespace ocml::detail {

/// insert() is false for a key seen before. Objects of up to 16 keys (nearly all) need no
/// allocation; the inline array is written before it is read. The keys' bytes must outlive
/// the set.
class key_set {
 public:
  bool insert(std::string_view k) {
    const key* begin = n_ <= kInline ? small_.data() : large_.data();
    for (const key* p = begin; p != begin + n_; ++p) {
      if (p->size == k.size() && std::memcmp(p->data, k.data(), k.size()) == 0) return false;
    }
    if (n_ < kInline) {
      small_[n_] = {k.data(), k.size()};
    } else {
      if (n_ == kInline) large_.assign(small_.begin(), small_.end());
      large_.push_back({k.data(), k.size()});
    }
    ++n_;
    return true;
  }

 private:
  struct key {
    const char* data;
    std::size_t size;
  };
  static constexpr std::size_t kInline = 16;
  std::array<key, kInline> small_;  // NOLINT(cppcoreguidelines-pro-type-member-init)
  std::vector<key> large_;
  std::size_t n_ = 0;
};

}  // namespace ocml::detail
