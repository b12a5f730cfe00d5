// SPDX-License-Identifier: Apache-2.0
// PCML (Pawlette Chat Markup Language): [SYS]/[USR]/[AST]/[OBS] containers with
// key="value"[SEP] metadata, <think>, <tools>, <call>, <end>.
#pragma once

#include <array>
#include <string_view>

#include <memory>
#include <string>
#include <vector>

#include <cctype>
#include <cstdint>

#include "core/scan.hpp"
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
/// Metadata keys PCML reads into the message: extras by these names are not written.
inline constexpr std::array<std::string_view, 2> kReservedKeys = {"name", "id"};

// Incremental recogniser of `key="value" key2="v"` (the metadata before [SEP]).
class meta_scanner {
 public:
  enum class status : std::uint8_t { ok, invalid };
  void reset() {
    st_ = s::key_start;
    bad_ = false;
  }
  // Feeds text; returns invalid once the text cannot be metadata.
  status feed(std::string_view t) {
    for (char c : t) {
      if (bad_) break;
      const auto u = static_cast<unsigned char>(c);
      switch (st_) {
        case s::key_start:
          if (is_space(c)) break;
          if (std::isalpha(u) || c == '_') {
            st_ = s::key;
          } else {
            bad_ = true;
          }
          break;
        case s::key:
          if (c == '=') {
            st_ = s::eq;
          } else if (!(std::isalnum(u) || c == '_' || c == '-')) {
            bad_ = true;
          }
          break;
        case s::eq:
          if (c == '"') {
            st_ = s::value;
          } else {
            bad_ = true;
          }
          break;
        case s::value:
          if (c == '\\') st_ = s::escape;
          if (c == '"') st_ = s::after;
          break;
        case s::escape:
          st_ = s::value;
          break;
        case s::after:
          if (is_space(c)) {
            st_ = s::key_start;
          } else {
            bad_ = true;
          }
          break;
      }
    }
    return bad_ ? status::invalid : status::ok;
  }
  [[nodiscard]] bool in_value() const { return st_ == s::value || st_ == s::escape; }
  [[nodiscard]] bool complete() const { return !bad_ && (st_ == s::key_start || st_ == s::after); }

 private:
  enum class s : std::uint8_t { key_start, key, eq, value, escape, after };
  s st_ = s::key_start;
  bool bad_ = false;
};

/// Escapes a metadata value: backslash and double quote get a backslash.
[[nodiscard]] std::string escape_value(std::string_view v);

result<std::string> render(const conversation& c, const render_options& o,
                           std::vector<diagnostic>* warnings);
std::unique_ptr<stream_decoder> make_decoder(decoder_options o, decoder::sink s);

}  // namespace ocml::detail::pcml
