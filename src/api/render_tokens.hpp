// SPDX-License-Identifier: Apache-2.0
// render_examples for a caller that gives its conversation up (render_json_tokens: the
// conversation it read is its own), so that nothing of it is copied.
#pragma once

#include <vector>

#include "ocml/token_render.hpp"

namespace ocml::detail {

/// render_examples(conv, ...) that may move `conv`'s texts away (it is left valid but
/// unspecified). The same examples, diagnostics and errors.
[[nodiscard]] result<std::vector<token_sequence>> render_examples_of(
    conversation&& conv, const render_options& options, const tokenizer& tok,
    const token_render_options& token_options);

}  // namespace ocml::detail
