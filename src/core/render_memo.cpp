// SPDX-License-Identifier: Apache-2.0
#include "core/render_memo.hpp"

namespace ocml::detail {

namespace {
thread_local render_memo_scope* g_open = nullptr;
}

render_memo_scope::render_memo_scope(const std::vector<ocml::tool>& tools)
    : tools_(&tools), outer_(g_open) {
  g_open = this;
}

render_memo_scope::~render_memo_scope() {
  g_open = outer_;
}

const std::string* memo_find(const std::vector<ocml::tool>& tools, memo_kind k) noexcept {
  const auto i = static_cast<std::size_t>(k);
  if (g_open == nullptr || g_open->tools_ != &tools || !g_open->known_[i]) return nullptr;
  return &g_open->text_[i];
}

void memo_put(const std::vector<ocml::tool>& tools, memo_kind k, std::string_view text) {
  const auto i = static_cast<std::size_t>(k);
  if (g_open == nullptr || g_open->tools_ != &tools) return;
  g_open->text_[i].assign(text);
  g_open->known_[i] = true;
}

}  // namespace ocml::detail
