// SPDX-License-Identifier: Apache-2.0
#include <string>

#include "core/scan.hpp"
#include "dialects/openchatml/render_common.hpp"
#include "ocml/render.hpp"

namespace ocml {

namespace detail {

void escape_body_into(std::string& out, std::string_view text) {
  // A trailing run of '<' would merge with the stop token into an escape: literal it.
  std::size_t trail = text.size();
  while (trail > 0 && text[trail - 1] == '<') --trail;
  const std::string_view head = text.substr(0, trail);
  const char* p = head.data();
  const char* end = head.data() + head.size();
  const char* done = p;
  while (p < end) {
    const char* c = find_token_candidate(p, end);
    if (c == end) break;
    const auto m = match_token(c, static_cast<std::size_t>(end - c));
    if (m.status == match_status::matched) {
      out.append(done, c);
      out.push_back('<');
      out.append(c, m.len);
      p = done = c + m.len;
    } else {
      p = c + 1;
    }
  }
  out.append(done, end);
  if (trail < text.size()) {
    out += "<|literal|>";
    out.append(text.substr(trail));
    out += "<|endliteral|>";
  }
}

}  // namespace detail

std::string escape_body(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  detail::escape_body_into(out, text);
  return out;
}

}  // namespace ocml
