// SPDX-License-Identifier: Apache-2.0
// Decoder throughput: one-shot parse, and streaming at 16-byte chunks for growing messages
// (bytes/second must stay flat: O(1) work per byte).
#include <benchmark/benchmark.h>

#include "corpus.hpp"
#include "ocml/decoder.hpp"

namespace {

void BM_ValidateOneShot(benchmark::State& state) {
  const std::string text =
      ocml::bench::make_transcript(static_cast<std::size_t>(state.range(0)) << 20);
  for (auto _ : state) {
    std::size_t events = 0;
    ocml::decoder d({}, [&events](const ocml::event&) { ++events; });
    d.push(text);
    d.finish();
    benchmark::DoNotOptimize(events);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ValidateOneShot)->Arg(8)->Unit(benchmark::kMillisecond);

void BM_ParseOneShot(benchmark::State& state) {
  const std::string text =
      ocml::bench::make_transcript(static_cast<std::size_t>(state.range(0)) << 20);
  for (auto _ : state) {
    auto r = ocml::parse(text, {});
    benchmark::DoNotOptimize(r.conversation.messages.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParseOneShot)->Arg(8)->Unit(benchmark::kMillisecond);

void BM_Stream16ByteChunks(benchmark::State& state) {
  const std::string text =
      ocml::bench::make_single_message(static_cast<std::size_t>(state.range(0)) << 20);
  for (auto _ : state) {
    std::size_t bytes = 0;
    ocml::decoder d({}, [&bytes](const ocml::event& e) { bytes += e.text.size(); });
    for (std::size_t i = 0; i < text.size(); i += 16) d.push(std::string_view(text).substr(i, 16));
    d.finish();
    benchmark::DoNotOptimize(bytes);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_Stream16ByteChunks)->Arg(2)->Arg(4)->Arg(8)->Arg(16)->Unit(benchmark::kMillisecond);

}  // namespace
