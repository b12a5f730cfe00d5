// SPDX-License-Identifier: Apache-2.0
// The codec registry: one record per dialect (src/dialects/registry.cpp). It is the top of
// the dialects floor: core and interchange see only the codec type (core/codec.hpp), never
// the list, so nothing below the dialects can reach a dialect.
#pragma once

#include <span>

#include "core/codec.hpp"

namespace ocml::detail {

/// Every codec, in dialect enum order (checked at compile time in registry.cpp).
[[nodiscard]] std::span<const codec> codecs() noexcept;
/// The codec of `d`.
[[nodiscard]] const codec& codec_of(dialect d) noexcept;

}  // namespace ocml::detail
