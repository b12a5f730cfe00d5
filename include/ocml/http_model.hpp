// SPDX-License-Identifier: Apache-2.0
// ocml/http_model.hpp - renamed ocml/http_engine.hpp (issue 24); this forwarding header is
// kept for one release.
#pragma once

#include "ocml/http_engine.hpp"
