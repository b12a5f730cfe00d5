// SPDX-License-Identifier: Apache-2.0
// The loaded form of a byte-level BPE tokenizer, shared (read-only) by every encode.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokens/normalize.hpp"
#include "tokens/pretokenize.hpp"
#include "tokens/split.hpp"

namespace ocml::detail {

using token_id = std::uint32_t;
inline constexpr token_id kNoToken = 0xFFFFFFFFu;
/// Bytes past the last token in the arena, so that decoding may copy 16 bytes at a time.
inline constexpr std::size_t kArenaPadding = 16;

/// Open-addressing map from 64-bit keys to 64-bit values, 16 bytes a slot (no deletion).
/// The key ~0 is stored as ~0 - 1 (callers' keys never need both: pair keys hold IDs below
/// 2^32 - 1, and hash keys are checked against the bytes they stand for).
class u64_map {
 public:
  void reserve(std::size_t n);
  void insert(std::uint64_t key, std::uint64_t value);
  /// As insert, but a key already there takes the new value.
  void assign(std::uint64_t key, std::uint64_t value);
  [[nodiscard]] std::optional<std::uint64_t> find(std::uint64_t key) const noexcept {
    if (slots_.empty()) return std::nullopt;
    key = key == kEmpty ? kEmpty - 1 : key;
    for (std::size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
      const slot& s = slots_[i];
      if (s.key == key) return s.value;
      if (s.key == kEmpty) return std::nullopt;
    }
  }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  struct slot {
    std::uint64_t key = kEmpty;
    std::uint64_t value = 0;
  };
  /// The table as it stands (the tokenizer cache writes it).
  [[nodiscard]] const std::vector<slot>& slots() const noexcept { return slots_; }
  /// Takes `slots` as the table (the tokenizer cache reads it): false, and the map left
  /// as it was, unless their number is 0 or a power of two with at least one empty slot
  /// (a lookup stops at one). `valid(value)` checks each stored value.
  template <typename Check>
  [[nodiscard]] bool adopt(std::vector<slot>&& slots, Check valid) {
    const std::size_t n = slots.size();
    if (n != 0 && (n & (n - 1)) != 0) return false;
    std::size_t used = 0;
    for (const slot& s : slots) {
      if (s.key == kEmpty) continue;
      if (!valid(s.key, s.value)) return false;
      ++used;
    }
    if (n != 0 && used == n) return false;
    slots_ = std::move(slots);
    mask_ = n == 0 ? 0 : n - 1;
    size_ = used;
    return true;
  }

  static std::uint64_t hash(std::uint64_t k) noexcept {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
  }

 private:
  void put(std::uint64_t key, std::uint64_t value, bool overwrite);
  std::vector<slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

/// 64-bit hash of bytes (for the bytes -> id map and the piece cache).
[[nodiscard]] std::uint64_t hash_bytes(std::string_view s) noexcept;

/// An added token (Hugging Face) or a special token (tiktoken): matched in text before
/// pre-tokenizing, always one ID.
struct added_token {
  std::string text;
  token_id id = 0;
  bool special = true;  ///< false: an added token that is not special (Qwen's <think>)
};

struct bpe_model {
  /// Bytes of every ID (ordinary and added), one arena; `spans[id]` = {offset, length}.
  std::string arena;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> spans;
  /// Ordinary vocabulary, bytes -> ID: open addressing, 8 bytes a slot (the hash's high
  /// half and the ID; ~0 empty), bytes compared on a tag match. Small enough to stay in
  /// cache where a map of strings would not (BPE looks up every candidate pair).
  std::vector<std::uint64_t> by_bytes;
  std::uint64_t by_bytes_mask = 0;
  /// Merges: (left << 32 | right) -> (rank << 32 | merged ID). Unused when rank_by_bytes.
  u64_map merges;
  /// tiktoken's rule: two adjacent parts merge when their bytes together are a token,
  /// ranked by that token's ID (a .tiktoken file has ranks, not merges).
  bool rank_by_bytes = false;
  std::array<token_id, 256> byte_token{};  ///< the ID of each single byte
  pretokenizer pre = pretokenizer::o200k;
  bool whole_piece_first = false;  ///< tiktoken, and tokenizer.json's ignore_merges
  /// The general pipeline (any normalizer and pre-tokenizer of tokenizer.json); false: the
  /// fast one, `pre` scanned by hand over the text as it is.
  bool general = false;
  std::vector<normalizer_step> normalizers;
  std::vector<pre_step> pre_steps;
  /// Symbols before merging are characters, looked up by the vocabulary's own spelling
  /// (`keys`), not bytes (SentencePiece-style BPE: Llama 2, Gemma, Mistral v1…).
  bool char_level = false;
  bool byte_fallback = false;  ///< a character the vocabulary lacks becomes <0xNN> tokens
  /// char_level: a piece may be cut before each "▁" that follows a character no merge
  /// joins to a following "▁" (one not in `word_joiners`), and its words merged (and
  /// cached) one by one, with the same result as merging it whole: a token across the cut
  /// would hold that character and "▁" together.
  bool split_at_words = false;
  std::vector<std::uint32_t> word_joiners;  ///< sorted code points
  bool fuse_unk = false;                    ///< adjacent unknown characters are one unk token
  /// A Unigram model (char_level): pieces are cut by score (encode_unigram), not merged.
  bool unigram = false;
  std::vector<double> scores;  ///< Unigram: by ID, each entry's log probability
  double unk_score = 0;        ///< Unigram: an unknown character's (the lowest score - 10)
  /// Unigram: the entries' spellings as a trie, (node << 8 | byte) -> child node (the root
  /// is 0), and by node the entry it spells, or kNoToken: the entries a place begins are
  /// found in one walk as deep as the longest of them (build_unigram_trie).
  u64_map trie;
  std::vector<token_id> trie_token;
  token_id unk = kNoToken;  ///< the unk token, if any
  /// char_level: the vocabulary's spellings (spans as `spans`), for lookups while merging;
  /// `arena` then holds what each token decodes to.
  std::string keys;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> key_spans;
  /// Decoding beyond concatenating the tokens' bytes: Strip's leading characters removed
  /// from the whole text, and Metaspace's rule that the first token loses its spaces.
  std::size_t decode_strip_leading = 0;
  bool decode_first_token_spaces = false;
  std::string decode_marker = "\xE2\x96\x81";  ///< Metaspace's replacement
  std::vector<added_token> added;              ///< longest first
  u64_map added_by_hash;                       ///< hash_bytes(text) -> index in `added`
  std::vector<std::uint8_t> is_added;          ///< by ID: 1 for an added (special) token
  std::array<bool, 256> added_first{};         ///< bytes an added token begins with
  std::vector<std::size_t> added_lengths;      ///< the lengths of added tokens, longest first
  std::size_t ordinary_count = 0;              ///< IDs below this with bytes are ordinary tokens
  /// By ID: 1 for a vocabulary entry merging can never make (a byte-level file's entry not
  /// spelled in GPT-2's byte map): decodable, but not looked up by its bytes.
  std::vector<std::uint8_t> unindexed;
  std::string name;  ///< "tokenizer.json", "o200k_harmony", …
  /// Unique over the process's life (per-thread caches key on it: a model freed and
  /// another allocated at the same address must not share a cache).
  std::uint64_t serial = next_serial();

  static std::uint64_t next_serial() noexcept;

  [[nodiscard]] std::string_view bytes_of(token_id id) const noexcept {
    if (id >= spans.size()) return {};
    return std::string_view(arena).substr(spans[id].first, spans[id].second);
  }
  /// The ordinary token whose bytes (char_level: spelling) are `s`, or kNoToken.
  [[nodiscard]] token_id find_bytes(std::string_view s) const noexcept;
  /// What `find_bytes` compares: the bytes of an ID, or its spelling (char_level).
  [[nodiscard]] std::string_view key_of(token_id id) const noexcept {
    if (!char_level) return bytes_of(id);
    if (id >= key_spans.size()) return {};
    return std::string_view(keys).substr(key_spans[id].first, key_spans[id].second);
  }
  /// char_level: the spelling of an ID (its bytes are set apart with set_bytes).
  void set_key(token_id id, std::string_view spelling);
  /// Adds an ordinary or added token's bytes (IDs may come in any order).
  void set_bytes(token_id id, std::string_view bytes);
  /// Indexes ordinary tokens by bytes, sorts added tokens and pads the arena; call once
  /// after loading.
  void finish();
  /// The added tokens' part of finish(): sorted, indexed by hash, by ID and by first byte
  /// (a model whose tables come from the tokenizer cache).
  void index_added();
};

/// The <0xNN> token of `byte` (byte fallback), or kNoToken.
[[nodiscard]] token_id byte_fallback_token(const bpe_model& m, unsigned char byte);

/// Appends the IDs of one pre-tokenized piece.
void encode_piece(const bpe_model& m, std::string_view piece, std::vector<token_id>& out);
/// Builds `trie` from the ordinary tokens' spellings (after finish()).
void build_unigram_trie(bpe_model& m);
/// Appends the IDs of one pre-tokenized piece under a Unigram model.
void encode_unigram(const bpe_model& m, std::string_view piece, std::vector<token_id>& out);

}  // namespace ocml::detail
