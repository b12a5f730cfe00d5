// SPDX-License-Identifier: Apache-2.0
// Nothing forges structure, in any field (issue 13): random conversations whose every
// string field a dialect writes (content, names, reasoning, call names, ids and
// arguments, extra attributes, tool definitions) is drawn from the control-token spellings
// of all dialects are rendered in every dialect; each either is refused with
// E-RENDER-UNREPRESENTABLE, or parses back in strict mode, without a diagnostic, to the
// same structure (messages, roles, calls, tools) and the same text, and renders back to
// the same bytes.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "dialects/registry.hpp"
#include "ocml/ocml.hpp"

namespace {

using ocml::conversation;
using ocml::dialect;
using ocml::message;
using ocml::role;

std::vector<std::string> spelling_pool() {
  std::set<std::string> pool = {"[BOS]",
                                "[EOS]",
                                "<think>",
                                "</think>",
                                "<tool_call>",
                                "</tool_call>",
                                "<tool_response>",
                                "</tool_response>",
                                "<|function_list|>",
                                "<|reflect|>",
                                "<|im_end|>",
                                "\n",
                                "\"",
                                "\\",
                                "x=\"",
                                " to=functions.x",
                                "assistant",
                                "=",
                                ":",
                                " ",
                                "<",
                                "a",
                                "<<|end|>",
                                "{\"name\": \"f\"}",
                                "key=\"v\" ",
                                "<|constrain|>json",
                                "functions.f"};
  for (const auto& info : ocml::dialects()) {
    for (const auto t : info.tokens) pool.emplace(t);
  }
  return {pool.begin(), pool.end()};
}

class fields {
 public:
  explicit fields(std::uint32_t seed) : rng_(seed), pool_(spelling_pool()) {}
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  /// Plain text, or (one field in four) 1 to 4 pieces of the pool: a conversation holds
  /// a few spellings, so that most are written and read back rather than refused.
  std::string text(int max_pieces = 4) {
    if (pick(0, 3) != 0) return pick(0, 4) == 0 ? std::string() : std::string("w x");
    std::string s;
    for (int n = pick(1, max_pieces); n > 0; --n) {
      s += pick(0, 3) == 0
               ? std::string("w")
               : pool_[static_cast<std::size_t>(pick(0, static_cast<int>(pool_.size()) - 1))];
    }
    return s;
  }
  /// A non-empty field (names, ids): a word, or (one in four) 1 to 3 pieces of the pool.
  std::string word() {
    if (pick(0, 3) != 0) return "nm";
    std::string s = text(3);
    return s.empty() ? "n" : s;
  }

 private:
  std::mt19937 rng_;
  std::vector<std::string> pool_;
};

bool holds(dialect d, std::uint32_t f) {
  return (ocml::detail::codec_of(d).holds & f) != 0;
}

conversation make(fields& f, dialect d) {
  conversation c;
  const bool ids = holds(d, ocml::detail::f_call_ids);
  const bool names = holds(d, ocml::detail::f_author_names);
  const bool calls = holds(d, ocml::detail::f_tool_calls);
  const bool reasoning = holds(d, ocml::detail::f_reasoning);
  if (holds(d, ocml::detail::f_tool_definitions) && f.pick(0, 2) == 0) {
    ocml::tool t;
    t.name = f.word();
    t.description = f.text();
    c.tools.push_back(t);
  }
  if (holds(d, ocml::detail::f_system)) {
    message s{.role = role::system};
    // Not empty: PCML and 0.1 write an empty system message with tools as the tools alone.
    s.content = "s" + f.text();
    if (names && f.pick(0, 3) == 0) s.name = f.word();
    if (holds(d, ocml::detail::f_extra_attributes) && f.pick(0, 2) == 0) {
      static const char* keys[] = {"to", "call_id", "name", "id", "intent", "x-k"};
      s.extra.emplace_back(keys[f.pick(0, 5)], f.word());
    }
    c.messages.push_back(s);
  }
  int call_no = 0;
  for (int turns = f.pick(1, 3); turns > 0; --turns) {
    message u{.role = role::user};
    u.content = f.text();
    if (names && f.pick(0, 2) == 0) u.name = f.word();
    c.messages.push_back(u);
    message a{.role = role::assistant};
    a.content = f.text();
    if (reasoning && f.pick(0, 1) == 0) a.reasoning = f.text();
    const int n = calls ? f.pick(0, 2) : 0;
    for (int k = 0; k < n; ++k) {
      ocml::tool_call tc;
      tc.name = f.word();
      // The split form writes a call to "functions." + name unless the name already begins
      // so (read back without it): that loss is not this property's.
      if (tc.name.starts_with("functions.")) tc.name.insert(0, "n");
      tc.arguments = ocml::dump_json(ocml::json{{"a", f.text()}});
      if (ids) tc.id = f.word() + std::to_string(call_no++);
      a.tool_calls.push_back(tc);
    }
    c.messages.push_back(a);
    for (const auto& tc : a.tool_calls) {
      message r{.role = role::tool};
      r.content = f.text();
      r.call_id = tc.id;
      r.name = tc.name;
      c.messages.push_back(r);
    }
  }
  return c;
}

// What must survive the trip: roles, text, calls (names and arguments as JSON), tools.
std::string shape(const conversation& c0, dialect d) {
  const conversation c = ocml::grouped_form(c0);
  std::string s;
  for (const auto& t : c.tools) s += "tool " + t.name + "|" + t.description + "\n";
  for (const auto& m : c.messages) {
    std::string_view content = m.content;
    if (d == dialect::qwen3 && m.role == role::assistant) {
      // The Qwen3 template's reading of a turn: reasoning written inline ends at the last
      // </think>; the content after it loses its leading newlines.
      if (const auto at = content.rfind("</think>"); at != std::string_view::npos) {
        content.remove_prefix(at + 8);
      }
      while (content.starts_with('\n')) content.remove_prefix(1);
    }
    s += std::string(ocml::role_name(m.role)) + ": [" + std::string(content) + "]";
    if (d != dialect::qwen3) s += " reasoning [" + m.reasoning + "]";
    for (const auto& tc : m.tool_calls) {
      s += " call " + tc.name + " " + ocml::dump_json(ocml::json::parse(tc.arguments));
    }
    s += "\n";
  }
  return s;
}

TEST(Injection, EveryFieldRoundTripsOrIsRefusedInEveryDialect) {
  for (const auto& info : ocml::dialects()) {
    const dialect d = info.id;
    fields f(7u + static_cast<std::uint32_t>(d));
    int refused = 0;
    for (int i = 0; i < 2000; ++i) {
      conversation c = make(f, d);
      // ChatML writes its default system prompt when the conversation has none.
      const auto text = ocml::render(c, {.dialect = d});
      if (!text.ok()) {
        ASSERT_EQ(text.error().code, ocml::error_code::unrepresentable)
            << info.name << " #" << i << ": " << text.error().to_string();
        ++refused;
        continue;
      }
      const auto r = ocml::parse(*text, {.dialect = d});
      ASSERT_TRUE(r.diagnostics.empty())
          << info.name << " #" << i << ": " << r.diagnostics[0].to_string() << "\n"
          << *text;
      ASSERT_EQ(shape(r.conversation, d), shape(c, d)) << info.name << " #" << i << "\n" << *text;
      const auto again = ocml::render(r.conversation, {.dialect = d});
      ASSERT_TRUE(again.ok()) << info.name << " #" << i;
      ASSERT_EQ(*again, *text) << info.name << " #" << i;
    }
    // The property means something only if many conversations got through (refusals
    // measured: 306 gabgpt to 1 513 ocml-0.1, whose every field refuses [BOS]/[EOS]).
    EXPECT_LT(refused, 1600) << info.name;
    RecordProperty(std::string(info.name) + "_refused", refused);
  }
}

}  // namespace
