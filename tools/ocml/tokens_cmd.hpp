// SPDX-License-Identifier: Apache-2.0
// `ocml tokens encode|decode`: text to token IDs and back with a tokenizer file.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "ocml/dialect.hpp"
#include "ocml/error.hpp"
#include "ocml/tokens.hpp"
#include "token_ids.hpp"

namespace ocml::cli {

struct tokens_args {
  std::string tokenizer;  ///< tokenizer.json or .tiktoken file
  std::string encoding;   ///< for .tiktoken: o200k_base, o200k_harmony, cl100k_base
  std::string special = "all";
  bool jsonl = false;
  std::string file = "-";
  ocml::dialect dialect = ocml::dialect::harmony;  ///< check, extend
  std::string output = "-";                        ///< extend
};

/// Adds `tokens` with its `encode` and `decode` subcommands to `app`.
struct tokens_commands {
  CLI::App* tokens = nullptr;
  CLI::App* encode = nullptr;
  CLI::App* decode = nullptr;
  CLI::App* check = nullptr;
  CLI::App* extend = nullptr;
};
tokens_commands add_tokens_commands(CLI::App& app, tokens_args& a);

int run_tokens_encode(const tokens_args& a);
int run_tokens_decode(const tokens_args& a);
int run_tokens_check(const tokens_args& a);
int run_tokens_extend(const tokens_args& a);

}  // namespace ocml::cli
