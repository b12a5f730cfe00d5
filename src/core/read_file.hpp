// SPDX-License-Identifier: Apache-2.0
// A whole file's bytes (the loaders of templates, tokenizers and model formats).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace ocml::detail {

/// Reads the file at `path` into `out`; false when it cannot be opened.
///
///   std::string text;
///   if (!read_file("tokenizer_config.json", text)) { /* E-IO */ }
[[nodiscard]] inline bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = std::move(s).str();
  return true;
}

}  // namespace ocml::detail
