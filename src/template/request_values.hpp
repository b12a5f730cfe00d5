// SPDX-License-Identifier: Apache-2.0
// An OpenAI request as template values, read as Python's json.loads reads it and with each
// tool call's arguments parsed (as transformers' callers do before rendering), built as the
// template reads it: the request's JSON objects stay in the parsed document until a
// template looks into one (value_data::json_object), and `tojson` writes one it never
// looked into straight from the document.
#pragma once

#include <optional>
#include <string_view>

#include "template/value.hpp"

namespace ocml::tmpl {

/// The request's values, or nullopt when json.loads would refuse the text. Raises
/// template_error for an integer beyond Python's 4300 digits. Its objects point into the
/// calling thread's request document: they are valid until the thread's next read_request,
/// so they must not outlive the render they are read for.
///
///   auto request = ocml::tmpl::read_request(R"({"messages": [{"role": "user"}]})");
///   // request->map().find("messages")->items()[0].map().find("role")->str() == "user"
[[nodiscard]] std::optional<value> read_request(std::string_view text);

/// Frees the dicts read_request's values built, when they are gone: declared before the
/// values of a render, it ends after them.
///
///   const ocml::tmpl::request_scope scope;
///   auto request = ocml::tmpl::read_request(text);  // ... render; scope frees what it built
struct request_scope {
  request_scope() = default;
  ~request_scope();
  request_scope(const request_scope&) = delete;
  request_scope& operator=(const request_scope&) = delete;
};

}  // namespace ocml::tmpl
