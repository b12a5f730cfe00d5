// SPDX-License-Identifier: Apache-2.0
// harmony's system and developer message texts, and its built-in tool namespaces.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/join.hpp"
#include "ocml/harmony.hpp"

namespace ocml::harmony {

namespace {

// Rust's str::lines(): split on '\n', drop one trailing '\r' per line, no final empty line.
std::vector<std::string_view> rust_lines(std::string_view s) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    const auto nl = s.find('\n');
    std::string_view line = s.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    s.remove_prefix(nl + 1);
  }
  return out;
}

using detail::join;

// schema_to_typescript(parameters, "") of a tool by this name, remembered by the thread: a
// dataset declares the same tools in conversation after conversation (in changing sets
// and orders), and comparing a schema costs less than writing its TypeScript again. A
// schema is compared whole, never by a hash; the memo is forgotten at kMaxTypescripts.
constexpr std::size_t kMaxTypescripts = 1024;

const std::string& typescript_of(const std::string& name, const json& parameters) {
  struct entry {
    json parameters;
    std::string text;
  };
  thread_local std::unordered_map<std::string, std::vector<entry>> memo;
  thread_local std::size_t held = 0;
  if (auto it = memo.find(name); it != memo.end()) {
    for (const entry& e : it->second) {
      if (e.parameters == parameters) return e.text;
    }
  }
  std::string text = schema_to_typescript(parameters, "");
  if (held >= kMaxTypescripts) {
    memo.clear();
    held = 0;
  }
  auto& slot = memo[name];
  slot.push_back({parameters, std::move(text)});
  ++held;
  return slot.back().text;
}

// One namespace's section; `Tools` holds tool_description or tool (name, description,
// parameters), so the functions namespace is written from the conversation's tools
// without a copy of their schemas.
template <typename Tools>
std::string namespace_section(const std::string& name, const std::optional<std::string>& about,
                              const Tools& tools) {
  std::vector<std::string> lines{"## " + name + "\n"};
  if (about) {
    for (auto line : rust_lines(*about)) {
      lines.push_back(tools.empty() ? std::string(line) : "// " + std::string(line));
    }
  }
  if (!tools.empty()) {
    lines.push_back("namespace " + name + " {\n");
    for (const auto& t : tools) {
      for (auto line : rust_lines(t.description)) lines.push_back("// " + std::string(line));
      if (t.parameters.is_null()) {
        lines.push_back("type " + t.name + " = () => any;\n");
      } else {
        lines.push_back("type " + t.name + " = (_: " + typescript_of(t.name, t.parameters) +
                        ") => any;\n");
      }
    }
    lines.push_back("} // namespace " + name);
  }
  return join(lines, "\n");
}

const std::string kFunctions = "functions";

// The "# Tools" section: `namespaces` and, when `functions` is given, the functions
// namespace made of those tools (functions_namespace's), in name order.
std::string tools_section(const std::vector<tool_namespace>& namespaces,
                          const std::vector<tool>* functions = nullptr) {
  std::vector<const tool_namespace*> order;
  order.reserve(namespaces.size());
  for (const auto& ns : namespaces) order.push_back(&ns);
  std::stable_sort(
      order.begin(), order.end(),
      [](const tool_namespace* a, const tool_namespace* b) { return a->name < b->name; });
  std::vector<std::string> sections{"# Tools"};
  bool pending = functions != nullptr;
  const auto put_functions = [&] {
    sections.push_back(namespace_section(kFunctions, std::nullopt, *functions));
    pending = false;
  };
  for (const tool_namespace* ns : order) {
    if (pending && !(ns->name < kFunctions)) put_functions();
    sections.push_back(namespace_section(ns->name, ns->description, ns->tools));
  }
  if (pending) put_functions();
  return join(sections, "\n\n");
}

}  // namespace

system_content default_system_content() {
  system_content s;
  s.model_identity = "You are ChatGPT, a large language model trained by OpenAI.";
  s.effort = reasoning_effort::medium;
  s.knowledge_cutoff = "2024-06";
  s.valid_channels = {"analysis", "commentary", "final"};
  s.channel_required = true;
  return s;
}

std::string render_system_content(const system_content& s, bool has_function_tools) {
  std::vector<std::string> sections;
  std::vector<std::string> top;
  if (s.model_identity) top.push_back(*s.model_identity);
  if (s.knowledge_cutoff) top.push_back("Knowledge cutoff: " + *s.knowledge_cutoff);
  if (s.conversation_start_date) top.push_back("Current date: " + *s.conversation_start_date);
  if (!top.empty()) sections.push_back(join(top, "\n"));
  if (s.effort) {
    static constexpr const char* kEffort[] = {"low", "medium", "high"};
    sections.push_back(std::string("Reasoning: ") + kEffort[static_cast<int>(*s.effort)]);
  }
  if (!s.tools.empty()) sections.push_back(tools_section(s.tools));
  if (!s.valid_channels.empty()) {
    std::string h = "# Valid channels: " + join(s.valid_channels, ", ") + ".";
    if (s.channel_required) h += " Channel must be included for every message.";
    if (has_function_tools) {
      h += "\nCalls to these tools must go to the commentary channel: 'functions'.";
    }
    sections.push_back(h);
  }
  return join(sections, "\n\n");
}

std::string render_developer_content(const developer_content& d) {
  std::vector<std::string> sections;
  if (d.instructions) {
    sections.emplace_back("# Instructions");
    sections.push_back(*d.instructions);
  }
  if (!d.tools.empty()) sections.push_back(tools_section(d.tools));
  return join(sections, "\n\n");
}

}  // namespace ocml::harmony

namespace ocml::detail {

std::string harmony_developer_text(const std::optional<std::string>& instructions,
                                   const std::vector<tool>& functions) {
  std::vector<std::string> sections;
  if (instructions) {
    sections.emplace_back("# Instructions");
    sections.push_back(*instructions);
  }
  if (!functions.empty()) sections.push_back(harmony::tools_section({}, &functions));
  return join(sections, "\n\n");
}

}  // namespace ocml::detail

namespace ocml::harmony {

tool_namespace functions_namespace(const std::vector<tool>& tools) {
  tool_namespace ns;
  ns.name = "functions";
  for (const auto& t : tools) ns.tools.push_back({t.name, t.description, t.parameters});
  return ns;
}

tool_namespace browser_namespace() {
  tool_namespace ns;
  ns.name = "browser";
  ns.description =
      "Tool for browsing.\n"
      "The `cursor` appears in brackets before each browsing display: `[{cursor}]`.\n"
      "Cite information from the tool using the following format:\n"
      "`\u3010{cursor}\u2020L{line_start}(-L{line_end})?\u3011`, for example: "
      "`\u30106\u2020L9-L11\u3011` or `\u30108\u2020L3\u3011`.\n"
      "Do not quote more than 10 words directly from the tool output.\n"
      "sources=web (default: web)";
  const auto number = [](int def) { return json{{"type", "number"}, {"default", def}}; };
  ns.tools.push_back({"search",
                      "Searches for information related to `query` and displays `topn` results.",
                      json{{"type", "object"},
                           {"properties", json{{"query", json{{"type", "string"}}},
                                               {"topn", number(10)},
                                               {"source", json{{"type", "string"}}}}},
                           {"required", json::array({"query"})}}});
  ns.tools.push_back(
      {"open",
       "Opens the link `id` from the page indicated by `cursor` starting at line number `loc`, "
       "showing `num_lines` lines.\n"
       "Valid link ids are displayed with the formatting: `\u3010{id}\u2020.*\u3011`.\n"
       "If `cursor` is not provided, the most recent page is implied.\n"
       "If `id` is a string, it is treated as a fully qualified URL associated with `source`.\n"
       "If `loc` is not provided, the viewport will be positioned at the beginning of the "
       "document or centered on the most relevant passage, if available.\n"
       "Use this function without `id` to scroll to a new location of an opened page.",
       json{{"type", "object"},
            {"properties",
             json{{"id", json{{"type", json::array({"number", "string"})}, {"default", -1}}},
                  {"cursor", number(-1)},
                  {"loc", number(-1)},
                  {"num_lines", number(-1)},
                  {"view_source", json{{"type", "boolean"}, {"default", false}}},
                  {"source", json{{"type", "string"}}}}}}});
  ns.tools.push_back(
      {"find",
       "Finds exact matches of `pattern` in the current page, or the page given by `cursor`.",
       json{{"type", "object"},
            {"properties", json{{"pattern", json{{"type", "string"}}}, {"cursor", number(-1)}}},
            {"required", json::array({"pattern"})}}});
  return ns;
}

tool_namespace python_namespace() {
  tool_namespace ns;
  ns.name = "python";
  ns.description =
      "Use this tool to execute Python code in your chain of thought. The code will not be "
      "shown to the user. This tool should be used for internal reasoning, but not for code "
      "that is intended to be visible to the user (e.g. when creating plots, tables, or "
      "files).\n\n"
      "When you send a message containing Python code to python, it will be executed in a "
      "stateful Jupyter notebook environment. python will respond with the output of the "
      "execution or time out after 120.0 seconds. The drive at '/mnt/data' can be used to save "
      "and persist user files. Internet access for this session is UNKNOWN. Depends on the "
      "cluster.";
  return ns;
}

}  // namespace ocml::harmony
