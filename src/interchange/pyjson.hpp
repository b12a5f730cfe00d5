// SPDX-License-Identifier: Apache-2.0
// JSON text exactly as Python's json.dumps(obj, ensure_ascii=False) writes it: key order
// kept, ", " and ": " separators, non-ASCII raw, floats in Python's repr.
#pragma once

#include <string>

#include "ocml/model.hpp"

namespace ocml::detail {

[[nodiscard]] std::string python_json_dumps(const json& j);
void python_json_dumps(const json& j, std::string& out);
/// A JSON string literal as json.dumps(ensure_ascii=False) writes it.
void python_json_string(std::string_view s, std::string& out);
/// Python's repr() of a float: shortest round-trip digits, "1.0", "1e-05", "1e+16".
[[nodiscard]] std::string python_float_repr(double d);

}  // namespace ocml::detail
