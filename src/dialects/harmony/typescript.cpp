// SPDX-License-Identifier: Apache-2.0
// JSON Schema -> harmony's TypeScript-like parameter types, matching openai/harmony's text.
#include <string>
#include <unordered_set>

#include "core/join.hpp"
#include "ocml/harmony.hpp"

namespace ocml::harmony {

namespace {

bool is_enum(const json& s) {
  auto it = s.find("enum");
  return it != s.end() && it->is_array() && !it->empty();
}

bool is_nullable(const json& s) {
  auto it = s.find("nullable");
  return it != s.end() && it->is_boolean() && it->get<bool>();
}

const std::string* string_field(const json& s, const char* key) {
  auto it = s.find(key);
  return (it != s.end() && it->is_string()) ? &it->get_ref<const std::string&>() : nullptr;
}

// A `default` as harmony comments it: quoted string, bare enum string, or compact JSON.
std::string default_text(const json& owner, const json& def, bool bare_enum_strings) {
  if (def.is_string()) {
    const auto& s = def.get_ref<const std::string&>();
    if (!is_enum(owner)) return "default: \"" + s + "\"";
    if (bare_enum_strings) return "default: " + s;
  }
  return "default: " + def.dump();
}

std::string with_null(std::string type, const json& schema) {
  if (is_nullable(schema) && type.find("null") == std::string::npos) type += " | null";
  return type;
}

using detail::join;

std::string object_type(const json& schema, const std::string& indent);

std::string one_of_top(const json& variants, const std::string& indent) {
  std::string out;
  for (const json& v : variants) {
    out += "\n" + indent + " | ";
    out += with_null(schema_to_typescript(v, indent + "   "), v);
    std::vector<std::string> notes;
    if (const auto* d = string_field(v, "description")) notes.push_back(*d);
    if (auto it = v.find("default"); it != v.end()) notes.push_back(default_text(v, *it, false));
    if (!notes.empty()) out += " // " + join(notes, " ");
  }
  return out;
}

void one_of_property(std::string& out, const std::string& key, const json& val, bool required,
                     const std::string& indent) {
  const json& variants = val["oneOf"];
  const std::string* prop_desc = string_field(val, "description");
  bool skip_desc = false;
  if (prop_desc != nullptr && !variants.empty()) {
    const auto* first = string_field(variants[0], "description");
    skip_desc = first != nullptr && *first == *prop_desc;
  }
  const bool desc_above = !skip_desc && prop_desc != nullptr;
  if (desc_above) out += indent + "// " + *prop_desc + "\n";
  if (auto it = val.find("default"); it != val.end()) {
    out += indent + "// " + default_text(val, *it, true) + "\n";
  }
  out += indent + key + (required ? "" : "?") + ":\n";
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const json& v = variants[i];
    out += indent + " | ";
    out += with_null(schema_to_typescript(v, indent + "   "), v);
    std::vector<std::string> notes;
    if (!(i == 0 && desc_above)) {
      const auto* d = string_field(v, "description");
      if (d != nullptr && (prop_desc == nullptr || *d != *prop_desc)) notes.push_back(*d);
    }
    if (auto it = v.find("default"); it != v.end()) notes.push_back(default_text(v, *it, true));
    if (!notes.empty()) out += " // " + join(notes, " ");
    out += "\n";
  }
  out += indent + ",\n";
}

std::string object_type(const json& schema, const std::string& indent) {
  std::string out;
  if (const auto* d = string_field(schema, "description")) out += indent + "// " + *d + "\n";
  out += "{\n";
  auto props = schema.find("properties");
  if (props != schema.end() && props->is_object()) {
    std::unordered_set<std::string> required;
    if (auto r = schema.find("required"); r != schema.end() && r->is_array()) {
      for (const auto& x : *r) {
        if (x.is_string()) required.insert(x.get<std::string>());
      }
    }
    for (const auto& [key, val] : props->items()) {
      const bool req = required.count(key) > 0;
      if (const auto* t = string_field(val, "title")) {
        out += indent + "// " + *t + "\n" + indent + "//\n";
      }
      const bool has_one_of = val.contains("oneOf");
      if (!has_one_of) {
        if (const auto* d = string_field(val, "description")) out += indent + "// " + *d + "\n";
      }
      if (auto ex = val.find("examples"); ex != val.end() && ex->is_array() && !ex->empty()) {
        out += indent + "// Examples:\n";
        for (const auto& e : *ex) {
          if (e.is_string()) out += indent + "// - \"" + e.get<std::string>() + "\"\n";
        }
      }
      if (has_one_of && val["oneOf"].is_array()) {
        one_of_property(out, key, val, req, indent);
        continue;
      }
      out += indent + key + (req ? "" : "?") + ": ";
      out += with_null(schema_to_typescript(val, indent + "    "), val);
      out += ',';
      if (!has_one_of) {
        if (auto it = val.find("default"); it != val.end()) {
          out += " // " + default_text(val, *it, true);
        }
      }
      out += "\n";
    }
  }
  out += indent + "}";
  return out;
}

}  // namespace

std::string schema_to_typescript(const json& schema, std::string_view indent_view) {
  const std::string indent(indent_view);
  if (!schema.is_object()) return "any";
  if (auto it = schema.find("oneOf"); it != schema.end() && it->is_array()) {
    return one_of_top(*it, indent);
  }
  auto type = schema.find("type");
  if (type != schema.end() && type->is_array()) {
    std::vector<std::string> names;
    for (const auto& t : *type) {
      if (t.is_string()) names.push_back(t == "integer" ? "number" : t.get<std::string>());
    }
    if (!names.empty()) return join(names, " | ");
  }
  if (type == schema.end() || !type->is_string()) return "any";
  const auto& t = type->get_ref<const std::string&>();
  if (t == "object") return object_type(schema, indent);
  if (t == "string") {
    if (is_enum(schema)) {
      std::vector<std::string> vals;
      for (const auto& v : schema["enum"]) {
        if (v.is_string()) vals.push_back("\"" + v.get<std::string>() + "\"");
      }
      if (!vals.empty()) return join(vals, " | ");
    }
    return "string";
  }
  if (t == "number" || t == "integer") return "number";
  if (t == "boolean") return "boolean";
  if (t == "array") {
    auto items = schema.find("items");
    if (items != schema.end()) return schema_to_typescript(*items, indent) + "[]";
    return "Array<any>";
  }
  return "any";
}

}  // namespace ocml::harmony
