// SPDX-License-Identifier: Apache-2.0
// The chat-template engine: any template text with any variables compiles or fails with
// E-TEMPLATE-SYNTAX, and renders within its limits or fails with one of the E-TEMPLATE-*
// codes or E-LIMIT-EXCEEDED: never a crash, a hang or an E-INTERNAL. Input: template text,
// then "\n---\n", then the variables as JSON (a message list stands in when they are not).
#include "fuzz_common.hpp"
#include "interchange/json_util.hpp"
#include "ocml/template.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const std::size_t sep = in.find("\n---\n");
  const std::string_view source = in.substr(0, sep);
  ocml::json vars;
  if (sep != std::string_view::npos) {
    if (auto j = ocml::detail::try_parse_json(in.substr(sep + 5)); j && j->is_object()) {
      vars = std::move(*j);
    }
  }
  if (!vars.is_object()) {
    vars = {
        {"messages",
         {{{"role", "user"}, {"content", "hi"}}, {{"role", "assistant"}, {"content", nullptr}}}},
        {"add_generation_prompt", true},
        {"bos_token", "<s>"}};
  }
  auto t = ocml::chat_template::compile(source);
  if (!t) {
    ocml::fuzz::check(t.error().code == ocml::error_code::template_syntax);
    return 0;
  }
  const ocml::template_limits limits{
      .max_output = 1 << 16, .max_steps = 20000, .max_depth = 30, .max_value = 1 << 20};
  auto r = t->render(vars, {.now = "2026-01-15T10:30:00", .limits = limits});
  if (r) {
    ocml::fuzz::check(r->size() <= limits.max_output);
    return 0;
  }
  const auto c = r.error().code;
  ocml::fuzz::check(
      c == ocml::error_code::template_raised || c == ocml::error_code::template_undefined ||
      c == ocml::error_code::template_type || c == ocml::error_code::template_security ||
      c == ocml::error_code::limit_exceeded);
  return 0;
}
