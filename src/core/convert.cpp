// Conversion between dialects and the feature table behind its warnings.
#include <algorithm>
#include <functional>

#include "ocml/convert.hpp"
#include "ocml/render.hpp"

namespace ocml {

namespace {

// A feature of a conversation: how to find it, and which dialects can hold it.
struct feature {
  const char* name;
  std::function<bool(const message&)> in_message;  // null: a conversation-level feature
  std::function<bool(const conversation&)> in_conversation;
  std::vector<dialect> holders;
};

constexpr dialect k22 = dialect::ocml_2_2, k20 = dialect::ocml_2_0, kH = dialect::harmony,
                  kC = dialect::chatml, kP = dialect::pcml, kG = dialect::gabgpt,
                  k01 = dialect::ocml_0_1;

bool is_call(const message& m) {
  return !m.tool_calls.empty() || (m.role == role::assistant && !m.recipient.empty());
}

const std::vector<feature>& features() {
  static const std::vector<feature> table = {
      {"system messages",
       [](const message& m) { return m.role == role::system; },
       nullptr,
       {k22, k20, kH, kC, kP, k01}},
      {"developer messages",
       [](const message& m) { return m.role == role::developer; },
       nullptr,
       {k22, k20, kH}},
      {"tool replies",
       [](const message& m) { return m.role == role::tool; },
       nullptr,
       {k22, k20, kH, kC, kP, k01}},
      {"tool calls", is_call, nullptr, {k22, k20, kH, kC, kP, k01}},
      {"tool call ids",
       [](const message& m) {
         return !m.call_id.empty() || std::any_of(m.tool_calls.begin(), m.tool_calls.end(),
                                                  [](const tool_call& t) { return !t.id.empty(); });
       },
       nullptr,
       {k22, kP}},
      {"author names",
       [](const message& m) { return !m.name.empty() && m.role != role::tool; },
       nullptr,
       {k22, k20, kH, kP, k01}},
      {"reasoning",
       [](const message& m) { return !m.reasoning.empty() || m.effective_channel() == "analysis"; },
       nullptr,
       {k22, k20, kH, kP, kG, k01}},
      {"intent", [](const message& m) { return !m.intent.empty(); }, nullptr, {k22}},
      {"content_type",
       [](const message& m) { return !m.content_type.empty(); },
       nullptr,
       {k22, kH}},
      {"<|constrain|>", [](const message& m) { return !m.constrain.empty(); }, nullptr, {k22, kH}},
      {"unknown header attributes",
       [](const message& m) { return !m.extra.empty(); },
       nullptr,
       {k22, kP}},
      {"reflection/introspection blocks",
       [](const message& m) { return !m.reflection.empty() || !m.introspection.empty(); },
       nullptr,
       {k01}},
      {"thought flags", [](const message& m) { return !m.flags.empty(); }, nullptr, {k01}},
      {"a YAML document header",
       nullptr,
       [](const conversation& c) { return c.header.present; },
       {k22, k20}},
      {"tool definitions",
       nullptr,
       [](const conversation& c) { return !c.tools.empty(); },
       {kC, kP, k01}},
      {"documents (fill-in-the-middle, multi-file)",
       nullptr,
       [](const conversation& c) { return !c.document.empty(); },
       {k01}},
  };
  return table;
}

}  // namespace

std::vector<diagnostic> unrepresentable_features(const conversation& c, dialect d) {
  std::vector<diagnostic> out;
  for (const auto& f : features()) {
    if (std::find(f.holders.begin(), f.holders.end(), d) != f.holders.end()) continue;
    std::string where;
    if (f.in_conversation) {
      if (!f.in_conversation(c)) continue;
      where = "conversation";
    } else {
      const auto it = std::find_if(c.messages.begin(), c.messages.end(), f.in_message);
      if (it == c.messages.end()) continue;
      where = "message " + std::to_string(it - c.messages.begin());
    }
    diagnostic w =
        make_error(error_code::unrepresentable, where + ": " + std::string(dialect_name(d)) +
                                                    " cannot hold " + f.name + " (dropped)");
    w.level = severity::warning;
    out.push_back(std::move(w));
  }
  return out;
}

bool convert_result::ok() const noexcept {
  return std::none_of(diagnostics.begin(), diagnostics.end(),
                      [](const diagnostic& d) { return d.level == severity::error; });
}

convert_result convert(std::string_view text, const convert_options& options) {
  convert_result out;
  parse_result parsed = parse(text, {.dialect = options.from, .lenient = options.lenient});
  out.diagnostics = std::move(parsed.diagnostics);
  if (!parsed.ok()) return out;
  for (auto& w : unrepresentable_features(parsed.conversation, options.to)) {
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
