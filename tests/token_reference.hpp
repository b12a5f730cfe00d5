// SPDX-License-Identifier: Apache-2.0
// Running a reference tokenizer (tests/tools/tokenize_reference.mjs) over a corpus file,
// with its output cached in tests/reference/.cache, for the differential tokenizer tests.
#pragma once

#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ocml/tokens.hpp"

namespace ocml::test {

namespace fs = std::filesystem;
inline const fs::path kRef = fs::path(OCML_SOURCE_DIR) / "tests/reference";

inline std::vector<std::vector<ocml::token_id>> read_ids(const fs::path& p) {
  std::vector<std::vector<ocml::token_id>> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<ocml::token_id> ids;
    for (std::size_t i = 0; i < line.size();) {
      if (line[i] < '0' || line[i] > '9') {
        ++i;
        continue;
      }
      ocml::token_id v = 0;
      const auto r = std::from_chars(line.data() + i, line.data() + line.size(), v);
      ids.push_back(v);
      i = static_cast<std::size_t>(r.ptr - line.data());
    }
    out.push_back(std::move(ids));
  }
  return out;
}

inline std::string show(const std::vector<ocml::token_id>& ids) {
  std::string s;
  for (std::size_t i = 0; i < ids.size() && i < 40; ++i) s += std::to_string(ids[i]) + " ";
  return s;
}

// FNV-1a over a file's bytes (a cache key: the corpus and the reference script).
inline std::uint64_t file_hash(const fs::path& p, std::uint64_t h = 1469598103934665603ULL) {
  std::ifstream in(p, std::ios::binary);
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      h = (h ^ static_cast<unsigned char>(buf[i])) * 1099511628211ULL;
    }
  }
  return h;
}

// The reference's IDs for the corpus, computed by the reference implementation once per
// corpus, script and tokenizer file, and kept in tests/reference/.cache (git-ignored): the
// Release and sanitizer runs of the suite compare against the same output, and the second
// does not run Node again (about 70 s of CI; docs/decisions.md 81).
inline fs::path reference_ids(const std::string& kind, const std::string& what,
                              const fs::path& in) {
  const fs::path script = fs::path(OCML_SOURCE_DIR) / "tests/tools/tokenize_reference.mjs";
  std::uint64_t key = file_hash(in);
  key = file_hash(script, key);
  for (const char c : kind + "\n" + what) {
    key = (key ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  if (fs::is_regular_file(what)) key = file_hash(what, key);
  const fs::path dir = kRef / ".cache";
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path cached = dir / (kind + "-" + std::to_string(key) + ".ids");
  if (fs::is_regular_file(cached)) return cached;
  const fs::path out = fs::path(in).replace_extension("." + kind + ".out");
  const std::string cmd =
      "node " + script.string() + " " + kind + " " + what + " " + in.string() + " " + out.string();
  if (std::system(cmd.c_str()) != 0) return {};
  // Copied beside the entry, then renamed into place, so a run that stops halfway leaves no
  // partial entry (the corpus lives in the temporary directory, maybe another file system).
  const fs::path part = dir / (cached.filename().string() + "." + std::to_string(::getpid()));
  fs::copy_file(out, part, fs::copy_options::overwrite_existing, ec);
  if (!ec) fs::rename(part, cached, ec);
  if (ec) return out;  // no cache (read-only tree): the fresh output serves this run
  fs::remove(out, ec);
  return cached;
}

/// `s` for a failure message: ASCII as it is, other bytes as \xNN (never invalid UTF-8).
inline std::string printable(std::string_view s, std::size_t max = 160) {
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F) {
      out.push_back(static_cast<char>(c));
    } else {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

/// Whether Node and the reference binding are installed (tests skip without them).
inline bool references_installed() {
  return fs::exists(kRef / "node_modules/tokenizers") &&
         std::system("node --version >/dev/null 2>&1") == 0;
}

}  // namespace ocml::test
