// SPDX-License-Identifier: Apache-2.0
// Python's format-spec mini-language: format(value, spec), as str.format applies it to each
// replacement field ("{:>10}", "{0:08.3f}", "{:,}").
#pragma once

#include <string>
#include <string_view>

#include "template/value.hpp"

namespace ocml::tmpl {

/// format(v, spec) as Python writes it for str, int (bool, big ints), float and, with an
/// empty spec, any value (its str()). ValueError and TypeError where Python raises them
/// (E-TEMPLATE-TYPE); a width or precision is bounded by the value limit before anything is
/// written.
///
///   format_value(value(3.14159), "08.3f")  // "0003.142"
[[nodiscard]] std::string format_value(const value& v, std::string_view spec);

}  // namespace ocml::tmpl
