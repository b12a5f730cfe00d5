// libFuzzer target: one-shot parse vs streaming parse with split points taken from the
// input, for every 2.x dialect in strict and lenient mode. Any difference aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ocml/decoder.hpp"
#include "ocml/render.hpp"

namespace {

ocml::parse_result parse_split(std::string_view text, const ocml::decoder_options& o,
                               std::uint8_t seed) {
  ocml::collector c;
  ocml::decoder d(o, [&c](const ocml::event& e) { c(e); });
  std::size_t pos = 0;
  std::size_t step = 1 + seed % 17;
  while (pos < text.size()) {
    d.push(text.substr(pos, step));
    pos += step;
    step = 1 + (step * 7 + seed) % 23;
  }
  d.finish();
  return c.take();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t seed = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  for (auto d : {ocml::dialect::ocml_2_2, ocml::dialect::harmony}) {
    for (bool lenient : {false, true}) {
      const ocml::decoder_options o{
          .dialect = d, .lenient = lenient, .completion = (seed & 1) != 0};
      const auto whole = ocml::parse(text, o);
      const auto split = parse_split(text, o, seed);
      if (!(whole.conversation == split.conversation) ||
          !(whole.diagnostics == split.diagnostics)) {
        std::abort();
      }
      // What was parsed must render and parse back to itself.
      if (whole.ok() && !lenient) {
        auto again = ocml::render(whole.conversation, {.dialect = d});
        if (again.ok()) {
          const auto back = ocml::parse(*again, o);
          if (!o.completion &&
              back.conversation.messages.size() != whole.conversation.messages.size()) {
            std::abort();
          }
        }
      }
    }
  }
  return 0;
}
