// SPDX-License-Identifier: Apache-2.0
// Hot-path JSON helpers on simdjson (measured: nlohmann's parser and serializer were 70%
// of `ocml render --jsonl`; see docs/BENCHMARKS.md).
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

#include "interchange/json_escape.hpp"
#include "ocml/error.hpp"
#include "ocml/model.hpp"

namespace ocml::detail {

/// Reads OpenAI chat JSON text straight into the grouped shape (one message per OpenAI
/// message). Returns nullopt-like error `invalid_json` when simdjson rejects the text or
/// it is not OpenAI-shaped; callers fall back to the general path then.
[[nodiscard]] result<conversation> read_openai_text(std::string_view text);

/// Python's json.dumps(json.loads(text), ensure_ascii=False) for JSON text; false if the
/// text is not JSON.
[[nodiscard]] bool python_dumps_text(std::string_view text, std::string& out);
/// python_dumps_text, escaped as the inside of a JSON string as it is written.
[[nodiscard]] bool python_dumps_text(std::string_view text, escaped_buffer& out);

/// The calling thread's parser for whole documents (elements stay valid until its next parse).
[[nodiscard]] simdjson::dom::parser& document_parser();

/// Parses `text` with document_parser() from a reused padded copy (no allocation per call
/// once warm). The result lives until the thread's next parse_document.
[[nodiscard]] simdjson::simdjson_result<simdjson::dom::element> parse_document(
    std::string_view text);

/// parse_document for JSON nested in a document being read (tool-call arguments): a second
/// parser, so the document's elements stay valid. The result lives until the thread's next
/// parse_nested. Both refuse nesting deeper than simdjson's 1024 levels (DEPTH_ERROR).
[[nodiscard]] simdjson::simdjson_result<simdjson::dom::element> parse_nested(std::string_view text);

/// nlohmann::json::accept(text), answered by simdjson where it can (a thread parser of its
/// own: the elements of parse_document and parse_nested stay valid).
[[nodiscard]] bool json_text_valid(std::string_view text);

/// True when no key of `e` (if it is an object) appears twice. The fast paths read objects
/// by key and decline duplicates, which readers resolve differently.
[[nodiscard]] bool unique_keys(simdjson::dom::element e);

/// Python's json.dumps of a parsed element (key order kept).
void py_dumps(simdjson::dom::element e, std::string& out);

/// py_dumps, appended already escaped as the inside of a JSON string (no second pass).
void py_dumps_escaped(simdjson::dom::element e, escaped_buffer& out);

/// Appends `s` as a JSON string literal (compact, non-ASCII raw, invalid UTF-8 as U+FFFD).
/// `known_valid_utf8` skips the check (text that came out of a simdjson parse).
void append_json_string(std::string& out, std::string_view s, bool known_valid_utf8 = false);

}  // namespace ocml::detail
