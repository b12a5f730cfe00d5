// SPDX-License-Identifier: Apache-2.0
// Pieces shared by the 2.x-family renderers (ocml-2.2, ocml-2.0, harmony).
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include <memory>

#include "core/message_path.hpp"
#include "core/stream_decoder.hpp"
#include "ocml/error.hpp"
#include "ocml/model.hpp"
#include "ocml/render.hpp"

namespace ocml::detail {

/// Header keys OpenChatML 2.2 reads into the message: extras by these names are not written.
inline constexpr std::array<std::string_view, 5> kReservedKeys22 = {"to", "call_id", "name",
                                                                    "intent", "content_type"};

/// Header attribute values and role words must be non-empty and hold no whitespace,
/// no '<|' and no '=' in keys, or re-parsing would split them. Returns an error text
/// ("messages[INDEX].FIELD: WHAT 'V' ...") or "".
[[nodiscard]] std::string check_header_value(std::string_view field, std::string_view what,
                                             std::string_view v, std::size_t index);

/// The stop token spelling for a message, choosing the dialect default when unspecified.
[[nodiscard]] std::string_view stop_token_text(end_token e);

/// Messages the harmony rule keeps: analysis before the first final is dropped when
/// the last assistant message is final.
[[nodiscard]] std::vector<const message*> messages_to_render(const conversation& c,
                                                             bool drop_analysis);
/// The same for the conversation of the first `n` of `ms`.
[[nodiscard]] std::vector<const message*> messages_to_render(const std::vector<message>& ms,
                                                             std::size_t n, bool drop_analysis);

/// Appends a warning about a feature a dialect cannot hold.
void warn_dropped(std::vector<diagnostic>* warnings, std::string_view path, std::string_view what,
                  std::string_view dialect);

[[nodiscard]] result<std::string> render_openchatml(const conversation& c, const render_options& o,
                                                    std::vector<diagnostic>* warnings);
[[nodiscard]] result<std::string> render_harmony(const conversation& c, const render_options& o,
                                                 std::vector<diagnostic>* warnings);
/// The token that ends message `m` in harmony: <|return|> for a final answer that ends a
/// training text (`sampled_last`), <|call|> for a call, else <|end|>.
[[nodiscard]] std::string_view harmony_end(const message& m, bool sampled_last);

/// render_harmony, noting in `ends` (when given; resized to c.messages.size()) the text's
/// size after each message: a message's text depends only on the messages before it, so
/// the text of the first i + 1 messages without training's <|return|> is the first
/// ends[i] bytes (a message the drop rule left out ends where the one before it did).
[[nodiscard]] result<std::string> render_harmony_marked(const conversation& c,
                                                        const render_options& o,
                                                        std::vector<diagnostic>* warnings,
                                                        std::vector<std::size_t>* ends);

/// The family's codec entries: calls and reasoning written inside messages are split into
/// messages of their own first; `o.dialect` picks 2.2/2.0 or harmony.
[[nodiscard]] result<std::string> render_split_family(const conversation& c,
                                                      const render_options& o,
                                                      std::vector<diagnostic>* warnings);
std::unique_ptr<stream_decoder> make_openchatml_decoder(decoder_options o, decoder::sink s);

/// Appends `text` to `out` as escape_body writes it (no copy of its own).
void escape_body_into(std::string& out, std::string_view text);

}  // namespace ocml::detail
