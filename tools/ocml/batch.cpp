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
  std::vector<std::string> lines;
  std::vector<line_result> results;
  std::string line;
  bool more = true;
  while (more) {
    lines.clear();
    while (lines.size() < kBlock && (more = static_cast<bool>(std::getline(in, line)))) {
      lines.push_back(line);
    }
    if (lines.empty()) break;
    results.assign(lines.size(), line_result{});
    std::atomic<std::size_t> next{0};
    const auto work = [&]() {
      for (std::size_t i = next++; i < lines.size(); i = next++) results[i] = fn(lines[i]);
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < jobs && t < lines.size(); ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    std::string block;  // one write per block
    std::string errors;
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
