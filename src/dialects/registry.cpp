// SPDX-License-Identifier: Apache-2.0
// The codec registry: one record per dialect. Everything that lists dialects or needs a
// dialect's renderer, decoder, names, tokens, stop strings or features reads it here.
#include <array>

#include "dialects/chatml/chatml.hpp"
#include "dialects/gabgpt/gabgpt.hpp"
#include "dialects/harmony/prompt_origins.hpp"
#include "dialects/ocml01/ocml01.hpp"
#include "dialects/openchatml/render_common.hpp"
#include "dialects/pcml/pcml.hpp"
#include "dialects/qwen3/qwen3.hpp"
#include "dialects/registry.hpp"
#include "ocml/harmony.hpp"

namespace ocml::detail {

namespace {

using sv = std::string_view;

// Aliases, control tokens and stop strings (what ends an assistant turn at inference).
constexpr std::array<sv, 2> k22Alias = {"openchatml-2.2", "2.2"};
constexpr std::array<sv, 2> k20Alias = {"openchatml-2.0", "2.0"};
constexpr std::array<sv, 3> kHarmonyAlias = {"hip-1", "HIP-1", "gpt-oss"};
constexpr std::array<sv, 3> kChatmlAlias = {"qwen2.5", "qwen2", "qwen"};
constexpr std::array<sv, 2> k01Alias = {"openchatml-0.1", "0.1"};
constexpr std::array<sv, 1> kQwen3Alias = {"qwq"};
constexpr std::array<sv, 0> kNoAlias = {};

// The kwargs each dialect reads (codec::kwargs).
constexpr std::array<sv, 3> kHarmonyKwargs = {"reasoning_effort", "current_date",
                                              "auto_drop_analysis"};
constexpr std::array<sv, 1> kQwen3Kwargs = {"enable_thinking"};
constexpr std::array<sv, 2> k01Kwargs = {"bos_token", "eos_token"};

constexpr std::array<sv, 9> k22Tokens = {"<|start|>",     "<|message|>", "<|channel|>",
                                         "<|constrain|>", "<|end|>",     "<|return|>",
                                         "<|call|>",      "<|literal|>", "<|endliteral|>"};
constexpr std::array<sv, 6> k20Tokens = {"<|start|>", "<|message|>", "<|channel|>",
                                         "<|end|>",   "<|return|>",  "<|call|>"};
constexpr std::array<sv, 7> kHarmonyTokens = {"<|start|>",     "<|message|>", "<|channel|>",
                                              "<|constrain|>", "<|end|>",     "<|return|>",
                                              "<|call|>"};
constexpr std::array<sv, 2> kStop2x = {"<|return|>", "<|call|>"};
constexpr std::array<sv, 1> kStopImEnd = {"<|im_end|>"};
constexpr std::array<sv, 1> kStopPcml = {"<end>"};
constexpr std::array<sv, 1> kStopGab = {"<|end|>"};

constexpr std::uint32_t kAll2x = f_system | f_developer | f_tool_replies | f_tool_calls |
                                 f_author_names | f_reasoning | f_builtin_tools;

constexpr std::array<codec, dialect_count> kCodecs = {{
    {.info = {dialect::ocml_2_2, "ocml-2.2",
              "OpenChatML 2.2: YAML header, nine control tokens, call_id/intent, <|constrain|>, "
              "escapes",
              k22Alias, k22Tokens, kStop2x},
     .family = "openchatml",
     .shape = turn_shape::split,
     .holds = kAll2x | f_call_ids | f_intent | f_content_type | f_constrain | f_extra_attributes |
              f_document_header,
     .render = render_split_family,
     .make_decoder = make_openchatml_decoder,
     .reserved_keys = kReservedKeys22,
     .escapes = escape_rule::always,
     .tool_reply_envelope = true},
    {.info = {dialect::ocml_2_0, "ocml-2.0",
              "OpenChatML 2.0: channels, to=/name=, JSON interchange with "
              "thinking/content/tool_calls",
              k20Alias, k20Tokens, kStop2x},
     .family = "openchatml",
     .shape = turn_shape::split,
     .holds = kAll2x | f_document_header,
     .render = render_split_family,
     .make_decoder = make_openchatml_decoder,
     .defined_away = f_call_ids,
     .reasoning_key = "thinking",
     .escapes = escape_rule::always},
    {.info = {dialect::harmony, "harmony",
              "HIP-1 / gpt-oss harmony, byte-compatible with openai/harmony rendering",
              kHarmonyAlias, kHarmonyTokens, kStop2x},
     .family = "openchatml",
     .shape = turn_shape::split,
     .holds = kAll2x | f_content_type | f_constrain,
     .render = render_split_family,
     .make_decoder = make_openchatml_decoder,
     .defined_away = f_call_ids,
     .read_preamble = harmony::read_prompt,
     .kwargs = kHarmonyKwargs,
     .drops_analysis = true,
     .escapes = escape_rule::on_request,
     .preamble = &kHarmonyPreamble},
    {.info = {dialect::chatml, "chatml",
              "Qwen2.5 ChatML with Hermes <tool_call>/<tool_response>, byte-compatible with its "
              "template",
              kChatmlAlias, chatml::kTokenNames, kStopImEnd},
     .family = "chatml",
     .shape = turn_shape::grouped,
     .holds = f_system | f_tool_replies | f_tool_calls | f_tool_definitions,
     .render = chatml::render,
     .make_decoder =
         [](decoder_options o, decoder::sink s) {
           return chatml::make_decoder(std::move(o), std::move(s));
         },
     .defined_away = f_call_ids,
     .read_preamble = chatml::read_default_system,
     .one_pass = &chatml::kOnePass},
    {.info = {dialect::pcml, "pcml",
              "Pawlette Chat Markup Language: [SYS]/[USR]/[AST]/[OBS], <think>, <call>, <end>",
              kNoAlias, pcml::kTokenNames, kStopPcml},
     .family = "pcml",
     .shape = turn_shape::grouped,
     .holds = f_system | f_tool_replies | f_tool_calls | f_call_ids | f_author_names | f_reasoning |
              f_extra_attributes | f_tool_definitions,
     .render = pcml::render,
     .make_decoder = pcml::make_decoder,
     .reserved_keys = pcml::kReservedKeys},
    {.info = {dialect::gabgpt, "gabgpt",
              "GabGPT ChatML: <|user|>, <|think|>, <|assistant|>, <|end|>", kNoAlias,
              gabgpt::kTokenNames, kStopGab},
     .family = "gabgpt",
     .shape = turn_shape::grouped,
     .holds = f_reasoning,
     .render = gabgpt::render,
     .make_decoder = gabgpt::make_decoder,
     .defined_away = f_call_ids,
     .think = &gabgpt::kThinkRound,
     .view = gabgpt::view},
    {.info = {dialect::ocml_0_1, "ocml-0.1",
              "OpenChatML 0.1: [BOS]/[EOS], <|im_start|>, thought blocks, functions, FIM, "
              "multi-file",
              k01Alias, ocml01::kFixedTokenNames, kStopImEnd},
     .family = "ocml-0.1",
     .shape = turn_shape::grouped,
     .holds = f_system | f_tool_replies | f_tool_calls | f_author_names | f_reasoning |
              f_thought_blocks | f_thought_flags | f_tool_definitions | f_documents,
     .render = ocml01::render,
     .make_decoder = ocml01::make_decoder,
     .defined_away = f_call_ids,
     .kwargs = k01Kwargs},
    {.info = {dialect::qwen3, "qwen3",
              "Qwen3 ChatML with Hermes tool calls and <think> reasoning, byte-compatible with "
              "its template",
              kQwen3Alias, chatml::kThinkTokenNames, kStopImEnd},
     .family = "chatml",
     .shape = turn_shape::grouped,
     .holds = f_system | f_tool_replies | f_tool_calls | f_reasoning | f_tool_definitions,
     .render = qwen3::render,
     .make_decoder = qwen3::make_decoder,
     .defined_away = f_call_ids,
     .kwargs = kQwen3Kwargs,
     .one_pass = &qwen3::kOnePass},
}};

constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < kCodecs.size(); ++i) {
    if (static_cast<std::size_t>(kCodecs[i].info.id) != i) return false;
  }
  return true;
}
static_assert(in_enum_order(), "kCodecs must list every dialect once, in enum order");

}  // namespace

std::span<const codec> codecs() noexcept {
  return kCodecs;
}

const codec& codec_of(dialect d) noexcept {
  return kCodecs[static_cast<std::size_t>(d)];
}

}  // namespace ocml::detail
