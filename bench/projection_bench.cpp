// SPDX-License-Identifier: Apache-2.0
// Event projection cost per token: a completion streamed one ~4-byte token at a time
// through the decoder, the projection and a JSON writer. The time per token must stay
// flat as the message grows (O(1) per token, nothing re-parsed).
#include <benchmark/benchmark.h>

#include <string>

#include "ocml/decoder.hpp"
#include "ocml/events.hpp"

namespace {

// A harmony completion: analysis then a final answer of `tokens` tokens, as token strings.
std::vector<std::string> completion_tokens(std::size_t tokens) {
  std::vector<std::string> out = {"<|channel|>", "analysis",   "<|message|>", "Think",
                                  "<|end|>",     "<|start|>",  "assistant",   "<|channel|>",
                                  "final",       "<|message|>"};
  const char* words[] = {" the", " cat", " sat", " é", " 日本", "\n\n", " on", " a"};
  for (std::size_t i = 0; i < tokens; ++i) out.emplace_back(words[i % 8]);
  out.emplace_back("<|return|>");
  return out;
}

template <typename Writer>
void run_projection(benchmark::State& state, Writer& writer_of) {
  const auto tokens = completion_tokens(static_cast<std::size_t>(state.range(0)));
  std::size_t out_bytes = 0;
  for (auto _ : state) {
    auto writer = writer_of([&out_bytes](std::string_view s) { out_bytes += s.size(); });
    ocml::projection p({}, [&writer](const ocml::delta& d) { writer(d); });
    ocml::decoder dec({.dialect = ocml::dialect::harmony, .completion = true},
                      [&p](const ocml::event& e) { p(e); });
    for (const auto& t : tokens) dec.push(t);
    dec.finish();
    p.finish();
    writer.finish(p.natural_finish());
  }
  benchmark::DoNotOptimize(out_bytes);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * tokens.size()));
  state.counters["ns_per_token"] = benchmark::Counter(
      static_cast<double>(state.iterations() * tokens.size()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert, benchmark::Counter::kIs1000);
}

void BM_ProjectOpenAIChunks(benchmark::State& state) {
  auto make = [](auto sink) { return ocml::openai_chunk_writer({}, sink); };
  run_projection(state, make);
}
BENCHMARK(BM_ProjectOpenAIChunks)->RangeMultiplier(10)->Range(100, 100000);

void BM_ProjectOcmlEvents(benchmark::State& state) {
  auto make = [](auto sink) { return ocml::ocml_event_writer(sink); };
  run_projection(state, make);
}
BENCHMARK(BM_ProjectOcmlEvents)->RangeMultiplier(10)->Range(100, 100000);

// The decoder alone, for the share the projection adds.
void BM_DecodeOnly(benchmark::State& state) {
  const auto tokens = completion_tokens(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    std::size_t n = 0;
    ocml::decoder dec({.dialect = ocml::dialect::harmony, .completion = true},
                      [&n](const ocml::event& e) { n += e.text.size(); });
    for (const auto& t : tokens) dec.push(t);
    dec.finish();
    benchmark::DoNotOptimize(n);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * tokens.size()));
}
BENCHMARK(BM_DecodeOnly)->RangeMultiplier(10)->Range(100, 100000);

}  // namespace
