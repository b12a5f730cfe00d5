// PCML (Pawlette Chat Markup Language): [SYS]/[USR]/[AST]/[OBS] containers with
// key="value"[SEP] metadata, <think>, <tools>, <call>, <end>.
#pragma once

#include <array>
#include <string_view>

#include <memory>
#include <string>
#include <vector>

#include "core/stream_decoder.hpp"
#include "ocml/render.hpp"

namespace ocml::detail::pcml {

enum token_id : std::size_t {
  sys_open,
  sys_close,
  usr_open,
  usr_close,
  ast_open,
  ast_close,
  obs_open,
  obs_close,
  sep,
  think_open,
  think_close,
  call_open,
  call_close,
  end_tag,
  tools_open,
  tools_close,
};
inline constexpr std::array<std::string_view, 16> kTokenNames = {
    "[SYS]", "[/SYS]",  "[USR]",    "[/USR]", "[AST]",   "[/AST]", "[OBS]",   "[/OBS]",
    "[SEP]", "<think>", "</think>", "<call>", "</call>", "<end>",  "<tools>", "</tools>"};
inline const std::vector<std::string> kTokens(kTokenNames.begin(), kTokenNames.end());

/// Escapes a metadata value: backslash and double quote get a backslash.
[[nodiscard]] std::string escape_value(std::string_view v);

result<std::string> render(const conversation& c, const render_options& o,
                           std::vector<diagnostic>* warnings);
std::unique_ptr<stream_decoder> make_decoder(decoder_options o, decoder::sink s);

}  // namespace ocml::detail::pcml
