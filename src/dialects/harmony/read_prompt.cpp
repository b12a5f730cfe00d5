// SPDX-License-Identifier: Apache-2.0
// The inverse of build_prompt: gpt-oss's system and developer preamble read back as what
// it says (instructions, function tools), so a conversion keeps meaning, not markup.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "interchange/json_util.hpp"
#include "ocml/harmony.hpp"

namespace ocml::harmony {

namespace {

// Lines of `s` (without their '\n').
std::vector<std::string_view> lines_of(std::string_view s) {
  std::vector<std::string_view> out;
  for (std::size_t b = 0; b <= s.size();) {
    const std::size_t e = std::min(s.find('\n', b), s.size());
    out.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Reads the TypeScript-like types schema_to_typescript writes, for the shapes it writes
// from plain schemas: objects (with `// description` lines and optional `?` keys), string
// enums, string, number, boolean, any, arrays (`T[]`, `Array<T>`), `| null` and
// `// default: VALUE` comments. Anything else is not
// read (nullopt): the tool keeps no parameters rather than wrong ones.
class type_reader {
 public:
  explicit type_reader(std::vector<std::string_view> lines) : lines_(std::move(lines)) {}

  // An object whose "{" ended the previous line; consumes through its closing line, whose
  // text after "}" is left in `rest`.
  std::optional<json> object(std::string_view& rest) {
    json props = json::object();
    json required = json::array();
    std::string description;
    while (at_ < lines_.size()) {
      const std::string_view line = trim(lines_[at_++]);
      if (line.starts_with("}")) {
        rest = line.substr(1);
        json o = json::object();
        o["type"] = "object";
        o["properties"] = std::move(props);
        if (!required.empty()) o["required"] = std::move(required);
        return o;
      }
      if (line.starts_with("//")) {
        description = std::string(trim(line.substr(2)));
        continue;
      }
      const std::size_t colon = line.find(':');
      if (colon == std::string_view::npos || colon == 0) return std::nullopt;
      std::string_view key = line.substr(0, colon);
      const bool optional = key.ends_with('?');
      if (optional) key.remove_suffix(1);
      std::string_view type = trim(line.substr(colon + 1));
      if (type.starts_with("//") && at_ < lines_.size()) {
        // An object property's description follows its key; its type, the next line.
        description = std::string(trim(type.substr(2)));
        type = trim(lines_[at_++]);
      }
      std::optional<json> schema;
      if (type == "{") {
        std::string_view after;
        schema = object(after);
        after = trim(after);
        if (!schema || !after.starts_with(',')) return std::nullopt;
        after = trim(after.substr(1));
        if (after.starts_with("// default: ")) {
          // A string default is written between quotes as it is: JSON or not readable.
          if (auto v = detail::try_parse_json(after.substr(12)))
            (*schema)["default"] = std::move(*v);
        } else if (!after.empty()) {
          return std::nullopt;
        }
      } else {
        std::string_view comment;
        if (const auto c = type.find(" //"); c != std::string_view::npos) {
          comment = trim(type.substr(c + 3));
          type = type.substr(0, c);
        }
        if (!type.ends_with(',')) return std::nullopt;
        type.remove_suffix(1);
        schema = scalar(trim(type));
        // "// default: VALUE" (the schema's default, as JSON)
        if (schema && comment.starts_with("default: ")) {
          const std::string_view value = comment.substr(9);
          if (auto v = detail::try_parse_json(value)) (*schema)["default"] = std::move(*v);
        }
      }
      if (!schema) return std::nullopt;
      if (!description.empty()) (*schema)["description"] = std::move(description);
      description.clear();
      props[std::string(key)] = std::move(*schema);
      if (!optional) required.push_back(std::string(key));
    }
    return std::nullopt;
  }

  [[nodiscard]] std::size_t at() const { return at_; }

 private:
  static std::optional<json> scalar(std::string_view t) {
    if (t.ends_with(" | null")) {
      auto s = scalar(t.substr(0, t.size() - 7));
      if (s) (*s)["nullable"] = true;
      return s;
    }
    if (t.ends_with("[]")) {
      auto items = scalar(t.substr(0, t.size() - 2));
      if (!items) return std::nullopt;
      return json{{"type", "array"}, {"items", std::move(*items)}};
    }
    if (t.starts_with("Array<") && t.ends_with('>')) {  // an array whose items are not typed
      const std::string_view inner = t.substr(6, t.size() - 7);
      if (inner == "any") return json{{"type", "array"}};
      auto items = scalar(inner);
      if (!items) return std::nullopt;
      return json{{"type", "array"}, {"items", std::move(*items)}};
    }
    if (t == "string" || t == "number" || t == "boolean") return json{{"type", std::string(t)}};
    if (t == "any") return json::object();
    if (t.starts_with('"')) {  // "a" | "b"
      json values = json::array();
      while (!t.empty()) {
        if (!t.starts_with('"')) return std::nullopt;
        const auto close = t.find('"', 1);
        if (close == std::string_view::npos) return std::nullopt;
        values.push_back(std::string(t.substr(1, close - 1)));
        t = trim(t.substr(close + 1));
        if (t.starts_with('|')) t = trim(t.substr(1));
      }
      return json{{"type", "string"}, {"enum", std::move(values)}};
    }
    return std::nullopt;
  }

  std::vector<std::string_view> lines_;
  std::size_t at_ = 0;
};

// The tools of "namespace functions { ... } // namespace functions" in `text`.
std::vector<tool> read_functions(std::string_view text) {
  std::vector<tool> tools;
  const auto open = text.find("namespace functions {\n");
  const auto close = text.find("} // namespace functions");
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return tools;
  }
  const std::string_view body = text.substr(open + 22, close - open - 22);
  const auto lines = lines_of(body);
  std::string description;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (line.starts_with("// ")) {
      description += (description.empty() ? "" : "\n") + std::string(line.substr(3));
      continue;
    }
    if (!line.starts_with("type ")) continue;
    const auto eq = line.find(" = ");
    if (eq == std::string_view::npos) continue;
    tool t;
    t.name = std::string(line.substr(5, eq - 5));
    t.description = std::move(description);
    description.clear();
    const std::string_view sig = line.substr(eq + 3);
    if (sig == "(_: {") {  // the parameters object runs from the next line
      type_reader obj({lines.begin() + static_cast<std::ptrdiff_t>(i) + 1, lines.end()});
      std::string_view after;
      auto schema = obj.object(after);
      if (schema && trim(after) == ") => any;") t.parameters = std::move(*schema);
      i += obj.at();
    }
    tools.push_back(std::move(t));
  }
  return tools;
}

}  // namespace

conversation read_prompt(const conversation& c) {
  const auto& ms = c.messages;
  const bool has_system = !ms.empty() && ms[0].role == role::system &&
                          ms[0].content.find("# Valid channels:") != std::string::npos;
  if (!has_system) return c;
  conversation out;
  out.header = c.header;
  out.tools = c.tools;
  out.document = c.document;
  std::size_t next = 1;
  if (ms.size() > 1 && ms[1].role == role::developer) {
    const std::string_view dev = ms[1].content;
    std::string_view instructions;
    if (dev.starts_with("# Instructions\n\n")) {
      instructions = dev.substr(16);
      instructions = instructions.substr(0, instructions.find("\n\n# Tools\n\n"));
    }
    if (!instructions.empty()) {
      message sys;
      sys.role = role::system;
      sys.content = std::string(instructions);
      out.messages.push_back(std::move(sys));
    }
    if (out.tools.empty()) out.tools = read_functions(dev);
    next = 2;
  }
  for (std::size_t i = next; i < ms.size(); ++i) out.messages.push_back(ms[i]);
  return out;
}

}  // namespace ocml::harmony
