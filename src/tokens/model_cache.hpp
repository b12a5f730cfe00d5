// SPDX-License-Identifier: Apache-2.0
// The tokenizer cache: a loaded tokenizer.json's tables (vocabulary bytes and spellings,
// the bytes index, the merges, Unigram's scores and trie) in one file named by the source's
// hash, so that loading the same file again reads them instead of building them
// (decision 106). A cache file is never trusted: its header, the source's key, a hash of
// its payload and every index in its tables are checked, and anything wrong makes it a
// miss (the source is loaded as if there were no cache).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tokens/model.hpp"

namespace ocml::detail {

/// What names a source: its size and a 128-bit hash of its bytes (XXH3).
struct source_key {
  std::uint64_t size = 0;
  std::uint64_t low = 0;
  std::uint64_t high = 0;
  friend bool operator==(const source_key&, const source_key&) = default;
};

[[nodiscard]] source_key key_of_source(std::string_view text) noexcept;
/// The key of what is left to read of `fd`, read in 1 MiB pieces (no copy of the file is
/// held); nullopt when reading fails or the file holds more than `max_bytes`.
[[nodiscard]] std::optional<source_key> key_of_file(int fd, std::uint64_t max_bytes);

/// "tokenizer-<32 hex digits>.ocmltok": the file name of `key`'s cache.
[[nodiscard]] std::string cache_file_name(const source_key& key);

/// The bytes of the cache file of `m`, loaded from the tokenizer.json `text`: a header
/// (magic, format, the source's key, the payload's size and hash), then the payload: the
/// source's configuration (it without model.vocab and model.merges) and the tables.
/// Empty when `text` does not parse (it always does once `m` loaded from it).
[[nodiscard]] std::string write_model_cache(const bpe_model& m, std::string_view text);

/// The model the cache file open as `fd` holds for the source `key` (read straight into its
/// tables), or null when it is not such a file: another magic, format or key, another
/// size, a payload whose hash differs, a table index out of bounds, or a configuration the
/// loader refuses.
[[nodiscard]] std::shared_ptr<bpe_model> read_model_cache(int fd, const source_key& key);

}  // namespace ocml::detail
