// SPDX-License-Identifier: Apache-2.0
// Inside render_json: the request's own options and a JSON conversation read for rendering,
// shared by the text renderer and the token renderer.
#pragma once

#include <string_view>
#include <vector>

#include "core/message_path.hpp"
#include "interchange/json_input.hpp"
#include "ocml/json.hpp"

namespace ocml::detail {

/// The options a request carries beside its messages (add_generation_prompt, …) over the
/// caller's, and the JSON shape when the caller left it automatic.
[[nodiscard]] json_render_options request_options_of(std::string_view json_text,
                                                     const json_render_options& in,
                                                     std::vector<diagnostic>* warnings);

/// Applies template kwargs (`chat_template_kwargs`) to a dialect's options: each key the
/// dialect's registry record reads into its one option (`enable_thinking`,
/// `reasoning_effort`, `current_date`, `auto_drop_analysis`, `bos_token`, `eos_token`); any
/// other key is a warning naming it (into `warnings`).
void apply_kwargs(json_render_options& o, const json& kwargs, std::vector<diagnostic>* warnings);

/// A JSON conversation read for rendering: the harmony preamble built for OpenAI input, and
/// what puts diagnostics back into the JSON's terms.
struct prepared_json {
  result<conversation> conv = make_error(error_code::invalid_json, "");
  bool openai = false;
  origin_map preamble;

  void locate(diagnostic& d, std::string_view json_text) const {
    relocate(d, preamble);
    if (openai) to_openai_path(d);
    place_at_path(d, json_text);
  }
};

[[nodiscard]] prepared_json prepare_json(std::string_view json_text,
                                         const json_render_options& options);

}  // namespace ocml::detail
