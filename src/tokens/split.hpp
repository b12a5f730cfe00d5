// SPDX-License-Identifier: Apache-2.0
// The general pre-tokenizer: a tokenizer.json's pre_tokenizer as a list of steps, each
// refining the pieces the previous one made, with Hugging Face's split behaviours
// (removed, isolated, merged with the previous or next piece, contiguous) and `invert`.
// Regexes without a hand-written scanner run through PCRE2 (UTF, Unicode properties, JIT).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ocml/error.hpp"
#include "tokens/pretokenize.hpp"

namespace ocml::detail {

enum class split_behavior : unsigned char {
  removed,
  isolated,
  merged_with_previous,
  merged_with_next,
  contiguous,
};

/// A compiled PCRE2 pattern, shared read-only by every thread.
class split_regex {
 public:
  /// Compiles `pattern` (Oniguruma syntax as tokenizer.json writes it; the common subset
  /// PCRE2 reads the same way), or says why not.
  [[nodiscard]] static result<std::shared_ptr<const split_regex>> compile(std::string_view pattern);
  ~split_regex();
  split_regex(const split_regex&) = delete;
  split_regex& operator=(const split_regex&) = delete;

  /// The first match at or after `from` in `text`: {begin, end}, or {npos, npos}.
  [[nodiscard]] std::pair<std::size_t, std::size_t> find(std::string_view text,
                                                         std::size_t from) const;

 private:
  split_regex() = default;
  void* code_ = nullptr;
  bool jit_ = false;
};

/// One pre-tokenizer of a tokenizer.json.
struct pre_step {
  enum class kind : unsigned char {
    scanner,      ///< a regex ocml scans by hand (pretokenize.hpp)
    regex,        ///< any other regex (PCRE2)
    literal,      ///< a String pattern; CharDelimiterSplit
    digits,       ///< each \p{N} character is a match (Digits; contiguous unless individual)
    white_space,  ///< each White_Space character is a match (WhitespaceSplit)
    byte_level,   ///< ByteLevel: an optional leading space, then GPT-2's regex if use_regex
    metaspace,    ///< Metaspace: ' ' becomes the replacement, prepended, split before it
  };
  kind what = kind::scanner;
  split_behavior behavior = split_behavior::isolated;
  bool invert = false;
  pretokenizer scanner = pretokenizer::gpt2;
  std::shared_ptr<const split_regex> re;
  std::string literal;            ///< literal; metaspace: the replacement
  bool add_prefix_space = false;  ///< byte_level
  bool use_regex = true;          ///< byte_level
  enum class prepend : unsigned char { always, first, never } scheme = prepend::always;
  bool split = true;  ///< metaspace
};

/// Pieces of text: `text` holds them one after another, `ends[i]` is where piece i ends.
struct piece_list {
  std::string text;
  std::vector<std::size_t> ends;
  std::vector<std::uint8_t> at_origin;  ///< 1: the piece begins the original input
  void clear() {
    text.clear();
    ends.clear();
    at_origin.clear();
  }
};

/// Splits `text` by each step in turn into `out`. `at_origin`: `text` begins the input (a
/// Metaspace with prepend_scheme "first" prepends only there).
void pre_tokenize(std::span<const pre_step> steps, std::string_view text, bool at_origin,
                  piece_list& out);

}  // namespace ocml::detail
