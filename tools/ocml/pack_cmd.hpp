// SPDX-License-Identifier: Apache-2.0
// `ocml pack`: training examples (render --ids --training --jsonl lines) packed into rows of
// a sequence length, written as JSONL, NumPy .npy or a Megatron indexed dataset.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace ocml::cli {

struct pack_args {
  std::string file = "-";
  std::size_t seq_len = 0;
  std::string format = "jsonl";  ///< jsonl, npy, megatron
  std::string output;            ///< jsonl: a file (default stdout); npy, megatron: a prefix
  std::int32_t pad_id = 0;
};

/// Adds `pack` to `app`.
CLI::App* add_pack_command(CLI::App& app, pack_args& a);

int run_pack(const pack_args& a);

}  // namespace ocml::cli
