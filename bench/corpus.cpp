// SPDX-License-Identifier: Apache-2.0
#include "corpus.hpp"

namespace ocml::bench {

namespace {
const char* const kCode =
    "for (int i = 0; i < n; ++i) { if (a[i] < b[i]) std::swap(a[i], b[i]); }\n"
    "<div class=\"row\"><span>x &lt; y</span><a href=\"/p?q=1&r=2\">link</a></div>\n"
    "template <typename T> bool less(const T& a, const T& b) { return a < b; }\n"
    "<ul><li>one</li><li>two</li></ul> a<<|end|>b (escaped token) <p>done</p>\n";
}  // namespace

std::string make_single_message(std::size_t bytes) {
  std::string body;
  while (body.size() < bytes) body += kCode;
  return "<|start|>assistant<|channel|>final<|message|>" + body + "<|return|>";
}

std::string make_transcript(std::size_t bytes) {
  std::string out = "---\nversion: 2.2\nmodel: bench\n---\n";
  std::size_t turn = 0;
  while (out.size() < bytes) {
    out += "<|start|>user<|message|>Please review this code:\n";
    for (int k = 0; k < 8; ++k) out += kCode;
    out += "<|end|>\n<|start|>assistant<|channel|>analysis<|message|>";
    for (int k = 0; k < 4; ++k) out += kCode;
    out += "<|end|>\n";
    if (turn % 4 == 0) {
      out += "<|start|>assistant to=functions.lint call_id=c" + std::to_string(turn) +
             "<|channel|>commentary<|constrain|>json<|message|>{\"path\":\"src/"
             "a.cpp\",\"lines\":[1,2,3]}<|call|>\n";
      out += "<|start|>tool name=functions.lint call_id=c" + std::to_string(turn) +
             " to=assistant<|channel|>commentary<|message|>{\"ok\":true}<|end|>\n";
    }
    out += "<|start|>assistant<|channel|>final<|message|>";
    for (int k = 0; k < 8; ++k) out += kCode;
    out += "<|return|>\n";
    ++turn;
  }
  return out;
}

}  // namespace ocml::bench
