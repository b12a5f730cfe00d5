// SPDX-License-Identifier: Apache-2.0
// A region's body to its value: the content parsers, the transform and tool-schema typing.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ocml/error.hpp"
#include "ocml/model.hpp"
#include "response/spec.hpp"

namespace ocml::resp {

using captures = std::vector<std::pair<std::string, std::string>>;

/// Why a body did not parse: the message, and its code (E-LIMIT-EXCEEDED when JSON nests
/// past the depth limit, else E-RESPONSE-CONTENT).
struct content_error {
  std::string text;
  error_code code = error_code::response_content;
  content_error& operator=(std::string s) {
    text = std::move(s);
    return *this;
  }
};

/// Parses `body` as `c` says. False (with `err`) where transformers raises.
[[nodiscard]] bool parse_content(std::string_view body, const content_spec& c, json& out,
                                 content_error& err);

/// Reshapes `content` with the field's transform (a no-op without one).
[[nodiscard]] bool apply_transform(const field_spec& f, const captures& caps, json content,
                                   json& out, std::string& err);

/// The request's tools: name → the `properties` of its parameters schema.
using tool_params = std::unordered_map<std::string, json>;
[[nodiscard]] tool_params read_tools(const json& tools);

/// Casts the string arguments of a call (or of each call of a list) to the types the tool's
/// schema declares, as transformers does.
void coerce_tool_calls(json& value, const tool_params& tools);

/// One argument of a call to `tool_name` cast as coerce_tool_calls casts it.
void coerce_argument(const std::string& tool_name, const std::string& key, json& arg,
                     const tool_params& tools);
/// One argument no schema types read as JSON where it is JSON (json_untyped_values).
void json_untyped_argument(const std::string& tool_name, const std::string& key, json& arg,
                           const tool_params& tools);
/// An xml-inline tag match as its key and parsed value (false: no key, or the value parser
/// failed with `err`).
[[nodiscard]] bool xml_item(const regex_match& m, const content_spec& c, std::string& key,
                            json& value, content_error& err);

/// True when every call of `value` (a call or a list of them, in the shapes a transform
/// builds) names a tool of `tools`.
[[nodiscard]] bool declared_calls(const json& value, const tool_params& tools);

/// The string arguments no schema types (an undeclared tool's, an undeclared parameter's)
/// read as JSON where they are JSON ("17.25" → 17.25, "[3, 4]" → a list; "02139" stays).
void json_untyped_values(json& value, const tool_params& tools);

/// Python's int(s) for base 10 (white space, sign, underscores between digits).
[[nodiscard]] bool py_int(std::string_view s, json& out);
/// Python's float(s): "1.5", "1e3", "inf", "nan", underscores between digits.
[[nodiscard]] bool py_float(std::string_view s, double& out);

}  // namespace ocml::resp
