// ocml/version.hpp - the library version.
#pragma once

#define OCML_VERSION_MAJOR 0
#define OCML_VERSION_MINOR 1
#define OCML_VERSION_PATCH 0

namespace ocml {
/// "0.1.0"
inline constexpr const char* version_string = "0.1.0";
}  // namespace ocml
