// SPDX-License-Identifier: Apache-2.0
// Building harmony's system + developer preamble from a plain conversation.
#include "dialects/harmony/prompt_origins.hpp"
#include "ocml/harmony.hpp"

#include <algorithm>
#include <type_traits>

namespace ocml::harmony {

namespace {

void apply_generation_settings(const json& gs, system_content& s) {
  if (!gs.is_object()) return;
  if (auto e = gs.find("reasoning_effort"); e != gs.end() && e->is_string()) {
    if (auto effort = parse_reasoning_effort(e->get_ref<const std::string&>())) s.effort = effort;
  }
  if (auto b = gs.find("builtin_tools"); b != gs.end() && b->is_array()) {
    for (const auto& name : *b) {
      if (name == "browser") s.tools.push_back(browser_namespace());
      if (name == "python") s.tools.push_back(python_namespace());
    }
  }
}

}  // namespace

std::optional<reasoning_effort> parse_reasoning_effort(std::string_view s) noexcept {
  if (s == "low") return reasoning_effort::low;
  if (s == "medium") return reasoning_effort::medium;
  if (s == "high") return reasoning_effort::high;
  return std::nullopt;
}

namespace {

// build_prompt, copying or moving what it keeps of `c`.
template <typename Conversation>
conversation build(Conversation&& c, const prompt_options& options) {
  constexpr bool move = std::is_rvalue_reference_v<Conversation&&>;
  system_content sys = options.system;
  apply_generation_settings(c.header.generation_settings, sys);
  conversation out;
  message system;
  system.role = role::system;
  system.content = render_system_content(sys, !c.tools.empty());
  out.messages.push_back(std::move(system));

  std::optional<std::string> instructions;
  std::vector<std::size_t> rest;
  for (std::size_t i = 0; i < c.messages.size(); ++i) {
    const message& m = c.messages[i];
    if (m.role == role::system || m.role == role::developer) {
      instructions = instructions ? *instructions + "\n\n" + m.content : m.content;
    } else {
      rest.push_back(i);
    }
  }
  if (instructions || !c.tools.empty()) {
    message developer;
    developer.role = role::developer;
    developer.content = detail::harmony_developer_text(instructions, c.tools);
    out.messages.push_back(std::move(developer));
  }
  if constexpr (move) {
    out.header = std::move(c.header);
    out.tools = std::move(c.tools);
  } else {
    out.header = c.header;
    out.tools = c.tools;
  }
  out.messages.reserve(out.messages.size() + rest.size());
  for (const std::size_t i : rest) {
    if constexpr (move) {
      out.messages.push_back(std::move(c.messages[i]));
    } else {
      out.messages.push_back(c.messages[i]);
    }
  }
  return out;
}

}  // namespace

conversation build_prompt(const conversation& c, const prompt_options& options) {
  return build(c, options);
}

conversation build_prompt(conversation&& c, const prompt_options& options) {
  return build(std::move(c), options);
}

}  // namespace ocml::harmony

namespace ocml::detail {

origin_map harmony_prompt_origins(const conversation& c) {
  origin_map out;
  out.push_back({.kind = message_origin::piece::made});  // the system message: gpt-oss's own
  std::string from;  // the developer message: the instructions' first message, or the tools
  std::vector<std::size_t> rest;
  for (std::size_t i = 0; i < c.messages.size(); ++i) {
    const role r = c.messages[i].role;
    if (r != role::system && r != role::developer) {
      rest.push_back(i);
    } else if (from.empty()) {
      from = message_path(i);
    }
  }
  if (from.empty() && !c.tools.empty()) from = "tools";
  if (!from.empty()) out.push_back({.kind = message_origin::piece::made, .path = from});
  for (const std::size_t i : rest) out.push_back({.message = i});
  return out;
}

namespace {

bool has_preamble(const conversation& c) {
  return std::any_of(c.messages.begin(), c.messages.end(), [](const message& m) {
    return m.role == role::system && m.content.find("# Valid channels:") != std::string::npos;
  });
}

conversation build_preamble(conversation&& c, const preamble_request& request) {
  harmony::prompt_options po;
  if (auto e = harmony::parse_reasoning_effort(request.reasoning_effort)) po.system.effort = e;
  if (!request.current_date.empty()) {
    po.system.conversation_start_date = std::string(request.current_date);
  }
  return harmony::build_prompt(std::move(c), po);
}

}  // namespace

const preamble_hooks kHarmonyPreamble{has_preamble, build_preamble, harmony_prompt_origins};

}  // namespace ocml::detail
