// SPDX-License-Identifier: Apache-2.0
// Seeded random conversations with adversarial strings, within what each dialect can hold.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "ocml/ocml.hpp"

namespace ocml::test {

class conversation_generator {
 public:
  explicit conversation_generator(std::uint32_t seed) : rng_(seed) {}

  /// Text built from pieces that spell control tokens, escapes, lone '<', multi-byte UTF-8.
  std::string adversarial_text() {
    static const std::vector<std::string> pieces = {"<|start|>",
                                                    "<|end|>",
                                                    "<|return|>",
                                                    "<|call|>",
                                                    "<|message|>",
                                                    "<|channel|>",
                                                    "<|constrain|>",
                                                    "<|literal|>",
                                                    "<|endliteral|>",
                                                    "<<|end|>",
                                                    "<",
                                                    "<<",
                                                    "<|",
                                                    "|>",
                                                    "|",
                                                    "<|foo|>",
                                                    "\n",
                                                    "\r\n",
                                                    " ",
                                                    "\t",
                                                    "é",
                                                    "€",
                                                    "😀",
                                                    "日本",
                                                    "{\"a\":1}",
                                                    "\"",
                                                    "\\",
                                                    "a",
                                                    "hello world",
                                                    "```cpp\nif (a<b) {}\n```",
                                                    "<div>",
                                                    "</div>",
                                                    "---",
                                                    "\0"};
    std::string s;
    const int n = pick(0, 8);
    for (int i = 0; i < n; ++i) {
      if (pick(0, 5) == 0) {
        s.push_back(static_cast<char>(pick(0x20, 0x7e)));
      } else {
        const std::string& p =
            pieces[static_cast<std::size_t>(pick(0, static_cast<int>(pieces.size()) - 1))];
        s += p == std::string("\0") ? std::string(1, '\0') : p;
      }
    }
    return s;
  }

  /// A header-safe word: letters, digits, '.', '_', '-'.
  std::string word() {
    static const std::string alphabet = "abcdefghijklmnopqrstuvwxyzABC0123456789._-";
    std::string s;
    const int n = pick(1, 10);
    for (int i = 0; i < n; ++i)
      s.push_back(
          alphabet[static_cast<std::size_t>(pick(0, static_cast<int>(alphabet.size()) - 1))]);
    return s;
  }

  conversation make(dialect d) {
    conversation c;
    if (d != dialect::harmony) {
      c.header.present = true;
      c.header.version = d == dialect::ocml_2_2 ? "2.2" : "2.0";
    }
    const int n = pick(0, 6);
    for (int i = 0; i < n; ++i) c.messages.push_back(make_message(d, i + 1 == n));
    return c;
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool coin() { return pick(0, 1) == 1; }
  std::string maybe_word() { return coin() ? word() : std::string(); }

  message make_message(dialect d, bool last) {
    static const char* channels[] = {"", "analysis", "commentary", "final"};
    message m;
    m.role = static_cast<role>(pick(0, 4));
    m.channel = channels[pick(0, 3)];
    m.content = adversarial_text();
    if (m.role == role::tool) {
      m.name = "functions." + word();
    } else if (d != dialect::ocml_2_0 || pick(0, 3) == 0) {
      m.name = maybe_word();
    }
    if (coin()) m.recipient = "functions." + word();
    if (d == dialect::ocml_2_2) {
      m.call_id = maybe_word();
      m.intent = maybe_word();
      m.content_type = maybe_word();
      if (coin()) m.extra.emplace_back("x-" + word(), word());
    }
    if (d == dialect::harmony) {
      // A bare content type is only unambiguous after a channel (harmony's grammar).
      if (!m.channel.empty()) m.content_type = maybe_word();
      if (m.role == role::user && !m.name.empty() && m.name.find(':') != std::string::npos)
        m.name.clear();
    }
    if (d != dialect::ocml_2_0 && coin()) {
      m.constrain = "json";
      m.content =
          "{\"v\":" + json(m.content).dump(-1, ' ', false, json::error_handler_t::replace) + "}";
    }
    if (d == dialect::harmony) {
      // Harmony has no escape: content spelling its control tokens cannot be written as
      // text (a test of its own checks the refusal). Break each spelling: "<|end|>" -> "< |end|>".
      for (const char* t : {"<|start|>", "<|end|>", "<|return|>", "<|call|>", "<|message|>",
                            "<|channel|>", "<|constrain|>"}) {
        for (std::size_t at = m.content.find(t); at != std::string::npos;
             at = m.content.find(t, at + 1)) {
          m.content.insert(at + 1, " ");
        }
      }
      m.end = m.role == role::assistant && !m.recipient.empty() ? end_token::call : end_token::end;
    } else {
      static const end_token ends[] = {end_token::end, end_token::return_, end_token::call};
      m.end = ends[pick(0, 2)];
      if (last && pick(0, 4) == 0) m.end = end_token::unterminated;
    }
    return m;
  }

  std::mt19937 rng_;
};

}  // namespace ocml::test
