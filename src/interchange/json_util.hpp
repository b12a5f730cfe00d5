// SPDX-License-Identifier: Apache-2.0
// Small helpers for reading interchange JSON with precise errors.
#pragma once

#include <string>

#include <optional>
#include <stdexcept>
#include <string_view>

#include "core/json_extent.hpp"
#include "interchange/pyjson.hpp"
#include "ocml/error.hpp"
#include "ocml/json.hpp"
#include "ocml/model.hpp"

namespace ocml::detail {

/// JSON text parsed, or nullopt when it is not JSON, nests deeper than `max_depth` (the
/// recursive code after parsing, dumps and copies, never sees such a value), or holds what
/// nlohmann-json cannot (a number that overflows a double).
inline std::optional<json> try_parse_json(std::string_view text,
                                          std::size_t max_depth = default_max_json_depth) {
  if (json_too_deep(text, max_depth) != std::string_view::npos) return std::nullopt;
  try {
    return json::parse(text);
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

/// Reads an optional string field; sets `err` when it is present but not a string.
inline std::string get_string(const json& obj, const char* key, const std::string& where,
                              std::string& err) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return {};
  if (!it->is_string()) {
    if (err.empty()) err = where + "." + key + " must be a string";
    return {};
  }
  return it->get<std::string>();
}

/// Text of an OpenAI/harmony content value: a string, or a list of {type:text,text} parts.
inline std::string content_text(const json& v, const std::string& where, std::string& err) {
  if (v.is_null()) return {};
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string out;
    for (const auto& part : v) {
      if (part.is_string()) {
        out += part.get<std::string>();
      } else if (part.is_object() && part.contains("text") && part["text"].is_string()) {
        out += part["text"].get<std::string>();
      } else if (err.empty()) {
        err = where + ".content has a part that is not text";
      }
    }
    return out;
  }
  if (err.empty()) err = where + ".content must be a string or a list of text parts";
  return {};
}

/// How a dialect writes a tool call's JSON object (ChatML `<tool_call>`, PCML `<call>`,
/// OpenChatML 0.1 `<|function_call|>`).
struct call_json_rules {
  bool read_id = false;                ///< PCML carries the call id in the object.
  bool raw_string_arguments = true;    ///< A string `arguments` is taken as the text itself.
  std::string_view missing_arguments;  ///< Arguments text when the object has none.
  /// Lenient reading of what models write: `"parameters"` for `"arguments"`, and arguments
  /// serialized once too often (a JSON string holding an object) decoded once. Each such
  /// repair is described in `recovered`.
  bool repair = false;
  /// Deeper JSON is not read (`error` says so).
  std::size_t max_depth = default_max_json_depth;
};

/// Reads `{"name": ..., "arguments": ...}` into `out` (arguments in Python's spelling).
/// Returns false with `error` set when the text is not such an object. With
/// `rules.repair`, `recovered` (when given) receives a note per repair made.
inline bool read_call_json(std::string_view body, const call_json_rules& rules, tool_call& out,
                           std::string& error, std::string* recovered = nullptr) {
  if (json_too_deep(body, rules.max_depth) != std::string_view::npos) {
    error = "JSON nested deeper than " + std::to_string(rules.max_depth) + " levels";
    return false;
  }
  try {
    const json j = json::parse(body);
    if (!j.is_object() || !j.contains("name") || !j["name"].is_string()) {
      throw std::runtime_error("needs a string \"name\"");
    }
    out.name = j["name"];
    if (rules.read_id && j.contains("id") && j["id"].is_string()) out.id = j["id"];
    const char* key = "arguments";
    if (rules.repair && !j.contains(key) && j.contains("parameters")) {
      key = "parameters";
      if (recovered != nullptr) *recovered += "\"parameters\" read as \"arguments\"; ";
    }
    if (j.contains(key)) {
      const json& a = j[key];
      if (rules.repair && a.is_string()) {
        if (auto inner = try_parse_json(a.get_ref<const std::string&>(), rules.max_depth);
            inner && inner->is_object()) {
          if (recovered != nullptr)
            *recovered += "arguments given as a JSON string, decoded once; ";
          out.arguments = python_json_dumps(*inner);
          return true;
        }
      }
      out.arguments =
          a.is_string() && rules.raw_string_arguments ? a.get<std::string>() : python_json_dumps(a);
    } else {
      out.arguments = rules.missing_arguments;
    }
    return true;
  } catch (const std::exception& ex) {
    error = ex.what();
    return false;
  }
}

/// Tools from an OpenAI `tools` array ({type:function,function:{...}} or bare {name,...}).
bool read_tools(const json& arr, std::vector<tool>& out, std::string& err);
json write_tools(const std::vector<tool>& tools);
/// OpenChatML 0.1 document parts as `[{"text": ..., "fim": {prefix, middle, suffix}}]`.
json write_document(const std::vector<document_part>& parts);
bool read_document(const json& arr, std::vector<document_part>& out, std::string& err);

}  // namespace ocml::detail
