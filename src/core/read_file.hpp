// SPDX-License-Identifier: Apache-2.0
// A whole file's bytes (the loaders of templates, tokenizers, model formats and response
// templates): a regular file, of at most a bounded size, read without blocking on a FIFO.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace ocml::detail {

/// The largest file ocml's loaders read (the biggest real tokenizer.json files are ~35 MB).
inline constexpr std::size_t kMaxFileBytes = std::size_t{512} << 20;

/// Reads the file at `path` into `out`; false when it cannot be opened, is not a regular
/// file (a FIFO, a device such as /dev/zero, a directory: refused at once, never read), or
/// holds more than `max_bytes`; `why` (when given) says which.
///
///   std::string text, why;
///   if (!read_file("tokenizer_config.json", text, &why)) { /* E-IO: why */ }
[[nodiscard]] inline bool read_file(const std::string& path, std::string& out,
                                    std::string* why = nullptr,
                                    std::size_t max_bytes = kMaxFileBytes) {
  const auto fail = [&](std::string reason) {
    if (why != nullptr) *why = path + ": " + std::move(reason);
    return false;
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return fail(std::strerror(errno));
  struct closer {
    int fd;
    ~closer() { ::close(fd); }
  } c{fd};
  struct stat st {};
  if (fstat(fd, &st) != 0) return fail(std::strerror(errno));
  if (!S_ISREG(st.st_mode)) {
    return fail(S_ISDIR(st.st_mode) ? "a directory, not a file" : "not a regular file");
  }
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    return fail("larger than " + std::to_string(max_bytes) + " bytes");
  }
  std::string text;
  text.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  for (;;) {
    if (got == text.size()) {
      // The file may have grown since fstat: read on, within the bound.
      if (text.size() >= max_bytes) {
        char probe = 0;
        const ssize_t n = ::read(fd, &probe, 1);
        if (n > 0) return fail("larger than " + std::to_string(max_bytes) + " bytes");
        break;
      }
      text.resize(std::min(max_bytes, text.size() + 65536));
    }
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(std::strerror(errno));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  out = std::move(text);
  return true;
}

}  // namespace ocml::detail
