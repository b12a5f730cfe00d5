// SPDX-License-Identifier: Apache-2.0
// Batch mode (--jsonl): one item per input line, one result per output line, in input order,
// processed on N threads. An item's errors are reported with its line number; the rest go on.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>  // std::ostream
#include <string>
#include <string_view>
#include <vector>

#include "ocml/error.hpp"
#include "ocml/text_buffer.hpp"

namespace ocml::cli {

struct line_result {
  std::string output;                   ///< one JSON line (without the newline)
  text_buffer direct;                   ///< or the line written here by a fast path
  std::vector<diagnostic> diagnostics;  ///< errors make the line fail; warnings inform
  /// The work on the line threw and even its error could not be recorded (out of memory):
  /// the writer reports E-INTERNAL.
  bool internal = false;
  /// Training output: the examples the line gave, their tokens and trained tokens (summed
  /// into the batch's closing line).
  std::size_t examples = 0;
  std::size_t tokens = 0;
  std::size_t trained = 0;
};

/// One input line.
struct batch_line {
  std::string_view text;
};

/// The lines of a batch input, handed out a block at a time: views into a memory-mapped
/// file, or into a buffer refilled from a stream (only the unread tail is ever moved).
class line_source {
 public:
  /// Lines of `bytes` (e.g. a mapped file), which must outlive the source.
  explicit line_source(std::string_view bytes) : bytes_(bytes) {}
  /// Lines read from the file descriptor `fd` (a pipe, say) as they are needed: a block
  /// holds the complete lines already there, so a co-process gets each answer as soon as
  /// its line is complete; a fast producer still fills whole blocks.
  explicit line_source(int fd) : fd_(fd) {}

  /// Cuts the next block (at most `max_lines` lines, stopping once `max_bytes` are taken)
  /// into `lines`; the views stay valid until the next call. False when the input is done.
  bool next_block(std::vector<batch_line>& lines, std::size_t max_lines, std::size_t max_bytes);
  /// Bytes handed out so far, and the input's size (0 when read from a stream: unknown).
  [[nodiscard]] std::size_t consumed() const noexcept { return consumed_; }
  [[nodiscard]] std::size_t total() const noexcept { return fd_ >= 0 ? 0 : bytes_.size(); }

 private:
  std::size_t consumed_ = 0;
  std::string_view bytes_;
  std::size_t pos_ = 0;
  int fd_ = -1;
  std::string buffer_;
  bool eof_ = false;
  std::vector<std::pair<std::size_t, std::size_t>> spans_;
};

/// The work done on one line: appends its output to `r.output` and its diagnostics to
/// `r.diagnostics` (both arrive empty, with their capacity kept from earlier lines).
using line_fn = std::function<void(const batch_line& line, line_result& r)>;

/// How run_lines reports.
struct run_options {
  /// Print no warnings (they are still counted).
  bool quiet = false;
  /// Print every warning; by default the first of each kind (a code and a JSON path, its
  /// indices left out) is printed and the others counted, so a million lines that drop
  /// reasoning print one line and a count.
  bool verbose = false;
  /// A file descriptor for the failed lines' error objects (-1: they go to the output).
  int failures_fd = -1;
  /// A progress line on `err` at most twice a second: lines done, bytes done of the
  /// input's size and percent (when known), MB/s, failures. `tty`: rewritten in place
  /// ("\r"); otherwise one line each time.
  bool progress = false;
  bool tty = false;
};

/// Applies `fn` to every line of `src` with `jobs` threads; writes outputs in order to the
/// file descriptor `out_fd` (gathered, without copying them into one buffer) and diagnostics
/// ("line N: E-CODE l:c message") to `err`, warnings only unless `quiet` and, unless
/// `verbose`, only the first of each kind; at the end one line per kind of warning with its
/// count and first lines ("warnings: 12 E-RENDER-UNREPRESENTABLE messages[*].name (first at
/// lines 1, 4, 9, 10, 12)"); with `failures_fd`, every warning goes there too. Returns
/// 1 if any line failed. A failed line's output is its error object
/// (`{"line": N, "error": {...}}`), written to `failures_fd` instead when it is not -1 (the
/// output then holds the results alone); either way a closing line counts the lines and the
/// failures by code ("lines: 2000, failed: 3 (E-JSON-INPUT 3)") when any failed or
/// `failures_fd` is given, and one with the training counts when a line gave examples
/// ("examples: 5054, tokens: 2766932, trained tokens: 272343").
int run_lines(line_source& src, int out_fd, std::ostream& err, unsigned jobs, const line_fn& fn,
              const run_options& options = {});

/// The markup text of a batch input line: a JSON string, or an object with "text".
[[nodiscard]] result<std::string> markup_of_line(std::string_view line);

}  // namespace ocml::cli
