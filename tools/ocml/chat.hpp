// SPDX-License-Identifier: Apache-2.0
// `ocml chat`: user turns from standard input, the model over HTTP, tools as commands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ocml/dialect.hpp"

namespace ocml::cli {

struct chat_args {
  ocml::dialect dialect = dialect::ocml_2_2;
  /// -d model:PATH: the model's own templates (a tokenizer_config.json) instead of a dialect.
  std::string model_format;
  std::string endpoint;
  std::string model;
  std::string api_key;
  std::vector<std::string> tools;  ///< NAME=COMMAND
  std::string tools_file;          ///< OpenAI tools JSON (schemas, descriptions)
  std::string system;
  bool show_reasoning = false;
  bool think = false;            ///< GabGPT think mode
  std::string reasoning_effort;  ///< harmony: low, medium, high (empty: harmony's default)
  /// Sent as each request's max_tokens (0: none sent, the engine's default, which is 16 in
  /// vLLM's completions API). The default fits a reasoning model's answer.
  std::size_t max_tokens = 8192;
  /// Tool-call ids the model did not write are random (OpenAI's call_ shape); a seed makes
  /// them reproducible.
  std::optional<std::uint64_t> seed;
  std::size_t budget = 0;  ///< prompt budget in bytes, or tokens with a tokenizer (0: none)
  /// Token mode: prompts go to the engine as IDs of this tokenizer.json or .tiktoken file,
  /// its sampled IDs come back, and each generation stops on the stop-token IDs.
  std::string tokenizer;
  std::string encoding;  ///< .tiktoken: o200k_base, o200k_harmony, cl100k_base
  unsigned max_rounds = 8;
  /// Bytes of one completion at most: an engine that streams without end is cut off.
  std::size_t max_bytes = std::size_t{4} << 20;
  /// Tool calls run per round at most; the rest are answered with E-LIMIT-EXCEEDED.
  std::size_t max_tool_calls = 32;
};

/// Runs the agent loop; 0 when every turn ended in an answer, 1 otherwise, 2 usage error.
int run_chat(const chat_args& a);

/// `ocml chat ARGS…`: runs the ocml-chat program that sits beside this executable (or, if
/// there is none, the one on PATH) with ARGS; `argv[0]` is "chat". Returns only on failure
/// (2, with the reason on standard error).
int run_chat_program(int argc, char** argv);

/// `ocml NAME ARGS…`: runs `program` (beside this executable, else on PATH) with ARGS, as
/// run_chat_program does for ocml-chat.
int run_sibling(std::string program, int argc, char** argv);

}  // namespace ocml::cli
