// SPDX-License-Identifier: Apache-2.0
// The two tokenizer file formats, read into a bpe_model.
#pragma once

#include <memory>
#include <string_view>

#include "ocml/error.hpp"
#include "tokens/model.hpp"

namespace ocml::detail {

/// A Hugging Face tokenizer.json. With `tables` (a model whose vocabulary, merges and their
/// indexes the tokenizer cache restored), `text` is the file's configuration alone (its
/// model.vocab and model.merges left out) and is read into `tables`.
[[nodiscard]] result<std::shared_ptr<bpe_model>> load_tokenizer_json(
    std::string_view text, std::shared_ptr<bpe_model> tables = nullptr);

/// A tiktoken rank file with the named encoding's pattern and special tokens
/// ("o200k_base", "o200k_harmony", "cl100k_base"; empty: chosen by the number of ranks).
[[nodiscard]] result<std::shared_ptr<bpe_model>> load_tiktoken(std::string_view text,
                                                               std::string_view encoding);

}  // namespace ocml::detail
