// SPDX-License-Identifier: Apache-2.0
#include "batch.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <istream>
#include <ostream>
#include <thread>
#include <unordered_map>

#include <poll.h>
#include <sys/uio.h>
#include <unistd.h>
#include <cerrno>
#include <climits>

#include "ocml/json.hpp"

namespace ocml::cli {

namespace {
// A block is small enough to stay in cache and to reuse its buffers (no page faults after
// the first blocks), and large enough to amortize starting the worker threads.
constexpr std::size_t kBlockLines = 1024;
constexpr std::size_t kBlockBytes = std::size_t{1} << 20;
constexpr std::size_t kReadSize = std::size_t{1} << 20;

// Cuts lines out of `text` from `pos`; returns the new position.
std::size_t cut_lines(std::string_view text, std::size_t pos,
                      std::vector<std::pair<std::size_t, std::size_t>>& spans,
                      std::size_t max_lines, std::size_t max_bytes, std::size_t& taken) {
  while (spans.size() < max_lines && taken < max_bytes && pos < text.size()) {
    const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
    if (nl == nullptr) break;
    const auto end = static_cast<std::size_t>(static_cast<const char*>(nl) - text.data());
    spans.emplace_back(pos, end - pos);
    taken += end - pos + 1;
    pos = end + 1;
  }
  return pos;
}
// Writes every buffer of `iov` to `fd` (gathered, with partial writes resumed).
bool write_all(int fd, std::vector<iovec>& iov) {
  std::size_t at = 0;
  while (at < iov.size()) {
    const auto n = static_cast<int>(std::min<std::size_t>(iov.size() - at, IOV_MAX));
    const ssize_t w = ::writev(fd, iov.data() + at, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    auto left = static_cast<std::size_t>(w);
    while (at < iov.size() && left >= iov[at].iov_len) left -= iov[at++].iov_len;
    if (at < iov.size()) {
      iov[at].iov_base = static_cast<char*>(iov[at].iov_base) + left;
      iov[at].iov_len -= left;
    }
  }
  return true;
}

}  // namespace

bool line_source::next_block(std::vector<batch_line>& lines, std::size_t max_lines,
                             std::size_t max_bytes) {
  lines.clear();
  spans_.clear();
  std::size_t taken = 0;
  std::string_view text = bytes_;
  if (fd_ >= 0) {
    buffer_.erase(0, pos_);  // only the unread tail moves
    pos_ = 0;
    for (;;) {
      pos_ = cut_lines(buffer_, pos_, spans_, max_lines, max_bytes, taken);
      if (spans_.size() >= max_lines || taken >= max_bytes || eof_) break;
      // With lines in hand, read on only while more bytes are already there: a writer
      // that waits for an answer gets it now.
      if (!spans_.empty()) {
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, 0) <= 0) break;
      }
      const std::size_t had = buffer_.size();
      buffer_.resize(had + kReadSize);
      ssize_t got = 0;
      do {
        got = ::read(fd_, buffer_.data() + had, kReadSize);
      } while (got < 0 && errno == EINTR);
      buffer_.resize(had + static_cast<std::size_t>(std::max<ssize_t>(got, 0)));
      if (got <= 0) eof_ = true;
    }
    text = buffer_;
  } else {
    pos_ = cut_lines(bytes_, pos_, spans_, max_lines, max_bytes, taken);
    eof_ = true;
  }
  // The input's last line may lack its newline.
  if (eof_ && spans_.size() < max_lines && taken < max_bytes && pos_ < text.size()) {
    spans_.emplace_back(pos_, text.size() - pos_);
    pos_ = text.size();
  }
  for (const auto& [at, n] : spans_) {
    lines.push_back({std::string_view(text.data() + at, n)});
    consumed_ += n + 1;
  }
  if (fd_ < 0) consumed_ = std::min(consumed_, bytes_.size());
  return !lines.empty();
}

result<std::string> markup_of_line(std::string_view line) {
  auto j = parse_json_text(line);
  if (!j) return j.error();
  if (j->is_string()) return j->get<std::string>();
  if (j->is_object() && j->contains("text") && (*j)["text"].is_string()) {
    return (*j)["text"].get<std::string>();
  }
  return make_error(error_code::invalid_json,
                    "a batch line must be a JSON string or {\"text\": ...}");
}

namespace {

// The progress line: at most twice a second, and once at the end (`last`).
class progress_line {
 public:
  explicit progress_line(const run_options& o) : on_(o.progress), tty_(o.tty) {}
  void show(std::ostream& err, const line_source& src, std::size_t lines, std::size_t failed,
            bool last) {
    if (!on_ || (last && lines == lines_shown_)) return;
    const auto now = std::chrono::steady_clock::now();
    if (!last && now - shown_ < std::chrono::milliseconds(500)) return;
    lines_shown_ = lines;
    shown_ = now;
    const double s = std::chrono::duration<double>(now - start_).count();
    const double mb = static_cast<double>(src.consumed()) / 1e6;
    char text[200];
    int n = std::snprintf(text, sizeof text, "progress: %zu lines, %.1f", lines, mb);
    if (src.total() > 0) {
      n += std::snprintf(
          text + n, sizeof text - static_cast<std::size_t>(n), " of %.1f MB (%.0f%%)",
          static_cast<double>(src.total()) / 1e6,
          100.0 * static_cast<double>(src.consumed()) / static_cast<double>(src.total()));
    } else {
      n += std::snprintf(text + n, sizeof text - static_cast<std::size_t>(n), " MB");
    }
    std::snprintf(text + n, sizeof text - static_cast<std::size_t>(n), ", %.1f MB/s, %zu failed",
                  s > 0 ? mb / s : 0.0, failed);
    err << (tty_ ? "\r\x1b[K" : "") << text << (tty_ ? "" : "\n");
    err.flush();
    drawn_ = tty_;
  }
  // At the end: a line drawn in place keeps its last state on a line of its own.
  void finish(std::ostream& err) {
    if (drawn_) err << '\n';
    drawn_ = false;
  }
  // Before other output: a line being rewritten in place is cleared first.
  void clear(std::ostream& err) {
    if (drawn_) err << "\r\x1b[K";
    drawn_ = false;
  }

 private:
  bool on_;
  bool tty_;
  bool drawn_ = false;
  std::size_t lines_shown_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point shown_ = start_;
};

// Warnings of one kind (a code and a JSON path with its indices as "*"): counted, the first
// printed where it happens, the rest summed up at the end with their first line numbers.
class warning_kinds {
 public:
  /// True when `d` (of input line `line`) is the first of its kind. Allocates only for a
  /// new kind: a kind is found by a hash of its code and path pattern.
  bool add(const diagnostic& d, std::size_t line) {
    const std::uint64_t h = hash_pattern(d.code, d.message);
    const auto [it, fresh] = index_.try_emplace(h, kinds_.size());
    if (fresh) {
      std::string key(error_name(d.code));
      key += ' ';
      append_pattern(d.message, key);
      kinds_.push_back({std::move(key), 0, {}});
    }
    kind& k = kinds_[it->second];
    ++k.count;
    if (k.lines.size() < kShownLines && (k.lines.empty() || k.lines.back() != line)) {
      k.lines.push_back(line);
    }
    return fresh;
  }
  /// "warnings: 19182 E-RENDER-UNREPRESENTABLE messages[*].reasoning_content (first at lines
  /// 1, 2, 3, 5, 8)", one line per kind in the order they first came.
  void print(std::ostream& err) const {
    for (const kind& k : kinds_) {
      err << "warnings: " << k.count << ' ' << k.key << " (first at line"
          << (k.lines.size() > 1 ? "s " : " ");
      for (std::size_t i = 0; i < k.lines.size(); ++i) err << (i > 0 ? ", " : "") << k.lines[i];
      err << ")\n";
    }
  }

 private:
  static constexpr std::size_t kShownLines = 5;
  // The message's leading JSON path ("messages[8].reasoning_content: …"); empty when the
  // message does not begin with one.
  static std::string_view path_of(std::string_view message) {
    const std::size_t colon = message.find(": ");
    const std::string_view path = message.substr(0, colon == std::string_view::npos ? 0 : colon);
    return path.find(' ') == std::string_view::npos ? path : std::string_view{};
  }
  // Calls `put` with each byte of the path's pattern: digits in brackets as one "*".
  template <typename Put>
  static void each_pattern_byte(std::string_view path, Put put) {
    bool in_index = false;
    for (const char c : path) {
      if (in_index && c >= '0' && c <= '9') continue;
      in_index = false;
      put(c);
      if (c == '[') {
        put('*');
        in_index = true;
      }
    }
  }
  static std::uint64_t hash_pattern(error_code code, std::string_view message) {
    std::uint64_t h = 1469598103934665603ULL ^ static_cast<std::uint64_t>(code);
    each_pattern_byte(path_of(message),
                      [&h](char c) { h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL; });
    return h;
  }
  static void append_pattern(std::string_view message, std::string& out) {
    const std::string_view path = path_of(message);
    if (path.empty()) {
      out.pop_back();
      return;
    }
    each_pattern_byte(path, [&out](char c) { out += c; });
  }
  struct kind {
    std::string key;
    std::size_t count = 0;
    std::vector<std::size_t> lines;
  };
  std::unordered_map<std::uint64_t, std::size_t> index_;
  std::vector<kind> kinds_;
};

// `{"line": N, "warning"|"error": {code, message, line, column}}` (the failures file's form).
std::string diagnostic_object(const diagnostic& d, std::size_t line) {
  const json e = {{"line", line},
                  {d.level == severity::warning ? "warning" : "error",
                   {{"code", std::string(error_name(d.code))},
                    {"message", d.message},
                    {"line", d.line},
                    {"column", d.column}}}};
  return dump_json(e);
}

}  // namespace

int run_lines(line_source& src, int out_fd, std::ostream& err, unsigned jobs, const line_fn& fn,
              const run_options& options) {
  const bool quiet = options.quiet;
  const int failures_fd = options.failures_fd;
  progress_line progress(options);
  std::size_t failed = 0;
  std::array<std::size_t, error_code_count> failed_by{};  // failed lines per code
  std::size_t examples = 0;
  std::size_t tokens = 0;
  std::size_t trained = 0;
  std::string failure_text;  // the block's error and warning objects, when they go apart
  warning_kinds warned;
  jobs = std::max(1u, jobs);
  int rc = 0;
  std::size_t first_line = 1;
  std::vector<batch_line> lines;
  std::vector<line_result> results;  // kept across blocks: their buffers are reused
  std::vector<iovec> iov;            // the block's output, gathered from the results
  std::string errors;
  while (src.next_block(lines, kBlockLines, kBlockBytes)) {
    if (results.size() < lines.size()) results.resize(lines.size());
    std::atomic<std::size_t> next{0};
    const auto work = [&]() noexcept {
      for (std::size_t i = next++; i < lines.size(); i = next++) {
        line_result& r = results[i];
        r.output.clear();
        r.direct.clear();
        r.diagnostics.clear();
        r.internal = false;
        r.examples = r.tokens = r.trained = 0;
        // Whatever escapes the work on one line is that line's error; the others go on.
        // Recording it allocates: if that throws too, a flag (no allocation) says so.
        try {
          try {
            fn(lines[i], r);
          } catch (const std::exception& e) {
            r.diagnostics.push_back(make_error(error_code::internal, e.what()));
          } catch (...) {
            r.diagnostics.push_back(make_error(error_code::internal, "unknown exception"));
          }
        } catch (...) {
          r.internal = true;
        }
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < jobs && t < lines.size(); ++t) {
      try {
        pool.emplace_back(work);
      } catch (const std::system_error&) {
        break;  // no more threads to be had: the ones running (and this one) do the work
      }
    }
    work();
    for (auto& t : pool) t.join();
    iov.clear();
    failure_text.clear();
    errors.clear();
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const std::size_t n = first_line + i;
      if (results[i].internal) {
        results[i].diagnostics.assign(
            1, make_error(error_code::internal, "out of memory while reporting an error"));
      }
      const diagnostic* failure = nullptr;
      for (const auto& d : results[i].diagnostics) {
        if (d.level == severity::warning) {
          if (failures_fd >= 0) {
            failure_text += diagnostic_object(d, n);
            failure_text += '\n';
          }
          // By default a kind's first warning is printed, the others counted.
          if (!warned.add(d, n) && !options.verbose) continue;
          if (quiet) continue;
        }
        char prefix[40] = "line ";
        char* p = std::to_chars(prefix + 5, prefix + sizeof prefix - 2, n).ptr;
        *p++ = ':';
        *p++ = ' ';
        errors.append(prefix, p);
        d.append_to(errors);
        errors += '\n';
        if (d.level == severity::error && failure == nullptr) failure = &d;
      }
      if (failure != nullptr) {
        rc = 1;
        results[i].output = diagnostic_object(*failure, n);
        results[i].direct.clear();
        ++failed;
        ++failed_by[static_cast<std::size_t>(failure->code)];
        if (failures_fd >= 0) {
          failure_text += results[i].output;
          failure_text += '\n';
          continue;
        }
      } else {
        examples += results[i].examples;
        tokens += results[i].tokens;
        trained += results[i].trained;
      }
      if (results[i].direct.size() > 0) {
        results[i].direct.raw('\n');
        const std::string_view v = results[i].direct.view();
        iov.push_back({const_cast<char*>(v.data()), v.size()});  // NOLINT: writev's type
      } else {
        results[i].output.push_back('\n');
        iov.push_back({results[i].output.data(), results[i].output.size()});
      }
    }
    if (!errors.empty()) progress.clear(err);
    err << errors;
    err.flush();
    if (!write_all(out_fd, iov)) {
      err << "E-IO cannot write the output: " << std::strerror(errno) << '\n';
      return 1;
    }
    std::vector<iovec> failure_iov{{failure_text.data(), failure_text.size()}};
    if (failures_fd >= 0 && !failure_text.empty() && !write_all(failures_fd, failure_iov)) {
      err << "E-IO cannot write the failures: " << std::strerror(errno) << '\n';
      return 1;
    }
    first_line += lines.size();
    progress.show(err, src, first_line - 1, failed, false);
  }
  progress.show(err, src, first_line - 1, failed, true);
  progress.finish(err);
  warned.print(err);
  if (examples > 0) {
    err << "examples: " << examples << ", tokens: " << tokens << ", trained tokens: " << trained
        << '\n';
  }
  if (failed > 0 || failures_fd >= 0) {
    err << "lines: " << first_line - 1 << ", failed: " << failed;
    const char* sep = " (";
    for (std::size_t c = 0; c < failed_by.size(); ++c) {
      if (failed_by[c] == 0) continue;
      err << sep << error_name(static_cast<error_code>(c)) << ' ' << failed_by[c];
      sep = ", ";
    }
    err << (failed > 0 ? ")\n" : "\n");
  }
  return rc;
}

}  // namespace ocml::cli
