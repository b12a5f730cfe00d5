// SPDX-License-Identifier: Apache-2.0
// ocml/call_id.hpp - ids for the tool calls a model wrote without one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace ocml {

/// The ids of one response's tool calls: "call_" and 24 base-62 characters (OpenAI's shape).
/// A call's id depends only on the response and the call's index in it, so every view of one
/// response (its streamed chunks, the folded message) gives a call the same id; two
/// responses get different ids. Random unless a seed is given: a seed makes the ids
/// reproducible (tests, replays).
///
///   ocml::call_ids ids(42);
///   std::string first = ids(0);  // "call_" + 24 characters, the same for every call_ids(42)
///   ocml::call_ids fresh = ocml::call_ids::from(std::nullopt);  // a new random response
class call_ids {
 public:
  /// A new response with random ids.
  call_ids();
  /// Reproducible ids.
  explicit call_ids(std::uint64_t seed) noexcept : seed_(seed) {}
  /// Reproducible when `seed` is set, random otherwise.
  [[nodiscard]] static call_ids from(std::optional<std::uint64_t> seed) {
    return seed ? call_ids(*seed) : call_ids();
  }
  /// The id of the response's call number `index` (from 0).
  [[nodiscard]] std::string operator()(std::size_t index) const;
  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }

 private:
  std::uint64_t seed_;
};

}  // namespace ocml
