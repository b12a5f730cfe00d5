// SPDX-License-Identifier: Apache-2.0
// ocml/tokens.hpp - BPE tokenizers: text to token IDs and back.
//
// Loads Hugging Face `tokenizer.json` files with a BPE model, byte-level or
// SentencePiece-style (byte_fallback, unk), with the normalizers, pre-tokenizers and
// decoders chat models ship (docs/tokens.md lists them), and tiktoken `.tiktoken` rank
// files with a named special-token table (o200k_base, o200k_harmony, cl100k_base).
// Anything else is refused with E-TOKENIZER-UNSUPPORTED naming what, never approximated.
//
//   auto tok = ocml::tokenizer::from_file("tokenizer.json");
//   if (!tok) { std::cerr << tok.error().to_string(); return 1; }
//   std::vector<ocml::token_id> ids = tok->encode_ordinary("Hello world");
//   std::string back = *tok->decode(ids);  // "Hello world"
//
// A tokenizer is immutable after loading: any number of threads may encode with it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ocml/error.hpp"

namespace ocml {

namespace detail {
struct bpe_model;
}

using token_id = std::uint32_t;

/// How to load a tokenizer file.
struct tokenizer_options {
  /// For a `.tiktoken` rank file: "o200k_base", "o200k_harmony" or "cl100k_base" (the
  /// pattern and special tokens). Empty: o200k_harmony for 199 998 ranks, cl100k_base for
  /// 100 256.
  std::string encoding;
  /// A folder for the tokenizer cache (decision 106), empty for none. A `tokenizer.json`
  /// loaded once is kept there as its tables, in a file named by the hash of the file's
  /// bytes; loading the same bytes again reads the tables instead of building them
  /// (gpt-oss's 28 MB file: 0.7 s, then a few tens of ms). A cache file is checked, never
  /// trusted: one that is damaged, stale or of another build is ignored and rewritten.
  /// Writing it is best effort: a folder that cannot be written only costs the speed.
  ///
  ///   auto tok = ocml::tokenizer::from_file("tokenizer.json", {.cache_dir = "/var/cache/ocml"});
  std::string cache_dir;
};

/// Which special (added) tokens a text may spell.
enum class special_tokens : std::uint8_t {
  none,  ///< every byte is ordinary text ("<|end|>" is six ordinary tokens or so)
  all,   ///< every special and added token is recognized (transformers' default)
};

/// How `tokenizer::append` encodes.
struct encode_options {
  /// Which special tokens the text may spell.
  special_tokens specials = special_tokens::none;
  /// Remember, on this thread, the IDs of each text between special tokens of 8 bytes to
  /// 1 MiB (32 MiB a thread in all, forgotten together when full), and answer a repeat of
  /// one from memory. For callers that encode the same texts again and again: training
  /// renders the prompt of each turn anew, and a dataset repeats its system prompt and
  /// tools. The IDs are the same either way.
  bool memoize = false;
};

class tokenizer {
 public:
  /// Loads a `tokenizer.json` or a `.tiktoken` file (by its content). Errors: E-IO,
  /// E-TOKENIZER-FORMAT (malformed), E-TOKENIZER-UNSUPPORTED (a feature ocml lacks).
  ///
  ///   auto tok = ocml::tokenizer::from_file("o200k_base.tiktoken", {.encoding = "o200k_harmony"});
  [[nodiscard]] static result<tokenizer> from_file(const std::string& path,
                                                   const tokenizer_options& options = {});
  /// Loads the text of a `tokenizer.json`.
  [[nodiscard]] static result<tokenizer> from_tokenizer_json(std::string_view json_text);
  /// Loads the text of a `.tiktoken` rank file ("base64 rank" lines).
  [[nodiscard]] static result<tokenizer> from_tiktoken(std::string_view ranks_text,
                                                       const tokenizer_options& options = {});

  /// Encodes text with no special tokens: every byte is content.
  ///
  ///   tok.encode_ordinary("<|end|>")  // several ordinary IDs, never the <|end|> ID
  [[nodiscard]] std::vector<token_id> encode_ordinary(std::string_view text) const;
  /// Encodes text, taking the special tokens `allowed` says as single IDs.
  ///
  ///   tok.encode("<|start|>user", ocml::special_tokens::all)  // {200006, 1428}
  [[nodiscard]] std::vector<token_id> encode(std::string_view text, special_tokens allowed) const;
  /// Appends the IDs of `text` to `out` (no special tokens), for callers that build a
  /// sequence piece by piece.
  void append_ordinary(std::string_view text, std::vector<token_id>& out) const;
  /// Appends the IDs of `text` to `out` as `options` say.
  ///
  ///   std::vector<ocml::token_id> ids;
  ///   tok.append(prompt, ids, {.specials = ocml::special_tokens::all, .memoize = true});
  void append(std::string_view text, std::vector<token_id>& out,
              const encode_options& options = {}) const;

  /// The bytes of a sequence of IDs (not always valid UTF-8: a token may end inside a
  /// character). E-TOKEN-UNKNOWN for an ID the vocabulary lacks.
  [[nodiscard]] result<std::string> decode(std::span<const token_id> ids) const;
  /// The bytes of one ID (empty for an unknown ID).
  [[nodiscard]] std::string_view token_bytes(token_id id) const noexcept;
  /// The ID of a special or added token ("<|start|>"), or nullopt.
  [[nodiscard]] std::optional<token_id> id_of(std::string_view special) const noexcept;
  /// Whether `id` is a special or added token.
  [[nodiscard]] bool is_special(token_id id) const noexcept;
  /// One past the largest ID.
  [[nodiscard]] std::size_t vocab_size() const noexcept;
  /// "tokenizer.json" or the tiktoken encoding's name.
  [[nodiscard]] std::string_view name() const noexcept;

 private:
  explicit tokenizer(std::shared_ptr<const detail::bpe_model> m) : m_(std::move(m)) {}
  std::shared_ptr<const detail::bpe_model> m_;
};

/// Turns IDs into text as they come, never splitting a UTF-8 character: bytes of a
/// character that a later token completes are held until then.
///
///   ocml::token_text_decoder d(tok);
///   for (auto id : ids) std::cout << d.push(id);
///   std::cout << d.finish();  // bytes still held (an incomplete character), as they are
class token_text_decoder {
 public:
  explicit token_text_decoder(const tokenizer& t) : t_(&t) {}
  /// The text that `id` completes (possibly empty).
  [[nodiscard]] std::string push(token_id id);
  /// What is still held.
  [[nodiscard]] std::string finish();

 private:
  const tokenizer* t_;
  std::string held_;
  bool started_ = false;
};

}  // namespace ocml
