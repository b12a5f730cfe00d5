// SPDX-License-Identifier: Apache-2.0
// A response template derived from a model's chat template: render probe conversations that
// differ in one thing (reasoning or not, content or a call, one call or two, one argument
// or two), diff the renderings to find the markers, write a transformers-form
// `response_template`, and verify it by round trip (probe messages rendered by the chat
// template and parsed back must be the same messages). docs/response-templates.md.
//
//   auto chat = ocml::model_template::from_file("tokenizer_config.json").value();
//   auto d = ocml::derive_response_template(chat);
//   if (d) std::cout << ocml::dump_json(d->response_template, 2);
//   else std::cerr << d.error().message;  // which probe failed, or what was not found
#pragma once

#include <string>
#include <vector>

#include "ocml/error.hpp"
#include "ocml/json.hpp"

namespace ocml {

class model_template;

/// What derivation found and checked.
struct derived_template {
  json response_template;          ///< transformers' form (and ocml's x-ocml-* keys)
  std::vector<std::string> found;  ///< one line per marker found ("reasoning: <think> … </think>")
  std::vector<std::string> verified;  ///< the probes that round-tripped
  /// The same template without ocml's `x-ocml-*` keys (transformers' loader refuses them),
  /// when it verifies as well; null when the syntax needs an extension (a call that ends
  /// where its JSON ends, stray markers around the content).
  json portable;
};

/// Derives and verifies a response template. Errors: E-RESPONSE-TEMPLATE naming what was
/// not found or the probe whose round trip failed (and how).
///
///   auto d = ocml::derive_response_template(ocml::model_template::from_text("...").value());
[[nodiscard]] result<derived_template> derive_response_template(const model_template& chat);

}  // namespace ocml
