#include "batch.hpp"

#include <algorithm>
#include <atomic>
#include <iostream>
#include <thread>

#include "ocml/json.hpp"

namespace ocml::cli {

namespace {
constexpr std::size_t kBlock = 8192;  // lines held in memory at once
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

int run_lines(std::istream& in, std::ostream& out, std::ostream& err, unsigned jobs,
              const std::function<line_result(std::string_view line)>& fn) {
  jobs = std::max(1u, jobs);
  int rc = 0;
  std::size_t first_line = 1;
  std::string buffer;  // the block's input, lines cut out of it as views
  std::vector<std::string_view> lines;
  std::vector<line_result> results;
  std::string block;  // the block's output, written at once
  std::string errors;
  std::string carry;  // a partial last line
  std::vector<char> chunk(1 << 22);
  bool eof = false;
  while (!eof || !carry.empty()) {
    buffer.assign(carry);  // keeps the buffer's capacity from block to block
    lines.clear();
    // Fill the block: read until it holds kBlock lines or the input ends.
    std::size_t scanned = 0;
    while (!eof) {
      std::size_t count = 0;
      for (std::size_t p = 0; (p = buffer.find('\n', p)) != std::string::npos; ++p) ++count;
      if (count >= kBlock) break;
      in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
      const auto got = static_cast<std::size_t>(in.gcount());
      if (got == 0) {
        eof = true;
        break;
      }
      buffer.append(chunk.data(), got);
    }
    std::size_t pos = 0;
    while (lines.size() < kBlock) {
      const std::size_t nl = buffer.find('\n', pos);
      if (nl == std::string::npos) {
        if (eof && pos < buffer.size()) {
          lines.emplace_back(buffer.data() + pos, buffer.size() - pos);
          pos = buffer.size();
        }
        break;
      }
      lines.emplace_back(buffer.data() + pos, nl - pos);
      pos = nl + 1;
    }
    carry.assign(buffer, pos, std::string::npos);
    (void)scanned;
    if (lines.empty()) {
      if (eof) break;
      continue;
    }
    results.assign(lines.size(), line_result{});
    std::atomic<std::size_t> next{0};
    const auto work = [&]() {
      for (std::size_t i = next++; i < lines.size(); i = next++) results[i] = fn(lines[i]);
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < jobs && t < lines.size(); ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    block.clear();
    errors.clear();
    for (std::size_t i = 0; i < results.size(); ++i) {
      const std::size_t n = first_line + i;
      const diagnostic* failure = nullptr;
      for (const auto& d : results[i].diagnostics) {
        errors += "line " + std::to_string(n) + ": " + d.to_string() + "\n";
        if (d.level == severity::error && failure == nullptr) failure = &d;
      }
      if (failure != nullptr) {
        rc = 1;
        json e = {{"line", n},
                  {"error",
                   {{"code", std::string(error_name(failure->code))},
                    {"message", failure->message},
                    {"line", failure->line},
                    {"column", failure->column}}}};
        block += dump_json(e);
      } else {
        block += results[i].output;
      }
      block.push_back('\n');
    }
    err << errors;
    out.write(block.data(), static_cast<std::streamsize>(block.size()));
    first_line += lines.size();
  }
  return rc;
}

}  // namespace ocml::cli
