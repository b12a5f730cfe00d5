// SPDX-License-Identifier: Apache-2.0
// What the registry says of each dialect by name: the list, names and aliases, turn shape.
#include <array>

#include "dialects/registry.hpp"
#include "ocml/convert.hpp"
#include "ocml/dialect.hpp"

namespace ocml {

std::span<const dialect_info> dialects() noexcept {
  static const auto infos = [] {
    std::array<dialect_info, dialect_count> a{};
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = detail::codecs()[i].info;
    return a;
  }();
  return infos;
}

std::string_view dialect_name(dialect d) noexcept {
  return detail::codec_of(d).info.name;
}

std::optional<dialect> parse_dialect(std::string_view s) noexcept {
  for (const auto& c : detail::codecs()) {
    if (c.info.name == s) return c.info.id;
    for (const auto a : c.info.aliases) {
      if (a == s) return c.info.id;
    }
  }
  return std::nullopt;
}

bool uses_grouped_form(dialect d) noexcept {
  return detail::codec_of(d).shape == detail::turn_shape::grouped;
}

}  // namespace ocml
