// SPDX-License-Identifier: Apache-2.0
// split_form and grouped_form: the two shapes of assistant turns.
#include <algorithm>
#include <map>
#include <type_traits>

#include "core/codec.hpp"
#include "core/json_extent.hpp"
#include "interchange/shape.hpp"
#include "interchange/simd_json.hpp"
#include "ocml/convert.hpp"
#include "ocml/json.hpp"
#include "ocml/model.hpp"

namespace ocml {

namespace {

std::string function_name(const std::string& recipient) {
  return recipient.starts_with("functions.") ? recipient.substr(10) : recipient;
}
std::string recipient_of(const std::string& name) {
  return name.find('.') != std::string::npos ? name : "functions." + name;
}

using detail::message_origin;
using piece = message_origin::piece;

void note(detail::origin_map* origins, piece kind, std::size_t i, std::size_t call = 0) {
  if (origins != nullptr) origins->push_back({.kind = kind, .message = i, .call = call});
}

// `m`'s text moved when the caller gives it up (M is message), copied otherwise.
template <typename M>
decltype(auto) give(M& /*owner*/, auto& field) {
  if constexpr (std::is_const_v<M>) {
    return static_cast<const std::remove_reference_t<decltype(field)>&>(field);
  } else {
    return std::move(field);
  }
}

template <typename M>
void expand(M& m, std::vector<message>& out, std::size_t i, detail::origin_map* origins) {
  const bool reasoning = !m.reasoning.empty();
  const bool calls = !m.tool_calls.empty();
  const bool thoughts = !m.reflection.empty() || !m.introspection.empty();
  if (reasoning) {
    note(origins, piece::reasoning, i);
    message a;
    a.role = role::assistant;
    a.channel = "analysis";
    a.content = give(m, m.reasoning);
    out.push_back(std::move(a));
  }
  // The calls, before `m` is given up whole below.
  std::vector<tool_call> moved_calls;
  if constexpr (!std::is_const_v<M>) moved_calls = std::move(m.tool_calls);
  auto& tcs = [&]() -> auto& {
    if constexpr (std::is_const_v<M>) {
      return m.tool_calls;
    } else {
      return moved_calls;
    }
  }
  ();
  if (!m.content.empty() || thoughts || (!calls && !reasoning)) {
    message f = give(m, m);
    f.reasoning.clear();
    f.tool_calls.clear();
    if (calls) {
      f.channel = "commentary";
      f.intent = "preamble";
      f.end = end_token::unspecified;
    } else if (f.channel.empty()) {
      f.channel = "final";
    }
    note(origins, piece::whole, i);
    out.push_back(std::move(f));
  }
  for (std::size_t j = 0; j < tcs.size(); ++j) {
    auto& tc = tcs[j];
    note(origins, piece::call, i, j);
    message c;
    c.role = role::assistant;
    c.channel = "commentary";
    c.recipient = recipient_of(tc.name);
    c.call_id = give(m, tc.id);
    if (detail::json_too_deep(tc.arguments, default_max_json_depth) == std::string_view::npos &&
        detail::json_text_valid(tc.arguments)) {
      c.constrain = "json";
    }
    c.content = give(m, tc.arguments);
    c.end = end_token::call;
    out.push_back(std::move(c));
  }
}

// split_form of `c`, its messages copied (C const) or moved.
template <typename C>
conversation split(C& c, detail::origin_map* origins, detail::split_copy what) {
  conversation out;
  out.header = give(c, c.header);
  if (what == detail::split_copy::all) out.tools = give(c, c.tools);
  out.document = give(c, c.document);
  out.messages.reserve(c.messages.size());
  for (std::size_t i = 0; i < c.messages.size(); ++i) {
    auto& m = c.messages[i];
    if (m.role == role::assistant && (!m.reasoning.empty() || !m.tool_calls.empty())) {
      expand(m, out.messages, i, origins);
      continue;
    }
    note(origins, piece::whole, i);
    message x = give(c, m);
    if (x.role == role::tool) {
      if (!x.name.empty() && x.name.find('.') == std::string::npos) x.name = "functions." + x.name;
      if (x.channel.empty()) x.channel = "commentary";
      if (x.recipient.empty()) x.recipient = "assistant";
    }
    out.messages.push_back(std::move(x));
  }
  return out;
}

}  // namespace

conversation split_form(const conversation& c) {
  return detail::split_form(c, nullptr);
}

conversation detail::split_form(const conversation& c, origin_map* origins, split_copy what) {
  return split(c, origins, what);
}

conversation detail::split_form(conversation&& c, origin_map* origins, split_copy what) {
  return split(c, origins, what);
}

bool detail::is_grouped(const conversation& c) {
  return std::all_of(c.messages.begin(), c.messages.end(), [](const message& m) {
    return m.role != role::assistant || (m.recipient.empty() && m.effective_channel() == "final");
  });
}

bool detail::has_embedded(const conversation& c) {
  return std::any_of(c.messages.begin(), c.messages.end(), [](const message& m) {
    return !m.reasoning.empty() || !m.tool_calls.empty();
  });
}

const conversation& as_grouped(const conversation& c, conversation& storage) {
  // Grouped already (the OpenAI reader's "final" channels are the grouped default): no copy.
  // The grouped-form renderers (ChatML, Qwen3) do not read channels.
  if (detail::is_grouped(c)) return c;
  storage = grouped_form(c);
  return storage;
}

conversation grouped_form(const conversation& c) {
  return detail::grouped_form(c, nullptr, nullptr);
}

conversation detail::grouped_form(const conversation& c, origin_map* via_split,
                                  origin_map* via_group) {
  // Already grouped (nothing written the 2.x way): keep it exactly, channels aside.
  if (detail::is_grouped(c)) {
    conversation out = c;
    for (auto& m : out.messages) {
      if (m.channel == "final" || m.role != role::assistant) m.channel.clear();
    }
    return out;
  }
  const conversation s = detail::split_form(c, via_split);
  conversation out;
  out.header = c.header;
  out.tools = c.tools;
  out.document = c.document;
  message g;
  bool open = false;
  bool has_content = false;
  message_origin from;  // where g's pieces came from in `s`
  const auto flush = [&]() {
    if (!open) return;
    if (via_group != nullptr) via_group->push_back(std::move(from));
    from = message_origin{};
    out.messages.push_back(std::move(g));
    g = message{};
    g.role = role::assistant;
    open = false;
    has_content = false;
  };
  g.role = role::assistant;
  for (std::size_t k = 0; k < s.messages.size(); ++k) {
    const message& m = s.messages[k];
    // Calls to built-in tools (browser.*, python, container.*) and their replies are the
    // engine's business: neither text, reasoning nor a function call in the grouped (OpenAI)
    // form; the split and native forms keep them (docs/decisions.md 61).
    if (m.role == role::tool ? classify_recipient(m.name) == recipient_kind::builtin
                             : m.role == role::assistant &&
                                   classify_recipient(m.recipient) == recipient_kind::builtin) {
      continue;
    }
    if (m.role != role::assistant) {
      flush();
      if (via_group != nullptr) via_group->push_back({.message = k});
      message x = m;
      x.channel.clear();
      if (x.role == role::tool) {
        x.name = function_name(x.name);
        if (x.recipient == "assistant") x.recipient.clear();
      }
      out.messages.push_back(std::move(x));
      continue;
    }
    // OpenAI writes an assistant message's calls last: reasoning or text after calls starts
    // the next message (a call ends the turn in 2.x and harmony too).
    const recipient_kind t = classify_recipient(m.recipient);
    if (t != recipient_kind::function && !g.tool_calls.empty()) flush();
    if (!open) from.message = k;
    open = true;
    if (t == recipient_kind::function) {
      from.calls.push_back(k);
      g.tool_calls.push_back({m.call_id, function_name(m.recipient), m.content});
    } else if (m.effective_channel() == "analysis") {
      if (from.reasoning < 0) from.reasoning = static_cast<std::ptrdiff_t>(k);
      if (!g.reasoning.empty()) g.reasoning += "\n";
      g.reasoning += m.content;
    } else {
      if (!m.content.empty()) {  // an empty message adds no line (as its stream adds none)
        if (has_content) g.content += "\n";
        g.content += m.content;
        has_content = true;
      }
      if (g.name.empty()) g.name = m.name;
      g.reflection += m.reflection;
      g.introspection += m.introspection;
      if (m.effective_channel() == "final") {
        g.end = m.end;
        flush();
      }
    }
  }
  flush();
  return out;
}

}  // namespace ocml
