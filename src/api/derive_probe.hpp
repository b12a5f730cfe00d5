// SPDX-License-Identifier: Apache-2.0
// The probe conversations of response-template derivation: rendered by the chat template,
// cut into the prompt a generation continues and the generation, and parsed back.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "interchange/json_util.hpp"
#include "ocml/json.hpp"
#include "ocml/response.hpp"
#include "ocml/template.hpp"

namespace ocml::detail {

/// The end of the JSON object or array that opens at `at` (past its closing bracket), or
/// npos: brackets counted outside strings, no recursion.
[[nodiscard]] std::size_t json_value_end(std::string_view s, std::size_t at);

class probe {
 public:
  static constexpr std::string_view kUser = "ocmlprobeuser";
  static constexpr std::string_view kAnswer = "ocmlprobeanswer";
  static constexpr std::string_view kReason = "ocmlprobereason";
  static constexpr std::string_view kFn = "ocmlprobe_fn";
  static constexpr std::string_view kFn2 = "ocmlprobe_gn";

  struct turn {
    std::string prompt;  // what the generation continues
    std::string body;    // the assistant's generation, through its end marker
  };

  explicit probe(const model_template& chat);
  /// Reads the content probe: the anchor, the end marker and stray markers. False (with
  /// `why`) when the template renders no assistant turn a generation could continue.
  bool read_content(std::string& why);
  [[nodiscard]] std::optional<turn> reasoning_turn() const;
  /// One call (ocmlprobe_fn) or two (ocmlprobe_fn, ocmlprobe_gn), each with one argument.
  [[nodiscard]] std::optional<turn> call_turn(int calls) const;
  /// Round trips of realistic messages; the names of those that held. `failed` names the
  /// first that did not, with what came back.
  std::vector<std::string> verify(const response_template& t, bool reasoning, bool calls,
                                  std::string& failed) const;

  std::string anchor;
  std::string end_marker;
  std::string eos;
  std::vector<std::string> skip;

 private:
  [[nodiscard]] std::optional<std::string> render(const json& messages, const json& tools,
                                                  bool generation_prompt) const;
  [[nodiscard]] std::optional<turn> turn_of(const json& assistant, const json& tools) const;
  const model_template& chat_;
  json tools_;
};

}  // namespace ocml::detail
