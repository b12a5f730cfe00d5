// SPDX-License-Identifier: Apache-2.0
#include "ocml/call_id.hpp"

#include <chrono>
#include <random>
#include <thread>

namespace ocml {

namespace {

// SplitMix64: a bijective mixer, so distinct (seed, index) inputs rarely collide and every
// output bit depends on every input bit.
std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31U);
}

// A per-thread stream of response seeds, seeded once from the OS (no lock, one
// random_device read per thread).
std::uint64_t next_random_seed() {
  thread_local std::uint64_t state = [] {
    std::random_device rd;
    const auto now =
        static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    const auto tid =
        static_cast<std::uint64_t>(std::hash<std::thread::id>{}(std::this_thread::get_id()));
    return (static_cast<std::uint64_t>(rd()) << 32U) ^ rd() ^ mix(now) ^ mix(tid);
  }();
  state = mix(state);
  return state;
}

constexpr char kDigits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

}  // namespace

call_ids::call_ids() : seed_(next_random_seed()) {}

std::string call_ids::operator()(std::size_t index) const {
  std::string id = "call_";
  id.reserve(5 + 24);
  // 24 base-62 digits (about 142 bits), each from its own mix of the response and index.
  const std::uint64_t base = mix(seed_ ^ mix(index));
  for (std::uint64_t k = 0; k < 24; ++k) id.push_back(kDigits[mix(base + k) % 62U]);
  return id;
}

}  // namespace ocml
