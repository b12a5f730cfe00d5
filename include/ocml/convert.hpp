// SPDX-License-Identifier: Apache-2.0
// ocml/convert.hpp - moving conversations between the shapes and dialects ocml speaks.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ocml/decoder.hpp"
#include "ocml/dialect.hpp"
#include "ocml/error.hpp"
#include "ocml/model.hpp"

namespace ocml {

/// The 2.x/harmony shape: one channel per message, reasoning as `analysis` messages, each
/// tool call its own assistant message with `recipient` and `call_id`. Messages that embed
/// reasoning or tool calls are expanded; everything else is kept as it is.
///
///   auto c2 = ocml::split_form(pcml_conversation);  // ready for the ocml-2.2 renderer
[[nodiscard]] conversation split_form(const conversation& c);

/// The OpenAI shape: one assistant message per turn holding `reasoning`, `content` and
/// `tool_calls`; tool replies carry `call_id`. Channels are dropped (the shape has none).
///
///   auto g = ocml::grouped_form(parsed_harmony);  // ready for PCML or ChatML
[[nodiscard]] conversation grouped_form(const conversation& c);

/// `c` itself when it is already in the grouped shape, else grouped_form(c) kept in
/// `storage` (saves a copy on the hot path).
[[nodiscard]] const conversation& as_grouped(const conversation& c, conversation& storage);

/// Whether a dialect writes reasoning and tool calls inside messages (grouped shape).
[[nodiscard]] bool uses_grouped_form(dialect d) noexcept;

/// What `c`, parsed from dialect `from`, means without `from`'s own boilerplate: harmony's
/// system and developer preamble becomes the instructions (a system message) and the
/// `tools` it declares; other dialects' conversations come back as they are. convert()
/// and `parse --openai` go through it, so they carry meaning, not markup.
///
///   auto plain = ocml::plain_meaning(parsed.conversation, ocml::dialect::harmony);
[[nodiscard]] conversation plain_meaning(const conversation& c, dialect from);

/// One warning per feature of `c` that dialect `d` cannot hold, naming the feature and
/// the first message that uses it (E-RENDER-UNREPRESENTABLE, severity warning).
///
///   for (const auto& w : ocml::unrepresentable_features(conv, ocml::dialect::chatml))
///     std::cerr << w.to_string() << '\n';
[[nodiscard]] std::vector<diagnostic> unrepresentable_features(const conversation& c, dialect d);

/// The same for any target (a model format: ocml::format::holds()), named `target` in the
/// warnings: each feature of `c` not in `holds`.
///
///   auto f = ocml::format::find("model:models/Llama-3.1-8B-Instruct");
///   auto ws = ocml::unrepresentable_features(conv, f->name(), f->holds());
[[nodiscard]] std::vector<diagnostic> unrepresentable_features(const conversation& c,
                                                               std::string_view target,
                                                               std::span<const std::string> holds);

/// The features dialect `d` can hold (the names unrepresentable_features uses: "system
/// messages", "tool calls", "reasoning", …), in a stable order.
///
///   for (const auto f : ocml::dialect_holds(ocml::dialect::chatml)) std::cout << f << '\n';
[[nodiscard]] std::vector<std::string_view> dialect_holds(dialect d);

/// How to convert markup from one dialect to another.
struct convert_options {
  dialect from = dialect::ocml_2_2;
  dialect to = dialect::ocml_2_2;
  /// Read the input leniently (recover from malformed model output, with warnings).
  bool lenient = false;
  /// Fail (errors instead of warnings) when the target cannot hold a feature of the input.
  bool strict = false;
};

/// The outcome of convert(): the text in the target dialect (empty on failure) and every
/// diagnostic from parsing, the feature check and rendering.
struct convert_result {
  std::string text;
  std::vector<diagnostic> diagnostics;
  [[nodiscard]] bool ok() const noexcept;
};

/// Parses `text` in `from` and renders it in `to`; what `to` cannot represent is reported
/// (never dropped silently).
///
///   auto r = ocml::convert(pcml_text, {.from = ocml::dialect::pcml, .to = ocml::dialect::chatml});
[[nodiscard]] convert_result convert(std::string_view text, const convert_options& options);

}  // namespace ocml
