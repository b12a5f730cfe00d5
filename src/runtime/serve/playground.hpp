// SPDX-License-Identifier: Apache-2.0
// The playground's API (the page at / calls it): the formats a page may pick, a conversation
// rendered (text, control tokens, token IDs), and a completion parsed (the messages, what a
// user sees, every event with its span, every diagnostic with its position).
#pragma once

#include <string_view>

#include "ocml/serve.hpp"
#include "runtime/serve/tokenize.hpp"

namespace ocml::serve {

/// GET /ocml/formats: the built-in dialects and the served format, each with its control
/// tokens; the served model's response template and why (`response_source`).
[[nodiscard]] answer playground_formats(const serve_options& o);
/// POST /ocml/render {"format", "request": {messages, tools, …}, "add_generation_prompt"}:
/// {"text", "control": [strings], "tokens": [{"id", "text", "special"}] (with a tokenizer),
/// "diagnostics"}.
[[nodiscard]] answer playground_render(const serve_options& o, std::string_view body);
/// POST /ocml/parse {"format", "text", "prefix"?, "tools"?}: the completion read leniently,
/// as `ocml parse --completion --lenient` reads it: {"messages" (OpenAI form), "view" (what a
/// user sees), "debug_view" (everything, marked shown or hidden), "events" (each with its
/// span), "diagnostics", "response_source"}.
[[nodiscard]] answer playground_parse(const serve_options& o, std::string_view body);

}  // namespace ocml::serve
