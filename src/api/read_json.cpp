// SPDX-License-Identifier: Apache-2.0
// A conversation from JSON text in any of its forms (OpenAI, native, harmony's own), the
// form found by its keys: the job above the readers of each form.
#include "interchange/json_input.hpp"
#include "interchange/json_path.hpp"
#include "interchange/json_util.hpp"
#include "ocml/harmony.hpp"
#include "ocml/json.hpp"

namespace ocml {

result<conversation> from_json(const json& j, json_format format) {
  if (format == json_format::automatic) format = detect_json_format(j);
  switch (format) {
    case json_format::openai:
      return from_openai_json(j);
    case json_format::harmony:
      return harmony::from_conversation_json(j);
    default:
      return from_native_json(j);
  }
}

namespace {

result<conversation> read_json(std::string_view text, json_format& format, bool as_written) {
  auto j = parse_json_text(text);
  if (!j) return j.error();
  if (format == json_format::automatic) format = detect_json_format(*j);
  auto c = as_written && format == json_format::openai
               ? detail::read_openai_grouped(j->is_array() ? json{{"messages", *j}} : *j)
               : from_json(*j, format);
  if (c) return c;
  diagnostic d = c.error();
  const std::string_view path = detail::leading_json_path(d.message);
  if (const auto at = path.empty() ? std::nullopt : detail::json_path_offset(text, path)) {
    d = detail::error_at(d.code, text, *at, d.message);
  }
  return d;
}

}  // namespace

result<conversation> read_conversation_json(std::string_view text, json_format& format) {
  return read_json(text, format, false);
}

result<conversation> detail::read_conversation_as_written(std::string_view text,
                                                          json_format& format) {
  return read_json(text, format, true);
}

}  // namespace ocml
