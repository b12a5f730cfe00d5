// SPDX-License-Identifier: Apache-2.0
// Conversion between dialects and the feature table behind its warnings.
#include <algorithm>
#include <charconv>
#include <functional>

#include "core/line_tracker.hpp"
#include "core/message_path.hpp"
#include "dialects/registry.hpp"
#include "ocml/convert.hpp"
#include "ocml/render.hpp"

namespace ocml {

namespace {

// A feature of a conversation: how to find it, and which dialects can hold it.
struct feature_check {
  const char* name;
  std::function<bool(const message&)> in_message;  // null: a conversation-level feature
  std::function<bool(const conversation&)> in_conversation;
  std::uint32_t bit;  // detail::feature: the dialects that can hold it say so in the registry
};
using namespace detail;

bool is_call(const message& m) {
  return !m.tool_calls.empty() || (m.role == role::assistant && !m.recipient.empty());
}

const std::vector<feature_check>& features() {
  static const std::vector<feature_check> table = {
      {"system messages", [](const message& m) { return m.role == role::system; }, nullptr,
       f_system},
      {"developer messages", [](const message& m) { return m.role == role::developer; }, nullptr,
       f_developer},
      {"tool replies", [](const message& m) { return m.role == role::tool; }, nullptr,
       f_tool_replies},
      {"tool calls", is_call, nullptr, f_tool_calls},
      {"tool call ids",
       [](const message& m) {
         return !m.call_id.empty() || std::any_of(m.tool_calls.begin(), m.tool_calls.end(),
                                                  [](const tool_call& t) { return !t.id.empty(); });
       },
       nullptr, f_call_ids},
      {"author names", [](const message& m) { return !m.name.empty() && m.role != role::tool; },
       nullptr, f_author_names},
      {"reasoning",
       [](const message& m) { return !m.reasoning.empty() || m.effective_channel() == "analysis"; },
       nullptr, f_reasoning},
      {"intent", [](const message& m) { return !m.intent.empty(); }, nullptr, f_intent},
      {"content_type", [](const message& m) { return !m.content_type.empty(); }, nullptr,
       f_content_type},
      {"<|constrain|>", [](const message& m) { return !m.constrain.empty(); }, nullptr,
       f_constrain},
      {"unknown header attributes", [](const message& m) { return !m.extra.empty(); }, nullptr,
       f_extra_attributes},
      {"reflection/introspection blocks",
       [](const message& m) { return !m.reflection.empty() || !m.introspection.empty(); }, nullptr,
       f_thought_blocks},
      {"thought flags", [](const message& m) { return !m.flags.empty(); }, nullptr,
       f_thought_flags},
      {"a YAML document header", nullptr, [](const conversation& c) { return c.header.present; },
       f_document_header},
      {"tool definitions", nullptr, [](const conversation& c) { return !c.tools.empty(); },
       f_tool_definitions},
      {"calls to built-in tools (browser, python, container) and their replies",
       [](const message& m) {
         return (m.role == role::assistant &&
                 classify_recipient(m.recipient) == recipient_kind::builtin) ||
                (m.role == role::tool && classify_recipient(m.name) == recipient_kind::builtin);
       },
       nullptr, f_builtin_tools},
      {"documents (fill-in-the-middle, multi-file)", nullptr,
       [](const conversation& c) { return !c.document.empty(); }, f_documents},
  };
  return table;
}

}  // namespace

conversation plain_meaning(const conversation& c, dialect from) {
  const auto read = codec_of(from).read_preamble;
  return read != nullptr ? read(c) : c;
}

std::vector<std::string_view> dialect_holds(dialect d) {
  std::vector<std::string_view> out;
  for (const auto& f : features()) {
    if ((codec_of(d).holds & f.bit) != 0) out.emplace_back(f.name);
  }
  return out;
}

namespace {

// A warning per feature of `c` that `held` says the target (`name`) cannot hold.
void missing_features(const conversation& c, std::string_view name,
                      const std::function<bool(const feature_check&)>& held,
                      std::vector<diagnostic>& out) {
  for (const auto& f : features()) {
    if (held(f)) continue;
    std::string where;
    if (f.in_conversation) {
      if (!f.in_conversation(c)) continue;
      where = "conversation";
    } else {
      const auto it = std::find_if(c.messages.begin(), c.messages.end(), f.in_message);
      if (it == c.messages.end()) continue;
      where = message_path(static_cast<std::size_t>(it - c.messages.begin()));
    }
    diagnostic w =
        make_error(error_code::unrepresentable,
                   where + ": " + std::string(name) + " cannot hold " + f.name + " (dropped)");
    w.level = severity::warning;
    out.push_back(std::move(w));
  }
}

}  // namespace

std::vector<diagnostic> unrepresentable_features(const conversation& c, std::string_view target,
                                                 std::span<const std::string> holds) {
  std::vector<diagnostic> out;
  missing_features(
      c, target,
      [&holds](const feature_check& f) {
        return std::find(holds.begin(), holds.end(), f.name) != holds.end();
      },
      out);
  return out;
}

std::vector<diagnostic> unrepresentable_features(const conversation& c, dialect d) {
  std::vector<diagnostic> out;
  missing_features(
      c, dialect_name(d),
      [d](const feature_check& f) {
        return ((codec_of(d).holds | codec_of(d).defined_away) & f.bit) != 0;
      },
      out);
  // Extra attributes named like the target's own keys are not promoted to structure.
  const auto reserved = codec_of(d).reserved_keys;
  for (std::size_t i = 0; i < c.messages.size(); ++i) {
    for (const auto& kv : c.messages[i].extra) {
      if (std::find(reserved.begin(), reserved.end(), kv.first) == reserved.end()) continue;
      diagnostic w =
          make_error(error_code::unrepresentable,
                     message_path(i, "extra") + ": extra attribute '" + kv.first + "' is " +
                         std::string(dialect_name(d)) + "'s own key (dropped)");
      w.level = severity::warning;
      out.push_back(std::move(w));
    }
  }
  return out;
}

bool convert_result::ok() const noexcept {
  return std::none_of(diagnostics.begin(), diagnostics.end(),
                      [](const diagnostic& d) { return d.level == severity::error; });
}

namespace {

// Parses `text`, noting where each message's header was read (its message_begin event).
parse_result parse_noting_starts(std::string_view text, const decoder_options& options,
                                 std::vector<std::size_t>& starts) {
  collector c;
  decoder_options o = options;
  o.stream_arguments = false;  // one shot: nobody listens to a call's progress
  decoder d(o, [&](const event& e) {
    if (e.kind == event_kind::message_begin) starts.push_back(e.span.begin);
    c(e);
  });
  d.push(text);
  d.finish();
  return c.take();
}

// A warning about "messages[K]…" of the meaning, which lacks the input's first `shift`
// messages (a preamble read back), names message K + shift and stands where it begins.
void place_at_message(diagnostic& d, std::string_view text, const std::vector<std::size_t>& starts,
                      std::size_t shift) {
  const std::string_view path = leading_path(d.message);
  if (!path.starts_with("messages[")) return;
  std::size_t k = 0;
  const auto r = std::from_chars(path.data() + 9, path.data() + path.size(), k);
  if (r.ec != std::errc{} || k + shift >= starts.size()) return;
  k += shift;
  d.message.replace(9, static_cast<std::size_t>(r.ptr - path.data()) - 9, std::to_string(k));
  const position p = advance({}, text.substr(0, starts[k]));
  d.offset = starts[k];
  d.line = p.line;
  d.column = p.column;
}

}  // namespace

convert_result convert(std::string_view text, const convert_options& options) {
  convert_result out;
  std::vector<std::size_t> starts;
  parse_result parsed =
      parse_noting_starts(text, {.dialect = options.from, .lenient = options.lenient}, starts);
  out.diagnostics = std::move(parsed.diagnostics);
  if (!parsed.ok()) return out;
  if (options.to != options.from) {
    parsed.conversation = plain_meaning(parsed.conversation, options.from);
  }
  // Reading a preamble back (harmony) takes the input's first messages into instructions
  // and tools.
  const std::size_t kept = parsed.conversation.messages.size();
  const std::size_t shift = starts.size() > kept ? starts.size() - kept : 0;
  for (auto& w : unrepresentable_features(parsed.conversation, options.to)) {
    place_at_message(w, text, starts, shift);
    if (options.strict) {
      w.level = severity::error;
      w.message.replace(w.message.rfind(" (dropped)"), 10, " (--strict)");
    }
    out.diagnostics.push_back(std::move(w));
  }
  if (!out.ok()) return out;
  auto rendered = render(parsed.conversation, {.dialect = options.to});
  if (!rendered) {
    out.diagnostics.push_back(rendered.error());
    return out;
  }
  out.text = std::move(*rendered);
  return out;
}

}  // namespace ocml
