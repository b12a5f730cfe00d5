// SPDX-License-Identifier: Apache-2.0
// A chat completions request, read and checked: what is rendered, what goes to the engine,
// and the OpenAI-shaped error when it cannot be served.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ocml/json.hpp"
#include "ocml/serve.hpp"

namespace ocml::serve {

/// An error as OpenAI's API writes it: {"error":{"message","type","param","code"}}.
struct api_error {
  int status = 400;
  std::string message;
  std::string type = "invalid_request_error";
  std::string param;  ///< the request field at fault (empty: null)
  std::string code;   ///< (empty: null)
};

/// The body of an error response.
[[nodiscard]] std::string error_body(const api_error& e);

/// An HTTP answer: status and JSON body.
struct answer {
  int status = 200;
  std::string body;
};

/// An error answer: `status` with OpenAI's error body, naming the field `param` (empty: null).
[[nodiscard]] answer refuse(int status, std::string message, std::string param = {});

/// A request that can be served.
struct chat_request {
  std::string render_text;  ///< what is rendered (the body, less `tools` for tool_choice none)
  json tools;               ///< the `tools` offered (null: none), to type call arguments
  bool stream = false;
  bool include_usage = false;  ///< stream_options.include_usage
  std::size_t max_tokens = 0;  ///< max_completion_tokens, else max_tokens, else the default
  std::vector<std::string> stop;
  json sampling = json::object();  ///< temperature, top_p, seed, … passed on to the engine
  std::string model;               ///< the request's `model` (empty when absent)
  std::string reasoning_effort;
  /// The request continues its last message (`continue_final_message`) and says nothing of
  /// the generation prompt: then there is none.
  bool prefill = false;
};

/// Reads and checks `body`. False, with `err` set, when it cannot be served.
[[nodiscard]] bool read_chat_request(std::string_view body, const serve_options& options,
                                     chat_request& out, api_error& err);

}  // namespace ocml::serve
