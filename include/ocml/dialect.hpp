// SPDX-License-Identifier: Apache-2.0
// ocml/dialect.hpp - the markup dialects ocml speaks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace ocml {

/// A markup dialect. Each has one renderer and one streaming decoder.
enum class dialect : std::uint8_t {
  ocml_2_2,  ///< OpenChatML 2.2 (openchatml-2.2.md)
  ocml_2_0,  ///< OpenChatML 2.0 (openchatml-2.0.md)
  harmony,   ///< HIP-1 / gpt-oss, byte-compatible with openai/harmony
  chatml,    ///< Qwen2.5-style ChatML with Hermes tool calls, byte-compatible with its template
  pcml,      ///< Pawlette Chat Markup Language (pcml.md)
  gabgpt,    ///< GabGPT ChatML (gabgpt-chatml.txt)
  ocml_0_1,  ///< OpenChatML 0.1 (openchatml-0.1.md)
  qwen3,     ///< Qwen3 ChatML with Hermes tool calls and <think> reasoning
};

/// How many dialects there are.
inline constexpr std::size_t dialect_count = 8;

/// Facts about one dialect, for `ocml dialects` and documentation.
struct dialect_info {
  ocml::dialect id;
  std::string_view name;                      ///< CLI spelling, e.g. "ocml-2.2"
  std::string_view summary;                   ///< One line.
  std::span<const std::string_view> aliases;  ///< Other accepted spellings.
  std::span<const std::string_view> tokens;   ///< Its control tokens.
  std::span<const std::string_view> stop;     ///< What ends an assistant turn at inference.
};

/// All dialects, in a stable order.
///
///   for (const auto& d : ocml::dialects()) std::cout << d.name << '\n';
[[nodiscard]] std::span<const dialect_info> dialects() noexcept;

/// "ocml-2.2", "ocml-2.0", "harmony".
[[nodiscard]] std::string_view dialect_name(dialect d) noexcept;

/// Inverse of dialect_name (also accepts each dialect's aliases: "openchatml-2.2", "2.2",
/// "gpt-oss", "qwen2.5", …).
[[nodiscard]] std::optional<dialect> parse_dialect(std::string_view s) noexcept;

}  // namespace ocml
