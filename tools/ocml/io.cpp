// SPDX-License-Identifier: Apache-2.0
#include "io.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <iterator>

namespace ocml::cli {

input::~input() {
  if (map_ != nullptr) munmap(map_, size_);
}

namespace {

// What a one-shot command reads from a pipe, a FIFO or a device (a regular file is mapped,
// whatever its size): /dev/zero as input stops here instead of growing without end.
constexpr std::size_t kMaxStreamedInput = std::size_t{256} << 20;

}  // namespace

bool input::open(const std::string& path, std::string& error) {
  const bool std_in = path == "-" || path.empty();
  const int fd = std_in ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  const std::string name = std_in ? std::string("standard input") : path;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    error = name + ": a directory, not a file";
    return false;
  }
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    void* m = mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ,
                   MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (m != MAP_FAILED) {
      map_ = m;
      data_ = static_cast<const char*>(m);
      size_ = static_cast<std::size_t>(st.st_size);
      if (!std_in) ::close(fd);
      return true;
    }
  }
  char buf[1 << 16];
  ssize_t n = 0;
  for (;;) {
    n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (buffer_.size() + static_cast<std::size_t>(n) > kMaxStreamedInput) {
      if (!std_in) ::close(fd);
      error = name + ": more than " + std::to_string(kMaxStreamedInput) +
              " bytes (a larger input must be a regular file, or go to `ocml stream`)";
      return false;
    }
    buffer_.append(buf, static_cast<std::size_t>(n));
  }
  const int saved = errno;
  if (!std_in) ::close(fd);
  if (n < 0) {
    error = name + ": " + std::strerror(saved);
    return false;
  }
  data_ = buffer_.data();
  size_ = buffer_.size();
  return true;
}

bool read_pieces(const std::string& path, const std::function<void(std::string_view)>& fn,
                 std::string& error) {
  const bool std_in = path == "-" || path.empty();
  const int fd = std_in ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  std::string buf(std::size_t{1} << 16, '\0');
  ssize_t n = 0;
  for (;;) {
    n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    fn(std::string_view(buf.data(), static_cast<std::size_t>(n)));
  }
  const int saved = errno;
  if (!std_in) ::close(fd);
  if (n < 0) {
    error = (std_in ? std::string("standard input") : path) + ": " + std::strerror(saved);
    return false;
  }
  return true;
}

ocml::tokenizer_options tokenizer_options_for(const std::string& encoding) {
  ocml::tokenizer_options o{.encoding = encoding};
  if (const char* dir = std::getenv("OCML_CACHE_DIR"); dir != nullptr) {
    o.cache_dir = dir;  // empty: no cache
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    o.cache_dir = std::string(xdg) + "/ocml";
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    o.cache_dir = std::string(home) + "/.cache/ocml";
  }
  return o;
}

}  // namespace ocml::cli
