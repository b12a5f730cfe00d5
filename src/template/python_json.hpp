// SPDX-License-Identifier: Apache-2.0
// JSON text read as Python's json.loads reads it, straight into template values: NaN,
// Infinity and -Infinity are floats, integers of any size are exact ints (up to Python's
// 4300 digits), a repeated key keeps its first place and its last value.
#pragma once

#include <optional>
#include <string_view>

#include "template/value.hpp"

namespace ocml::tmpl {

/// The value of `text`, or nullopt when json.loads would refuse it (or it nests deeper than
/// `max_depth`). Raises template_error (E-TEMPLATE-TYPE) for an integer beyond 4300 digits,
/// as json.loads raises ValueError.
///
///   auto v = ocml::tmpl::python_json_loads(R"({"x": NaN, "n": 123456789012345678901234567890})");
[[nodiscard]] std::optional<value> python_json_loads(std::string_view text, std::size_t max_depth);

}  // namespace ocml::tmpl
