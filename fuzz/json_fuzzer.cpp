// SPDX-License-Identifier: Apache-2.0
// JSON import: OpenAI, native and harmony shapes never crash; the fast paths (simdjson and
// the batch line reader) agree with the general path whenever they accept (OpenAI reading,
// and OpenAI -> ChatML).
#include "core/message_path.hpp"
#include "dialects/chatml/chatml.hpp"
#include "dialects/qwen3/qwen3.hpp"
#include "fuzz_common.hpp"
#include "interchange/json_path.hpp"
#include "interchange/simd_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto j = ocml::parse_json_text(text);
  for (auto f : {ocml::json_format::automatic, ocml::json_format::openai, ocml::json_format::native,
                 ocml::json_format::harmony}) {
    if (!j.ok()) break;
    auto c = ocml::from_json(*j, f);
    if (c.ok()) {
      (void)ocml::to_native_json(*c);
      (void)ocml::to_openai_json(*c, {});
    }
  }
  auto fast = ocml::detail::read_openai_text(text);
  if (fast.ok() && j.ok()) {
    auto general = ocml::from_openai_json(*j);
    ocml::fuzz::check(general.ok());
    // The fast reader gives the grouped shape, the general one the split shape: compared in
    // the same shape. (Through to_openai_json they may differ: regrouping a split form
    // merges two adjacent assistant messages, which the grouped reading keeps apart.)
    ocml::fuzz::check(ocml::to_native_json(ocml::split_form(*fast)) ==
                      ocml::to_native_json(*general));
  }
  std::string direct;
  std::vector<ocml::diagnostic> warnings;
  const bool took = ocml::detail::chatml::render_openai_text(text, false, direct, warnings);
  // The batch line writer (its own reader, escaping as it renders) may decline more, but
  // what it takes it writes as the JSON string of the same text, with the same warnings.
  ocml::detail::escaped_buffer line;
  std::vector<ocml::diagnostic> line_warnings;
  if (ocml::detail::chatml::render_openai_json_text(text, false, line, line_warnings)) {
    ocml::fuzz::check(took);
    std::string expected;
    ocml::detail::append_json_string(expected, direct, true);
    ocml::fuzz::check("\"" + std::string(line.view()) + "\"" == expected);
    // The same warnings, but for their place: the batch reader records each one's offset
    // (where the path search finds its path), the simdjson reader none.
    ocml::fuzz::check(line_warnings.size() == warnings.size());
    for (std::size_t i = 0; i < warnings.size() && i < line_warnings.size(); ++i) {
      ocml::fuzz::check(line_warnings[i].code == warnings[i].code &&
                        line_warnings[i].message == warnings[i].message);
      const auto at = ocml::detail::json_path_offset(
          text, ocml::detail::leading_path(line_warnings[i].message));
      ocml::fuzz::check(at.has_value() && *at == line_warnings[i].offset);
    }
    // The same reader writing the text itself takes it too, with the same bytes.
    std::string text_direct;
    std::vector<ocml::diagnostic> text_warnings;
    ocml::fuzz::check(
        ocml::detail::chatml::render_openai_line_text(text, false, text_direct, text_warnings));
    ocml::fuzz::check(text_direct == direct && text_warnings == line_warnings);
  } else {
    ocml::fuzz::check(line.size() == 0);
  }
  if (took) {
    ocml::fuzz::check(j.ok());
    auto general = ocml::from_openai_json(*j);
    ocml::fuzz::check(general.ok());
    auto text2 = ocml::render(*general, {.dialect = ocml::dialect::chatml});
    ocml::fuzz::check(text2.ok() && *text2 == direct);
  }
  // Qwen3's one-pass renderer (on the batch reader) writes what the general path renders.
  for (const bool thinking : {true, false}) {
    const ocml::render_options o{.dialect = ocml::dialect::qwen3,
                                 .add_generation_prompt = true,
                                 .enable_thinking = thinking};
    std::string qwen;
    std::vector<ocml::diagnostic> qwen_warnings;
    if (!ocml::detail::qwen3::render_openai_text(text, o, qwen, qwen_warnings)) continue;
    ocml::fuzz::check(j.ok());
    auto general = ocml::from_openai_json(*j);
    ocml::fuzz::check(general.ok());
    auto text3 = ocml::render(*general, o);
    ocml::fuzz::check(text3.ok() && *text3 == qwen);
  }
  return 0;
}
