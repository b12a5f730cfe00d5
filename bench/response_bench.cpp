// SPDX-License-Identifier: Apache-2.0
// Response templates: ocml's executor with tests/response/templates/qwen3.json against ocml's
// native Qwen3 decoder on the same generation (thinking, text, many JSON tool calls), whole
// and at 16-byte pushes, for growing sizes (bytes/second must stay flat).
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>

#include "ocml/decoder.hpp"
#include "ocml/response.hpp"

namespace {

std::string generation(std::size_t bytes) {
  std::string s = "<think>\n";
  while (s.size() < bytes / 4) s += "The user wants the weather; I should call the tool. ";
  s += "\n</think>\n\nLet me look that up for you.\n";
  for (int i = 0; s.size() < bytes; ++i) {
    s += "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"day\": " +
         std::to_string(i) +
         ", \"note\": \"caf\xc3\xa9 \\\"au lait\\\" \xe6\x97\xa5\"}}\n</tool_call>\n";
  }
  s += "<|im_end|>";
  return s;
}

const ocml::response_template& qwen3() {
  static const ocml::response_template t = [] {
    auto r = ocml::response_template::from_file(std::string(OCML_SOURCE_DIR) +
                                                "/tests/response/templates/qwen3.json");
    if (!r) std::abort();
    return *r;
  }();
  return t;
}

void BM_ResponseTemplate(benchmark::State& state) {
  const std::string text = generation(static_cast<std::size_t>(state.range(0)) << 20);
  const std::size_t chunk = static_cast<std::size_t>(state.range(1));
  for (auto _ : state) {
    std::size_t events = 0;
    ocml::response_parser p(qwen3(), {.prefix = "<|im_start|>assistant\n"},
                            [&events](const ocml::response_event&) { ++events; });
    if (chunk == 0) {
      p.push(text);
    } else {
      for (std::size_t i = 0; i < text.size(); i += chunk) {
        p.push(std::string_view(text).substr(i, chunk));
      }
    }
    auto m = p.finish();
    benchmark::DoNotOptimize(m);
    benchmark::DoNotOptimize(events);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ResponseTemplate)
    ->Args({2, 0})
    ->Args({8, 0})
    ->Args({2, 16})
    ->Args({8, 16})
    ->Unit(benchmark::kMillisecond);

void BM_NativeQwen3(benchmark::State& state) {
  const std::string text = generation(static_cast<std::size_t>(state.range(0)) << 20);
  const std::size_t chunk = static_cast<std::size_t>(state.range(1));
  const ocml::decoder_options o{
      .dialect = ocml::dialect::qwen3, .completion = true, .think = ocml::think_start::detect};
  for (auto _ : state) {
    if (chunk == 0) {
      auto r = ocml::parse(text, o);
      benchmark::DoNotOptimize(r.conversation.messages.data());
    } else {
      std::size_t events = 0;
      ocml::decoder d(o, [&events](const ocml::event&) { ++events; });
      for (std::size_t i = 0; i < text.size(); i += chunk) {
        d.push(std::string_view(text).substr(i, chunk));
      }
      d.finish();
      benchmark::DoNotOptimize(events);
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_NativeQwen3)
    ->Args({2, 0})
    ->Args({8, 0})
    ->Args({2, 16})
    ->Args({8, 16})
    ->Unit(benchmark::kMillisecond);

}  // namespace
