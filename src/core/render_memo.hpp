// SPDX-License-Identifier: Apache-2.0
// A thread's memo of the text a renderer writes from a part of a conversation that many
// renders share: training renders the prompt of every turn, each with the same tools
// block. A caller that owns the conversation opens a scope naming that part; while the
// scope is open the part must not change, and renderers asked for the same part (by its
// address, the scope's exactly: a copy is another address and renders anew) reuse what
// they wrote the first time.
//
//   detail::render_memo_scope scope(work.tools);  // work: the caller's own copy
//   render(work, o);  // writes the tools block and remembers it
//   render(work, o);  // reuses it
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ocml/model.hpp"

namespace ocml::detail {

/// What is remembered of the part.
enum class memo_kind : unsigned char { chatml_tools, harmony_tools };

class render_memo_scope {
 public:
  explicit render_memo_scope(const std::vector<ocml::tool>& tools);
  ~render_memo_scope();
  render_memo_scope(const render_memo_scope&) = delete;
  render_memo_scope& operator=(const render_memo_scope&) = delete;

 private:
  friend const std::string* memo_find(const std::vector<ocml::tool>&, memo_kind) noexcept;
  friend void memo_put(const std::vector<ocml::tool>&, memo_kind, std::string_view);
  const std::vector<ocml::tool>* tools_;
  render_memo_scope* outer_;
  std::string text_[2];
  bool known_[2] = {false, false};
};

/// The text remembered for `tools` in the open scope of this thread, or nullptr.
[[nodiscard]] const std::string* memo_find(const std::vector<ocml::tool>& tools,
                                           memo_kind k) noexcept;
/// Remembers `text` for `tools` when the open scope names them.
void memo_put(const std::vector<ocml::tool>& tools, memo_kind k, std::string_view text);

}  // namespace ocml::detail
