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

}  // namespace
