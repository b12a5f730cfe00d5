// SPDX-License-Identifier: Apache-2.0
// Input for the ocml tool: files (memory-mapped) or standard input.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "ocml/tokens.hpp"

namespace ocml::cli {

/// How the CLI loads a tokenizer file: the tiktoken `encoding`, and the tokenizer cache
/// (decision 106) in $OCML_CACHE_DIR, else $XDG_CACHE_HOME/ocml, else $HOME/.cache/ocml;
/// none when OCML_CACHE_DIR is set but empty.
///
///   auto tok = ocml::tokenizer::from_file(path, tokenizer_options_for(""));
[[nodiscard]] ocml::tokenizer_options tokenizer_options_for(const std::string& encoding);

/// The bytes of a file, or of standard input for "-". Maps regular files read-only.
class input {
 public:
  input() = default;
  ~input();
  input(const input&) = delete;
  input& operator=(const input&) = delete;
  /// Opens `path` ("-" = stdin). Returns false and sets `error` on failure.
  [[nodiscard]] bool open(const std::string& path, std::string& error);
  [[nodiscard]] std::string_view bytes() const noexcept { return {data_, size_}; }

 private:
  std::string buffer_;
  const char* data_ = "";
  std::size_t size_ = 0;
  void* map_ = nullptr;
};

/// Reads `path` ("-" = standard input) one read(2) at a time (at most 64 KiB) and gives
/// each piece to `fn` as soon as it arrives: memory stays bounded whatever the input's
/// size, and a co-process gets answers while its input is still open. Returns false and
/// sets `error` when the input cannot be opened or read.
///
///   read_pieces("-", [&](std::string_view piece) { decoder.push(piece); }, err);
[[nodiscard]] bool read_pieces(const std::string& path,
                               const std::function<void(std::string_view)>& fn, std::string& error);

}  // namespace ocml::cli
