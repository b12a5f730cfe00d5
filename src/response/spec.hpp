// SPDX-License-Identifier: Apache-2.0
// A loaded response template: fields with their delimiters, content parsers and transforms.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ocml/error.hpp"
#include "ocml/model.hpp"
#include "response/regex.hpp"

namespace ocml::resp {

/// What opens or closes a region: literals ("match any of these"), a pattern, or "eos".
struct delimiter {
  std::vector<std::string> lits;  // longest first
  bool can_extend = false;        // one literal is a strict prefix of another
  bool eos = false;               // the magic literal "eos": the end of the stream
  std::shared_ptr<const regex> re;
  [[nodiscard]] bool none() const noexcept { return lits.empty() && !eos && re == nullptr; }
};

enum class content_type : unsigned char { text, int_, float_, bool_, json, xml_inline, kv_lines };

/// A content parser with its arguments, checked and compiled at load.
struct content_spec {
  content_type type = content_type::text;
  bool strip = true;
  // json
  bool unquoted_keys = false;
  bool allow_non_json = false;
  std::vector<std::pair<std::string, std::string>> string_delims;
  // xml-inline
  std::shared_ptr<const regex> tag;
  bool merge_duplicates = false;
  // kv-lines
  std::string line_sep = "\n";
  std::string kv_sep = ":";
  // xml-inline and kv-lines: the parser of each value
  std::shared_ptr<const content_spec> value_parser;
  /// Chunks of a text-like region are already part of its value (transformers' "dirty"
  /// is the opposite).
  [[nodiscard]] bool streamable() const noexcept {
    return type == content_type::text || type == content_type::int_ ||
           type == content_type::float_ || type == content_type::bool_;
  }
};

struct field_spec {
  std::string name;
  delimiter open;
  delimiter close;
  content_spec content;
  bool repeats = false;
  bool optional = true;
  bool transform_each = false;
  std::optional<json> transform;
  std::optional<std::string> join;
  // ocml's extensions (docs/response-templates.md); a transformers loader refuses their keys.
  bool json_end = false;       // x-ocml-json-end: also closes where its body's JSON value ends
  bool once = false;           // x-ocml-once: opens only before the answer (other fields' text)
  bool text_fallback = false;  // x-ocml-fallback "text": a body that does not parse is text
  bool declared_only = false;  // x-ocml-declared-tools-only: other calls are text
  bool skip = false;           // one of x-ocml-skip's literals: structure, no region
  bool untyped_json = false;   // x-ocml-untyped-values "json": values no schema types, as JSON
  // A call whose arguments are XML-style parameters or a JSON object, named by this capture:
  // its arguments stream parameter by parameter (region_item events).
  std::string stream_name;
  // A call whose JSON body holds its name and arguments ({"name", "arguments"} or Cohere's
  // {"tool_name", "parameters"}): the call begins when its arguments do (region_call) and
  // they stream member by member. `json_call_id`: the body's "id" is the call's (no
  // transform wraps the body).
  bool json_call = false;
  bool json_call_id = false;
  // x-ocml-inside: the field (index) inside whose region this one may also open; that
  // region goes on after this one closes (Kimi-K2-Thinking's calls inside <think>).
  int inside = -1;
  [[nodiscard]] bool implicit() const noexcept { return open.none(); }
};

struct spec {
  json defaults = json::object();
  std::vector<field_spec> fields;
  int implicit = -1;  // index of the implicit field, or -1
  delimiter anchor;
  /// Bytes a pattern may look behind its start (lookbehinds, \b): kept before the scan.
  std::size_t lookbehind = 0;
  bool has_inside = false;  // some field has x-ocml-inside
};

/// Loads and checks a spec object (not a tokenizer_config.json).
[[nodiscard]] result<spec> load_spec(const json& j);

}  // namespace ocml::resp
