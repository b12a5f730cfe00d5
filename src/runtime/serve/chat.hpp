// SPDX-License-Identifier: Apache-2.0
// One chat completion: the prompt rendered, the engine run under the format's stop rules,
// the completion decoded, and the response in OpenAI's form.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ocml/error.hpp"
#include "ocml/events.hpp"
#include "ocml/generate.hpp"
#include "ocml/json.hpp"
#include "ocml/serve.hpp"
#include "runtime/serve/request.hpp"

namespace ocml::serve {

/// The prompt of `r` in the server's format (with the generation prompt). False, with a
/// 400 `err` naming the JSON path, when the request cannot be rendered; the warnings (fields
/// the format cannot hold) are added to `warnings`.
[[nodiscard]] bool render_prompt(const serve_options& o, const chat_request& r, std::string& prompt,
                                 std::vector<diagnostic>& warnings, api_error& err);

/// How a generation went.
struct chat_outcome {
  finish_reason finish = finish_reason::none;
  json message;  ///< The assistant's message in OpenAI form (content, reasoning, tool calls).
  std::vector<diagnostic> diagnostics;
  std::optional<std::size_t> prompt_tokens, completion_tokens;  ///< with a tokenizer
  std::size_t completion_bytes = 0;
};

/// Runs the engine on `prompt`; deltas reach `on_delta` as the completion streams.
[[nodiscard]] chat_outcome run_chat(const serve_options& o, const chat_request& r,
                                    const std::string& prompt, cancellation& cancel,
                                    const std::function<void(const delta&)>& on_delta);

/// The `usage` object (null when nothing was counted).
[[nodiscard]] json usage_json(const chat_outcome& c);

/// "stop", "tool_calls", "length" (OpenAI's); cancelled and error are not finish reasons.
[[nodiscard]] std::string openai_finish(finish_reason f);

/// The first error of the engine's (E-ENGINE and the like), if the generation failed on it.
[[nodiscard]] std::optional<diagnostic> engine_failure(const chat_outcome& c);

}  // namespace ocml::serve
