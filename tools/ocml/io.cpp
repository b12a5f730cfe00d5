// SPDX-License-Identifier: Apache-2.0
#include "io.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <iterator>

namespace ocml::cli {

input::~input() {
  if (map_ != nullptr) munmap(map_, size_);
}

bool input::open(const std::string& path, std::string& error) {
  if (path == "-" || path.empty()) {
    buffer_.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    data_ = buffer_.data();
    size_ = buffer_.size();
    return true;
  }
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    void* m = mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ,
                   MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (m != MAP_FAILED) {
      map_ = m;
      data_ = static_cast<const char*>(m);
      size_ = static_cast<std::size_t>(st.st_size);
      ::close(fd);
      return true;
    }
  }
  char buf[1 << 16];
  ssize_t n = 0;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) buffer_.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  if (n < 0) {
    error = path + ": " + std::strerror(errno);
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

}  // namespace ocml::cli
