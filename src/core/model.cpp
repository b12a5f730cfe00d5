#include <array>

#include "ocml/dialect.hpp"
#include "ocml/model.hpp"

namespace ocml {

namespace {
constexpr std::array<std::string_view, 5> kRoles = {"system", "developer", "user", "assistant",
                                                    "tool"};
constexpr std::array<std::string_view, 5> kEnds = {"", "end", "return", "call", "unterminated"};
constexpr std::array<dialect_info, 7> kDialects = {{
    {dialect::ocml_2_2, "ocml-2.2",
     "OpenChatML 2.2: YAML header, nine control tokens, call_id/intent, <|constrain|>, escapes"},
    {dialect::ocml_2_0, "ocml-2.0",
     "OpenChatML 2.0: channels, to=/name=, JSON interchange with thinking/content/tool_calls"},
    {dialect::harmony, "harmony",
     "HIP-1 / gpt-oss harmony, byte-compatible with openai/harmony rendering"},
    {dialect::chatml, "chatml",
     "Qwen2.5 ChatML with Hermes <tool_call>/<tool_response>, byte-compatible with its template"},
    {dialect::pcml, "pcml",
     "Pawlette Chat Markup Language: [SYS]/[USR]/[AST]/[OBS], <think>, <call>, <end>"},
    {dialect::gabgpt, "gabgpt", "GabGPT ChatML: <|user|>, <|think|>, <|assistant|>, <|end|>"},
    {dialect::ocml_0_1, "ocml-0.1",
     "OpenChatML 0.1: [BOS]/[EOS], <|im_start|>, thought blocks, functions, FIM, multi-file"},
}};
}  // namespace

std::string_view role_name(role r) noexcept {
  return kRoles[static_cast<std::size_t>(r)];
}

std::optional<role> parse_role(std::string_view s) noexcept {
  for (std::size_t i = 0; i < kRoles.size(); ++i) {
    if (kRoles[i] == s) return static_cast<role>(i);
  }
  return std::nullopt;
}

std::string_view end_name(end_token e) noexcept {
  return kEnds[static_cast<std::size_t>(e)];
}

std::optional<end_token> parse_end(std::string_view s) noexcept {
  for (std::size_t i = 1; i < kEnds.size(); ++i) {
    if (kEnds[i] == s) return static_cast<end_token>(i);
  }
  return std::nullopt;
}

std::span<const dialect_info> dialects() noexcept {
  return kDialects;
}

std::string_view dialect_name(dialect d) noexcept {
  return kDialects[static_cast<std::size_t>(d)].name;
}

std::optional<dialect> parse_dialect(std::string_view s) noexcept {
  for (const auto& d : kDialects) {
    if (d.name == s) return d.id;
  }
  if (s == "openchatml-2.2" || s == "2.2") return dialect::ocml_2_2;
  if (s == "openchatml-2.0" || s == "2.0") return dialect::ocml_2_0;
  if (s == "openchatml-0.1" || s == "0.1") return dialect::ocml_0_1;
  if (s == "hip-1" || s == "HIP-1" || s == "gpt-oss") return dialect::harmony;
  if (s == "qwen" || s == "qwen2.5" || s == "hermes") return dialect::chatml;
  return std::nullopt;
}

}  // namespace ocml
