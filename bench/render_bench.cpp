// SPDX-License-Identifier: Apache-2.0
// Render throughput for each dialect.
#include <benchmark/benchmark.h>

#include "corpus.hpp"
#include "ocml/decoder.hpp"
#include "ocml/render.hpp"

namespace {

void BM_Render(benchmark::State& state) {
  const auto d = static_cast<ocml::dialect>(state.range(0));
  const auto parsed = ocml::parse(ocml::bench::make_transcript(8u << 20), {});
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto text = ocml::render(parsed.conversation, {.dialect = d});
    bytes = text->size();
    benchmark::DoNotOptimize(text->data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  state.SetLabel(std::string(ocml::dialect_name(d)));
}
BENCHMARK(BM_Render)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

// One assistant turn with N parallel calls, then the N replies (by call id), rendered in
// every dialect and converted back and forth: time per call must stay flat as N grows
// (issue 13: harmony found each reply's call by scanning back, 10 s at 40 000 calls).
ocml::conversation parallel_calls(std::size_t n) {
  ocml::conversation c;
  c.messages.push_back({.role = ocml::role::user, .content = "go"});
  ocml::message a{.role = ocml::role::assistant};
  for (std::size_t i = 0; i < n; ++i) {
    a.tool_calls.push_back(
        {.id = "c" + std::to_string(i), .name = "f" + std::to_string(i % 7), .arguments = "{}"});
  }
  c.messages.push_back(std::move(a));
  for (std::size_t i = 0; i < n; ++i) {
    c.messages.push_back(
        {.role = ocml::role::tool, .call_id = "c" + std::to_string(i), .content = "ok"});
  }
  return c;
}

void BM_RenderParallelCalls(benchmark::State& state) {
  const auto d = static_cast<ocml::dialect>(state.range(0));
  const auto n = static_cast<std::size_t>(state.range(1));
  const auto c = parallel_calls(n);
  for (auto _ : state) {
    auto text = ocml::render(c, {.dialect = d});
    benchmark::DoNotOptimize(text);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
  state.SetLabel(std::string(ocml::dialect_name(d)));
}
BENCHMARK(BM_RenderParallelCalls)
    ->ArgsProduct({benchmark::CreateDenseRange(0, static_cast<int>(ocml::dialect_count) - 1, 1),
                   {1000, 10000, 100000}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
