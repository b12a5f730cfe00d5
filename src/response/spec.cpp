// SPDX-License-Identifier: Apache-2.0
// Loading a response template, with every check transformers makes at load time (and the
// content arguments checked here rather than at the first region that needs them).
#include "response/spec.hpp"

#include <algorithm>
#include <cctype>

namespace ocml::resp {

namespace {

struct load_error {
  std::string message;
};

[[noreturn]] void fail(std::string message) {
  throw load_error{std::move(message)};
}

std::string type_of(const json& j) {
  switch (j.type()) {
    case json::value_t::object:
      return "dict";
    case json::value_t::array:
      return "list";
    case json::value_t::string:
      return "str";
    case json::value_t::boolean:
      return "bool";
    case json::value_t::null:
      return "None";
    case json::value_t::number_float:
      return "float";
    default:
      return "int";
  }
}

bool get_bool(const json& obj, const char* key, bool def, const std::string& scope) {
  const auto it = obj.find(key);
  if (it == obj.end()) return def;
  if (!it->is_boolean()) fail(scope + ": '" + key + "' must be a bool, got " + type_of(*it));
  return it->get<bool>();
}

std::shared_ptr<const regex> compile(const std::string& scope, const char* key,
                                     const json& pattern) {
  if (!pattern.is_string()) fail(scope + ": '" + key + "' must be a string");
  std::string err;
  auto re = regex::compile(pattern.get_ref<const std::string&>(), err);
  if (re == nullptr) fail(scope + ": invalid " + key + " regex: " + err);
  return re;
}

delimiter load_delimiter(const std::string& scope, const json& obj, const char* lit_key,
                         const char* pat_key) {
  delimiter d;
  const auto lit = obj.find(lit_key);
  const auto pat = obj.find(pat_key);
  if (lit != obj.end() && pat != obj.end()) {
    fail(scope + ": cannot specify both '" + lit_key + "' and '" + pat_key + "'");
  }
  if (lit != obj.end()) {
    std::vector<std::string> lits;
    if (lit->is_string()) {
      lits.push_back(lit->get<std::string>());
    } else if (lit->is_array()) {
      if (lit->empty()) fail(scope + ": '" + lit_key + "' list must contain at least one literal");
      for (const auto& s : *lit) {
        if (!s.is_string()) fail(scope + ": '" + lit_key + "' list must contain only strings");
        const auto& v = s.get_ref<const std::string&>();
        if (std::find(lits.begin(), lits.end(), v) == lits.end()) lits.push_back(v);
      }
    } else {
      fail(scope + ": '" + lit_key + "' must be a string or list of strings, got " + type_of(*lit));
    }
    for (const auto& s : lits) {
      if (s.empty()) fail(scope + ": '" + lit_key + "' literals cannot be empty strings");
    }
    if (std::find(lits.begin(), lits.end(), "eos") != lits.end()) {
      if (lits.size() > 1)
        fail(scope + ": the 'eos' literal cannot be combined with other literals");
      d.eos = true;
      return d;
    }
    for (const auto& a : lits) {
      for (const auto& b : lits) {
        d.can_extend = d.can_extend || (a != b && a.starts_with(b));
      }
    }
    std::stable_sort(lits.begin(), lits.end(), [](const std::string& a, const std::string& b) {
      return a.size() > b.size();
    });
    d.lits = std::move(lits);
  } else if (pat != obj.end()) {
    d.re = compile(scope, pat_key, *pat);
  }
  return d;
}

content_type content_named(const std::string& scope, const std::string& name) {
  if (name == "text") return content_type::text;
  if (name == "int") return content_type::int_;
  if (name == "float") return content_type::float_;
  if (name == "bool") return content_type::bool_;
  if (name == "json") return content_type::json;
  if (name == "xml-inline") return content_type::xml_inline;
  if (name == "kv-lines") return content_type::kv_lines;
  fail(scope + ": unknown content parser '" + name +
       "'. Available: ['bool', 'float', 'int', 'json', 'kv-lines', 'text', 'xml-inline']");
}

content_spec load_content(const std::string& scope, const std::string& name, const json& args);

std::shared_ptr<const content_spec> load_value_parser(const std::string& scope, const json& args) {
  const auto vp = args.find("value_parser");
  if (vp == args.end() || vp->is_null()) return nullptr;
  if (!vp->is_object()) fail(scope + ": 'value_parser' must be a dict");
  const auto n = vp->find("name");
  const std::string name = n == vp->end() ? "text" : n->is_string() ? n->get<std::string>() : "";
  if (name.empty()) fail(scope + ": value_parser 'name' must be a string");
  const auto a = vp->find("args");
  const json none = json::object();
  return std::make_shared<const content_spec>(
      load_content(scope + ".value_parser", name, a == vp->end() ? none : *a));
}

content_spec load_content(const std::string& scope, const std::string& name, const json& args) {
  if (!args.is_object()) fail(scope + ": 'content_args' must be a dict");
  content_spec c;
  c.type = content_named(scope, name);
  c.strip = get_bool(args, "strip", true, scope);
  switch (c.type) {
    case content_type::json: {
      c.unquoted_keys = get_bool(args, "unquoted_keys", false, scope);
      c.allow_non_json = get_bool(args, "allow_non_json", false, scope);
      const auto sd = args.find("string_delims");
      if (sd != args.end() && !sd->is_null()) {
        if (!sd->is_array())
          fail(scope + ": 'string_delims' must be a list of [open, close] pairs");
        for (const auto& pair : *sd) {
          if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() ||
              !pair[1].is_string() || pair[0].get_ref<const std::string&>().empty() ||
              pair[1].get_ref<const std::string&>().empty()) {
            fail(scope + ": each entry in string_delims must be a [open, close] pair of strings");
          }
          c.string_delims.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
        }
      }
      break;
    }
    case content_type::xml_inline: {
      const auto tp = args.find("tag_pattern");
      if (tp == args.end()) fail(scope + ": xml-inline: 'tag_pattern' content_arg is required");
      c.tag = compile(scope, "tag_pattern", *tp);
      const auto& names = c.tag->names();
      if (std::find(names.begin(), names.end(), "key") == names.end()) {
        fail(scope + ": xml-inline: tag_pattern must have a named group 'key'");
      }
      if (c.tag->matches_empty())
        fail(scope + ": xml-inline: tag_pattern matches the empty string");
      c.merge_duplicates = get_bool(args, "merge_duplicates", false, scope);
      c.value_parser = load_value_parser(scope, args);
      break;
    }
    case content_type::kv_lines: {
      for (const char* k : {"line_sep", "kv_sep"}) {
        const auto it = args.find(k);
        if (it == args.end()) continue;
        if (!it->is_string() || it->get_ref<const std::string&>().empty()) {
          fail(scope + ": kv-lines: '" + k + "' must be a non-empty string");
        }
        (std::string(k) == "line_sep" ? c.line_sep : c.kv_sep) = it->get<std::string>();
      }
      c.value_parser = load_value_parser(scope, args);
      break;
    }
    default:
      break;
  }
  return c;
}

// A placeholder is a whole string "{name}" with name made of word characters.
bool is_placeholder(std::string_view s) {
  if (s.size() < 3 || s.front() != '{' || s.back() != '}') return false;
  for (std::size_t i = 1; i + 1 < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (!(std::isalnum(c) != 0 || c == '_' || c >= 0x80)) return false;
  }
  return true;
}

bool has_embedded_placeholder(std::string_view s) {
  for (std::size_t i = s.find('{'); i != std::string_view::npos; i = s.find('{', i + 1)) {
    const std::size_t close = s.find('}', i);
    if (close == std::string_view::npos) return false;
    if (is_placeholder(s.substr(i, close - i + 1))) return true;
  }
  return false;
}

void check_transform(const std::string& scope, const json& t) {
  if (t.is_object()) {
    for (const auto& [k, v] : t.items()) check_transform(scope, v);
  } else if (t.is_array()) {
    for (const auto& v : t) check_transform(scope, v);
  } else if (t.is_string()) {
    const auto& s = t.get_ref<const std::string&>();
    if (!is_placeholder(s) && has_embedded_placeholder(s)) {
      fail(scope + ": transform string '" + s +
           "' mixes text and placeholders; a placeholder must be the whole string");
    }
  }
}

field_spec load_field(const std::string& name, const json& f) {
  static constexpr std::string_view kAllowed[] = {
      "open", "open_pattern", "close", "close_pattern", "content", "content_args", "repeats",
      "optional", "transform", "transform_each", "join",
      // ocml's extensions (docs/response-templates.md)
      "x-ocml-json-end", "x-ocml-once", "x-ocml-fallback", "x-ocml-declared-tools-only",
      "x-ocml-untyped-values", "x-ocml-inside"};
  const std::string scope = "Field '" + name + "'";
  if (!f.is_object()) fail(scope + " must be a dict");
  std::string unknown;
  for (const auto& [k, v] : f.items()) {
    if (std::find(std::begin(kAllowed), std::end(kAllowed), k) == std::end(kAllowed)) {
      unknown += (unknown.empty() ? "'" : ", '") + k + "'";
    }
  }
  if (!unknown.empty()) fail(scope + ": unknown keys [" + unknown + "]");
  field_spec fs;
  fs.name = name;
  const auto content = f.find("content");
  std::string cname = "text";
  if (content != f.end()) {
    if (!content->is_string()) fail(scope + ": 'content' must be a string");
    cname = content->get<std::string>();
  }
  const auto args = f.find("content_args");
  const json none = json::object();
  fs.content = load_content(scope, cname, args == f.end() || args->is_null() ? none : *args);
  fs.open = load_delimiter(scope, f, "open", "open_pattern");
  fs.close = load_delimiter(scope, f, "close", "close_pattern");
  if (fs.open.eos) fail(scope + ": 'eos' can only close a region");
  if (fs.open.re != nullptr && fs.open.re->matches_empty()) {
    fail(scope + ": open_pattern matches the empty string (the parser could make no progress)");
  }
  fs.repeats = get_bool(f, "repeats", false, scope);
  fs.optional = get_bool(f, "optional", true, scope);
  fs.transform_each = get_bool(f, "transform_each", false, scope);
  const auto tr = f.find("transform");
  if (tr != f.end() && !tr->is_null()) {
    check_transform(scope, *tr);
    fs.transform = *tr;
  }
  if (fs.transform_each && !fs.transform) {
    fail(scope + ": transform_each is set but no transform was provided");
  }
  if (!fs.transform) {
    std::vector<std::string> named;
    for (const auto* d : {&fs.open, &fs.close}) {
      if (d->re != nullptr) named.insert(named.end(), d->re->names().begin(), d->re->names().end());
    }
    if (!named.empty()) {
      fail(scope +
           ": open_pattern/close_pattern declares named group(s) but the field has no "
           "'transform' (captures only reach the output through a transform)");
    }
  }
  const auto join = f.find("join");
  if (join != f.end() && !join->is_null()) {
    if (!join->is_string()) fail(scope + ": 'join' must be a string");
    // transformers' loader (and vLLM's copy of it): `join` folds the matches of a repeating
    // field into one string, so it needs `repeats` (docs/decisions.md 91).
    if (!fs.repeats) fail(scope + ": 'join' requires 'repeats': true");
    fs.join = join->get<std::string>();
  }
  // {"type": "function", "function": {"name": "{X}", "arguments": "{content}"}} over
  // xml-inline or JSON content: a call named by capture X, its arguments streamable.
  // (JSON as JSON: unquoted keys and other string delimiters are parsed at the close.)
  const bool json_body = fs.content.type == content_type::json && !fs.content.unquoted_keys &&
                         fs.content.string_delims.empty();
  if (fs.transform && (fs.content.type == content_type::xml_inline || json_body) &&
      fs.transform->is_object()) {
    const auto fn = fs.transform->find("function");
    const json& call = fn != fs.transform->end() && fn->is_object() ? *fn : *fs.transform;
    const auto name = call.find("name");
    const auto args = call.find("arguments");
    if (name != call.end() && args != call.end() && *args == "{content}" && name->is_string() &&
        is_placeholder(name->get_ref<const std::string&>())) {
      const auto& n = name->get_ref<const std::string&>();
      fs.stream_name = n.substr(1, n.size() - 2);
    }
  }
  // A JSON body that is the call itself, or wrapped as {"type": "function", "function":
  // "{content}"} (Hermes, Qwen): its name and arguments stream from the body.
  if (json_body && fs.name == "tool_calls" && fs.stream_name.empty()) {
    const json wrapped = {{"type", "function"}, {"function", "{content}"}};
    fs.json_call = !fs.transform || *fs.transform == wrapped;
    fs.json_call_id = !fs.transform;
  }
  fs.json_end = get_bool(f, "x-ocml-json-end", false, scope);
  if (fs.json_end && fs.content.type != content_type::json) {
    fail(scope + ": 'x-ocml-json-end' needs 'content': 'json'");
  }
  fs.once = get_bool(f, "x-ocml-once", false, scope);
  fs.declared_only = get_bool(f, "x-ocml-declared-tools-only", false, scope);
  const auto fb = f.find("x-ocml-fallback");
  if (fb != f.end()) {
    if (!fb->is_string() || (*fb != "text" && *fb != "error")) {
      fail(scope + ": 'x-ocml-fallback' must be \"text\" or \"error\"");
    }
    fs.text_fallback = *fb == "text";
  }
  const auto uv = f.find("x-ocml-untyped-values");
  if (uv != f.end()) {
    if (!uv->is_string() || (*uv != "json" && *uv != "text")) {
      fail(scope + ": 'x-ocml-untyped-values' must be \"json\" or \"text\"");
    }
    fs.untyped_json = *uv == "json";
  }
  return fs;
}

spec load(const json& j) {
  if (!j.is_object()) fail("response_template must be a dict, got " + type_of(j));
  std::string unknown;
  for (const auto& [k, v] : j.items()) {
    if (k != "version" && k != "defaults" && k != "fields" && k != "start_anchor" &&
        k != "start_anchor_pattern" && k != "x-ocml-skip") {
      unknown += (unknown.empty() ? "'" : ", '") + k + "'";
    }
  }
  if (!unknown.empty()) fail("Unknown keys in response_template: [" + unknown + "]");
  const auto version = j.find("version");
  if (version != j.end() && !(version->is_number_integer() && version->get<long long>() == 1)) {
    fail("Unsupported response_template version: " + version->dump());
  }
  spec s;
  const auto defaults = j.find("defaults");
  if (defaults != j.end()) {
    if (!defaults->is_object()) fail("response_template.defaults must be a dict");
    s.defaults = *defaults;
  }
  const auto fields = j.find("fields");
  if (fields == j.end() || !fields->is_object() || fields->empty()) {
    fail("response_template.fields must be a non-empty dict");
  }
  std::string implicit;
  std::vector<std::pair<std::size_t, std::string>> insides;
  for (const auto& [name, f] : fields->items()) {
    s.fields.push_back(load_field(name, f));
    const auto in = f.find("x-ocml-inside");
    if (in != f.end()) {
      if (!in->is_string()) fail("Field '" + name + "': 'x-ocml-inside' must name a field");
      insides.emplace_back(s.fields.size() - 1, in->get<std::string>());
    }
    if (s.fields.back().implicit()) {
      if (s.implicit >= 0) {
        fail(
            "At most one field may omit 'open'/'open_pattern' (that field becomes the implicit "
            "/ leftover field). Found: " +
            implicit + ", " + name);
      }
      implicit = name;
      s.implicit = static_cast<int>(s.fields.size() - 1);
    }
  }
  for (const auto& inside : insides) {
    const std::size_t at = inside.first;
    const std::string& name = inside.second;
    const auto it = std::find_if(s.fields.begin(), s.fields.end(),
                                 [&name](const field_spec& f) { return f.name == name; });
    if (it == s.fields.end() || it->implicit() || it->name == s.fields[at].name) {
      fail("Field '" + s.fields[at].name +
           "': 'x-ocml-inside' must name another field that "
           "has an open delimiter, not '" +
           name + "'");
    }
    s.fields[at].inside = static_cast<int>(it - s.fields.begin());
    s.has_inside = true;
  }
  if (j.contains("x-ocml-skip")) {
    // Stray markers read as structure wherever the implicit field reads (Granite's
    // <response>, Command-R's <|START_RESPONSE|>): a field of no region.
    field_spec skip;
    skip.name = "x-ocml-skip";
    skip.skip = true;
    skip.open = load_delimiter("response_template", j, "x-ocml-skip", "x-ocml-skip-pattern");
    if (skip.open.eos) fail("response_template: 'eos' cannot be skipped");
    s.fields.push_back(std::move(skip));
  }
  for (const auto& f : s.fields) {
    for (const auto* d : {&f.open, &f.close}) {
      if (d->re != nullptr) s.lookbehind = std::max(s.lookbehind, d->re->lookbehind());
    }
  }
  s.anchor = load_delimiter("response_template", j, "start_anchor", "start_anchor_pattern");
  if (s.anchor.eos) fail("response_template: 'eos' cannot be a start anchor");
  return s;
}

}  // namespace

result<spec> load_spec(const json& j) {
  try {
    return load(j);
  } catch (const load_error& e) {
    return make_error(error_code::response_template, e.message);
  }
}

}  // namespace ocml::resp
