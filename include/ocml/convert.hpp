// ocml/convert.hpp - moving conversations between the shapes and dialects ocml speaks.
#pragma once

#include <vector>

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

/// Whether a dialect writes reasoning and tool calls inside messages (grouped shape).
[[nodiscard]] bool uses_grouped_form(dialect d) noexcept;

}  // namespace ocml
