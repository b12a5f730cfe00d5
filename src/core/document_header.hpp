// SPDX-License-Identifier: Apache-2.0
// The YAML document header of OpenChatML 2.x: parse into the model and render back.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "ocml/model.hpp"

namespace ocml::detail {

struct yaml_error {
  std::string message;
  std::size_t line = 0;  ///< 0-based line within the YAML text.
  std::size_t column = 0;
  bool limit = false;  ///< A resource limit was hit (E-LIMIT-EXCEEDED), not a syntax error.
};

/// Parses YAML text (without fences) into `out`. Returns false and fills `err` on failure.
/// Known keys go to their fields, all others to `out.extra`. Aliases are expanded up to
/// `max_bytes` of text (limits::max_document_header_bytes) and 100 000 nodes.
[[nodiscard]] bool parse_document_header(std::string_view yaml, document_header& out,
                                         yaml_error& err,
                                         std::size_t max_bytes = std::size_t{1} << 20);

/// Renders the header as a fenced YAML block ("---\n...\n---\n"), empty when not present.
[[nodiscard]] std::string render_document_header(const document_header& h);

}  // namespace ocml::detail
