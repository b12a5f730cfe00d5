// SPDX-License-Identifier: Apache-2.0
// Normalizers: what a tokenizer.json does to text before pre-tokenizing it. Unicode
// normalization follows UAX #15 over Unicode 9.0 tables (normalization_tables.cpp), the
// version Hugging Face tokenizers normalizes with, so the result never depends on the build
// machine's ICU.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace ocml::detail {

enum class unicode_form : unsigned char { nfd = 0, nfkd = 1, nfc = 2, nfkc = 3 };

/// Writes the `form` of `text` into `out` and returns true, or returns false (and leaves
/// `out` alone) when `text` is already in that form. Bytes that are not well-formed UTF-8
/// are copied unchanged and block composition across them.
[[nodiscard]] bool normalize_unicode(unicode_form form, std::string_view text, std::string& out);

/// Writes `text` with each code point replaced by its full lowercase mapping (Rust's
/// char::to_lowercase, as Hugging Face's Lowercase normalizer runs it: no final-sigma rule)
/// into `out` and returns true, or returns false when nothing changes. Bytes that are not
/// well-formed UTF-8 are copied unchanged.
[[nodiscard]] bool lowercase(std::string_view text, std::string& out);

/// One normalizer of a tokenizer.json (a Sequence is its steps in order).
struct normalizer_step {
  enum class kind : unsigned char { unicode, prepend, replace, strip, lowercase };
  kind what = kind::unicode;
  unicode_form form = unicode_form::nfc;
  std::string pattern;  ///< prepend: the text; replace: the literal searched for
  std::string content;  ///< replace: what each occurrence becomes
  bool left = false;    ///< strip: leading white space
  bool right = false;   ///< strip: trailing white space
};

/// `text` after every step: a view of `text` when nothing changed, else of `storage`
/// (`scratch` is working space).
[[nodiscard]] std::string_view apply_normalizers(std::span<const normalizer_step> steps,
                                                 std::string_view text, std::string& storage,
                                                 std::string& scratch);

}  // namespace ocml::detail
