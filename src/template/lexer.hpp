// SPDX-License-Identifier: Apache-2.0
// The template lexer: Jinja2's, configured as transformers configures it (trim_blocks,
// lstrip_blocks, no trailing newline kept, "\r\n" and "\r" read as "\n").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ocml::tmpl {

enum class tok : unsigned char {
  data,         // template text
  var_begin,    // {{
  var_end,      // }}
  block_begin,  // {%
  block_end,    // %}
  name,
  string,   // text: the unescaped value
  integer,  // text: the digits
  number,   // float; text: the literal
  op,       // text: the operator
  eof,
};

struct token {
  tok kind;
  std::string text;
  std::size_t pos;  // byte offset in the normalized source
};

/// The normalized source (newlines) and its tokens; throws template_error
/// (E-TEMPLATE-SYNTAX) with a position.
struct lexed {
  std::string source;
  std::vector<token> tokens;
};
[[nodiscard]] lexed lex(std::string_view source);

/// "line:column" of byte `pos` in `source` (1-based).
[[nodiscard]] std::string position(std::string_view source, std::size_t pos);
/// The 1-based line and column (in bytes) of `pos` in `source`.
[[nodiscard]] std::pair<std::size_t, std::size_t> line_column(std::string_view source,
                                                              std::size_t pos);

}  // namespace ocml::tmpl
