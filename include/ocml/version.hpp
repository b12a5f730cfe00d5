// SPDX-License-Identifier: Apache-2.0
// ocml/version.hpp - the library version: the one place it is written. CMake's project()
// version, the pkg-config files, the CMake package version and `ocml --version` read it.
#pragma once

#define OCML_VERSION_MAJOR 0
#define OCML_VERSION_MINOR 3
#define OCML_VERSION_PATCH 0

#define OCML_VERSION_STR_(x) #x
#define OCML_VERSION_STR(x) OCML_VERSION_STR_(x)

namespace ocml {
/// "MAJOR.MINOR.PATCH", e.g. "0.3.0".
inline constexpr const char* version_string =
    OCML_VERSION_STR(OCML_VERSION_MAJOR) "." OCML_VERSION_STR(
        OCML_VERSION_MINOR) "." OCML_VERSION_STR(OCML_VERSION_PATCH);
}  // namespace ocml
