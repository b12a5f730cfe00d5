// SPDX-License-Identifier: Apache-2.0
// Curated response templates: the ones ocml ships for model families whose folders on the
// hub carry no `response_template` (data/response_templates/, docs/response-templates.md).
//
// `-d model:PATH` uses a folder's own response template first; without one it takes the
// first curated template whose fingerprint the chat template matches: every `all` string
// occurs in the chat template's text and no `none` string does.
//
//   for (const auto& t : ocml::curated_templates()) std::cout << t.name << '\n';
//   auto chat = ocml::model_template::from_file("tokenizer_config.json").value();
//   const auto* t = ocml::match_curated(chat.source());  // null: no family matched
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ocml {

/// One curated response template.
struct curated_template {
  std::string name;    ///< "qwen3"
  std::string file;    ///< "qwen3.json", as installed under share/ocml/response_templates
  std::string family;  ///< the models it is for
  std::string source;  ///< its source of truth: the vendor's template or docs, the parsers read
  std::vector<std::string> all;   ///< fingerprint: strings the chat template holds
  std::vector<std::string> none;  ///< and strings it does not
  std::string_view text;          ///< the response template (JSON), held by the library
};

/// Every curated template, in the order they are matched.
///
///   auto n = ocml::curated_templates().size();
[[nodiscard]] const std::vector<curated_template>& curated_templates();

/// The first curated template whose fingerprint `chat_template_text` matches, or null.
///
///   const auto* t = ocml::match_curated("{% ... '<tool_call>' ... '<|im_start|>' ... %}");
[[nodiscard]] const curated_template* match_curated(std::string_view chat_template_text);

/// Why `t` matches `chat_template_text`: the strings found and the ones absent.
///
///   std::string why = ocml::curated_reason(ocml::curated_templates().front());
[[nodiscard]] std::string curated_reason(const curated_template& t);

}  // namespace ocml
