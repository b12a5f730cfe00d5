// Batch mode (--jsonl): one item per input line, one result per output line, in input order,
// processed on N threads. An item's errors are reported with its line number; the rest go on.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "ocml/error.hpp"

namespace ocml::cli {

struct line_result {
  std::string output;                   ///< one JSON line (without the newline)
  std::vector<diagnostic> diagnostics;  ///< errors make the line fail; warnings inform
};

/// Applies `fn` to every line of `in` with `jobs` threads; writes outputs in order to `out`
/// and diagnostics ("line N: E-CODE l:c message") to `err`. Returns 1 if any line failed.
int run_lines(std::istream& in, std::ostream& out, std::ostream& err, unsigned jobs,
              const std::function<line_result(std::string_view line)>& fn);

/// The markup text of a batch input line: a JSON string, or an object with "text".
[[nodiscard]] result<std::string> markup_of_line(std::string_view line);

}  // namespace ocml::cli
