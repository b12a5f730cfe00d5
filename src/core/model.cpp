// SPDX-License-Identifier: Apache-2.0
#include <array>

#include "ocml/dialect.hpp"
#include "ocml/model.hpp"

namespace ocml {

namespace {
constexpr std::array<std::string_view, 5> kRoles = {"system", "developer", "user", "assistant",
                                                    "tool"};
constexpr std::array<std::string_view, 5> kEnds = {"", "end", "return", "call", "unterminated"};
}  // namespace

std::string_view role_name(role r) noexcept {
  return kRoles[static_cast<std::size_t>(r)];
}

std::optional<role> parse_role(std::string_view s) noexcept {
  for (std::size_t i = 0; i < kRoles.size(); ++i) {
    if (kRoles[i] == s) return static_cast<role>(i);
  }
  return std::nullopt;
}

recipient_kind classify_recipient(std::string_view r) noexcept {
  if (r.empty() || parse_role(r)) return recipient_kind::none;
  if (r.starts_with("browser.") || r.starts_with("container.") || r == "python") {
    return recipient_kind::builtin;
  }
  return recipient_kind::function;
}

std::string_view end_name(end_token e) noexcept {
  return kEnds[static_cast<std::size_t>(e)];
}

std::optional<end_token> parse_end(std::string_view s) noexcept {
  for (std::size_t i = 1; i < kEnds.size(); ++i) {
    if (kEnds[i] == s) return static_cast<end_token>(i);
  }
  return std::nullopt;
}

}  // namespace ocml
