// SPDX-License-Identifier: Apache-2.0
// The JSONL -> ChatML hot path in process (no start-up, no I/O): the batch line renderer
// (json_reader, escaped output) and the simdjson one-pass renderer (plain text) over the
// lines of the Jinja2 comparison corpus.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "dialects/chatml/chatml.hpp"
#include "openai_corpus.hpp"

namespace {

const std::vector<std::string>& corpus_lines() {
  static const std::vector<std::string> lines = [] {
    std::vector<std::string> v;
    ocml::test::openai_corpus gen(2024);
    for (int i = 0; i < 2000; ++i) v.push_back(gen.conversation().dump());
    return v;
  }();
  return lines;
}

// Renders every corpus line with `render(line, warnings)` (true when the fast path took it).
template <typename Render>
void run_corpus(benchmark::State& state, Render&& render) {
  std::vector<ocml::diagnostic> warnings;
  std::size_t bytes = 0;
  std::size_t taken = 0;
  for (auto _ : state) {
    bytes = taken = 0;
    for (const auto& line : corpus_lines()) {
      warnings.clear();
      taken += render(line, warnings) ? 1 : 0;
      bytes += line.size();
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  state.counters["taken"] = static_cast<double>(taken);
}

void BM_ChatmlBatchLine(benchmark::State& state) {
  ocml::detail::escaped_buffer out;
  run_corpus(state, [&out](const std::string& line, std::vector<ocml::diagnostic>& w) {
    out.clear();
    const bool ok = ocml::detail::chatml::render_openai_json_text(line, false, out, w);
    benchmark::DoNotOptimize(out.view().data());
    return ok;
  });
}
BENCHMARK(BM_ChatmlBatchLine)->Unit(benchmark::kMillisecond);

void BM_ChatmlOnePassSimdjson(benchmark::State& state) {
  std::string out;
  run_corpus(state, [&out](const std::string& line, std::vector<ocml::diagnostic>& w) {
    out.clear();
    const bool ok = ocml::detail::chatml::render_openai_text(line, false, out, w);
    benchmark::DoNotOptimize(out.data());
    return ok;
  });
}
BENCHMARK(BM_ChatmlOnePassSimdjson)->Unit(benchmark::kMillisecond);

}  // namespace
