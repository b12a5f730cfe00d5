// Input for the ocml tool: files (memory-mapped) or standard input.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ocml::cli {

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

}  // namespace ocml::cli
