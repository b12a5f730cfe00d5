// SPDX-License-Identifier: Apache-2.0
// An output buffer that JSON-escapes as it is written, for the batch hot path: text goes
// straight from parsed JSON into the escaped output line, 16 bytes a step, with no
// std::string call per escape and no second pass.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "ocml/text_buffer.hpp"

namespace ocml::detail {

/// The buffer the hot paths escape into (public as ocml::text_buffer).
using escaped_buffer = ocml::text_buffer;

}  // namespace ocml::detail
