// SPDX-License-Identifier: Apache-2.0
// The content parsers of transformers' response templates, with Python's conversions.
#include "response/content.hpp"

#include "interchange/json_util.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "core/utf8.hpp"

namespace ocml::resp {

namespace {

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Digits with single underscores between them ("1_000"); appends the digits to `out`.
bool py_digits(std::string_view s, std::string& out) {
  if (s.empty() || s.front() == '_' || s.back() == '_') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '_') {
      if (s[i + 1] == '_') return false;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return false;
    out += c;
  }
  return true;
}

bool is_word(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  return std::isalnum(c) != 0 || c == '_' || c >= 0x80;
}

// Quotes bare keys: an identifier right after '{' or ',' (white space allowed) and before
// ':'. Text inside JSON strings is left alone.
std::string quote_keys(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 16);
  bool in_string = false;
  bool after_sep = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < s.size()) {
        out += s[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      after_sep = false;
      out += c;
      continue;
    }
    if (c == '{' || c == ',') {
      after_sep = true;
      out += c;
      continue;
    }
    if (after_sep && is_word(s, i)) {
      std::size_t e = i;
      while (e < s.size() && is_word(s, e)) ++e;
      std::size_t k = e;
      while (k < s.size() && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r')) ++k;
      if (k < s.size() && s[k] == ':') {
        out += '"';
        out.append(s.substr(i, e - i));
        out += '"';
        i = e - 1;
        after_sep = false;
        continue;
      }
    }
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') after_sep = false;
    out += c;
  }
  return out;
}

bool parse_json(std::string_view body, const content_spec& c, json& out, content_error& err) {
  std::string working(body);
  std::vector<std::string> captured;
  if (!c.string_delims.empty()) {
    if (working.find_first_of("\x01\x02") != std::string::npos) {
      err = "json: input contains reserved sentinel characters (\\x01/\\x02)";
      return false;
    }
    for (const auto& [open, close] : c.string_delims) {
      std::string next;
      std::size_t at = 0;
      for (;;) {
        const std::size_t o = working.find(open, at);
        if (o == std::string::npos) break;
        const std::size_t e = working.find(close, o + open.size());
        if (e == std::string::npos) break;
        next.append(working, at, o - at);
        captured.push_back(working.substr(o + open.size(), e - o - open.size()));
        next += '\x01' + std::to_string(captured.size() - 1) + '\x02';
        at = e + close.size();
      }
      next.append(working, at, std::string::npos);
      working = std::move(next);
    }
  }
  if (c.unquoted_keys) working = quote_keys(working);
  for (std::size_t i = 0; i < captured.size(); ++i) {
    const std::string mark = '\x01' + std::to_string(i) + '\x02';
    const std::size_t at = working.find(mark);
    if (at != std::string::npos) working.replace(at, mark.size(), json(captured[i]).dump());
  }
  // Depth-guarded (model output may nest without end): too deep is refused before any
  // recursive code sees it, even where non-JSON text is allowed (the text is kept).
  if (const std::size_t at = detail::json_too_deep(working, default_max_json_depth);
      at != std::string_view::npos) {
    err = "JSON nests deeper than " + std::to_string(default_max_json_depth) + " levels (at byte " +
          std::to_string(at) + " of the region)";
    err.code = error_code::limit_exceeded;
    return false;
  }
  if (auto parsed = detail::try_parse_json(working)) {
    out = std::move(*parsed);
    return true;
  }
  if (c.allow_non_json) {
    out = std::string(detail::py_strip_ws(body));
    return true;
  }
  err = "json parser could not parse region as JSON";
  return false;
}

bool sub_parse(const std::string* raw, const content_spec* vp, json& out, content_error& err) {
  if (raw == nullptr) {
    out = nullptr;
    return true;
  }
  if (vp == nullptr) {
    out = *raw;
    return true;
  }
  return parse_content(*raw, *vp, out, err);
}

bool parse_xml_inline(std::string_view body, const content_spec& c, json& out, content_error& err) {
  out = json::object();
  regex_match m;
  std::size_t at = 0;
  while (at <= body.size()) {
    const search_status st = c.tag->search(body, at, false, m);
    if (st == search_status::limit) {
      err = "xml-inline: tag_pattern exceeded the match limit";
      return false;
    }
    if (st == search_status::none) break;
    std::string key;
    json v;
    err.text.clear();
    if (xml_item(m, c, key, v, err)) {
      auto it = out.find(key);
      if (it != out.end() && c.merge_duplicates) {
        if (!it->is_array()) *it = json::array({*it});
        it->push_back(std::move(v));
      } else {
        out[key] = std::move(v);
      }
    } else if (!err.text.empty()) {
      return false;
    }
    at = m.end > m.start ? m.end : m.end + 1;
  }
  return true;
}

bool parse_kv_lines(std::string_view body, const content_spec& c, json& out, content_error& err) {
  out = json::object();
  std::size_t at = 0;
  for (;;) {
    const std::size_t sep = body.find(c.line_sep, at);
    std::string_view line = body.substr(at, sep == std::string_view::npos ? body.npos : sep - at);
    if (c.strip) line = detail::py_strip_ws(line);
    const std::size_t kv = line.find(c.kv_sep);
    if (!line.empty() && kv != std::string_view::npos) {
      std::string_view k = line.substr(0, kv);
      std::string_view v = line.substr(kv + c.kv_sep.size());
      if (c.strip) {
        k = detail::py_strip_ws(k);
        v = detail::py_strip_ws(v);
      }
      const std::string raw(v);
      json val;
      if (!sub_parse(&raw, c.value_parser.get(), val, err)) return false;
      out[std::string(k)] = std::move(val);
    }
    if (sep == std::string_view::npos) break;
    at = sep + c.line_sep.size();
  }
  return true;
}

const json* lookup(std::string_view name, const json* element, const json& content) {
  if (element != nullptr && element->is_object()) {
    const auto it = element->find(name);
    if (it != element->end()) return &*it;
  }
  if (name == "content") return &content;
  return nullptr;
}

bool fill(const json& t, const json* element, const json& content, const captures& caps, json& out,
          std::string& err) {
  if (t.is_object()) {
    out = json::object();
    for (const auto& [k, v] : t.items()) {
      json x;
      if (!fill(v, element, content, caps, x, err)) return false;
      out[k] = std::move(x);
    }
    return true;
  }
  if (t.is_array()) {
    out = json::array();
    for (const auto& v : t) {
      json x;
      if (!fill(v, element, content, caps, x, err)) return false;
      out.push_back(std::move(x));
    }
    return true;
  }
  if (t.is_string()) {
    const auto& s = t.get_ref<const std::string&>();
    if (s.size() >= 3 && s.front() == '{' && s.back() == '}' &&
        s.find_first_of("{} ", 1) == s.size() - 1) {
      const std::string_view name = std::string_view(s).substr(1, s.size() - 2);
      if (const json* v = lookup(name, element, content)) {
        out = *v;
        return true;
      }
      for (const auto& [n, v] : caps) {
        if (n == name) {
          out = v;
          return true;
        }
      }
      err = "transform references unknown name '" + std::string(name) + "'";
      return false;
    }
  }
  out = t;
  return true;
}

std::vector<std::string> schema_types(const json& schema) {
  std::vector<std::string> types;
  if (!schema.is_object()) return types;
  const auto t = schema.find("type");
  if (t != schema.end()) {
    if (t->is_string()) types.push_back(t->get<std::string>());
    if (t->is_array()) {
      for (const auto& x : *t) {
        if (x.is_string()) types.push_back(x.get<std::string>());
      }
    }
  }
  const auto any = schema.find("anyOf");
  if (any != schema.end() && any->is_array()) {
    for (const auto& choice : *any) {
      const auto sub = schema_types(choice);
      types.insert(types.end(), sub.begin(), sub.end());
    }
  }
  const auto nullable = schema.find("nullable");
  if (nullable != schema.end() && nullable->is_boolean() && nullable->get<bool>() &&
      std::find(types.begin(), types.end(), "null") == types.end()) {
    types.emplace_back("null");
  }
  return types;
}

// Schema type names as JSON Schema spells them, and the names models' tool declarations
// use instead ("float", "int", "dict"…: lenient type names, issue 26).
std::string_view schema_type(std::string_view t) {
  if (t == "float" || t == "double" || t == "decimal") return "number";
  if (t == "int" || t == "long") return "integer";
  if (t == "bool") return "boolean";
  if (t == "dict" || t == "map") return "object";
  if (t == "list" || t == "tuple") return "array";
  if (t == "str" || t == "text") return "string";
  return t;
}

json coerce(const std::string& raw, const std::vector<std::string>& types) {
  for (const auto& name : types) {
    const std::string_view t = schema_type(name);
    if (t == "integer") {
      json v;
      if (py_int(raw, v)) return v;
    } else if (t == "number") {
      double d = 0;
      if (py_float(raw, d) && std::isfinite(d)) {
        if (d == std::floor(d) && raw.find('.') == std::string::npos && std::fabs(d) < 9.2e18) {
          return static_cast<long long>(d);
        }
        return d;
      }
    } else if (t == "boolean") {
      const std::string l = ascii_lower(detail::py_strip_ws(raw));
      if (l == "true" || l == "1") return true;
      if (l == "false" || l == "0") return false;
    } else if (t == "null") {
      const std::string_view s = detail::py_strip_ws(raw);
      if (s == "null" || s == "None") return nullptr;
    } else if (t == "object" || t == "array") {
      auto v = detail::try_parse_json(raw);
      if (v && (t == "object" ? v->is_object() : v->is_array())) return std::move(*v);
    }
  }
  return raw;
}

}  // namespace

bool py_int(std::string_view s, json& out) {
  s = detail::py_strip_ws(s);
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  std::string digits;
  if (!py_digits(s, digits)) return false;
  const std::size_t nz = digits.find_first_not_of('0');
  digits = nz == std::string::npos ? "0" : digits.substr(nz);
  if (digits.size() > 19) return false;  // beyond 64 bits (Python would go on; ocml refuses)
  unsigned long long v = 0;
  for (const char c : digits) v = v * 10 + static_cast<unsigned>(c - '0');
  if (digits.size() == 19 && v < 1000000000000000000ULL) return false;  // wrapped
  if (neg) {
    if (v > static_cast<unsigned long long>(std::numeric_limits<long long>::max()) + 1) {
      return false;
    }
    out = v == 0 ? 0LL : static_cast<long long>(0ULL - v);
    return true;
  }
  if (v <= static_cast<unsigned long long>(std::numeric_limits<long long>::max())) {
    out = static_cast<long long>(v);
  } else {
    out = v;
  }
  return true;
}

bool py_float(std::string_view s, double& out) {
  s = detail::py_strip_ws(s);
  std::string t;
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) t += s[i++];
  const std::string word = ascii_lower(s.substr(i));
  if (word == "inf" || word == "infinity" || word == "nan") {
    out = word == "nan" ? std::numeric_limits<double>::quiet_NaN()
                        : std::numeric_limits<double>::infinity();
    if (!t.empty() && t[0] == '-') out = -out;
    return true;
  }
  // mantissa: digits [. digits] | . digits ; exponent: e [sign] digits
  const std::size_t e_at = s.find_first_of("eE", i);
  const std::string_view mant = s.substr(i, e_at == std::string_view::npos ? s.npos : e_at - i);
  const std::size_t dot = mant.find('.');
  const std::string_view ip = mant.substr(0, dot);
  const std::string_view fp =
      dot == std::string_view::npos ? std::string_view{} : mant.substr(dot + 1);
  if (ip.empty() && fp.empty()) return false;
  if (!ip.empty() && !py_digits(ip, t)) return false;
  if (dot != std::string_view::npos) {
    t += '.';
    if (!fp.empty() && !py_digits(fp, t)) return false;
  }
  if (e_at != std::string_view::npos) {
    std::string_view ex = s.substr(e_at + 1);
    t += 'e';
    if (!ex.empty() && (ex[0] == '+' || ex[0] == '-')) {
      t += ex[0];
      ex.remove_prefix(1);
    }
    if (!py_digits(ex, t)) return false;
  }
  char* end = nullptr;
  out = std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size();
}

bool parse_content(std::string_view body, const content_spec& c, json& out, content_error& err) {
  switch (c.type) {
    case content_type::text:
      out = std::string(c.strip ? detail::py_strip_ws(body) : body);
      return true;
    case content_type::int_: {
      if (py_int(c.strip ? detail::py_strip_ws(body) : body, out)) return true;
      err = "invalid literal for int() with base 10";
      return false;
    }
    case content_type::float_: {
      double d = 0;
      if (py_float(c.strip ? detail::py_strip_ws(body) : body, d)) {
        out = d;
        return true;
      }
      err = "could not convert string to float";
      return false;
    }
    case content_type::bool_: {
      const std::string l = ascii_lower(c.strip ? detail::py_strip_ws(body) : body);
      out = l == "true" || l == "1";
      return true;
    }
    case content_type::json:
      return parse_json(body, c, out, err);
    case content_type::xml_inline:
      return parse_xml_inline(body, c, out, err);
    case content_type::kv_lines:
      return parse_kv_lines(body, c, out, err);
  }
  return false;
}

bool apply_transform(const field_spec& f, const captures& caps, json content, json& out,
                     std::string& err) {
  if (!f.transform) {
    out = std::move(content);
    return true;
  }
  if (!f.transform_each) return fill(*f.transform, nullptr, content, caps, out, err);
  if (!content.is_array()) {
    err = "transform_each requires the parsed content to be a list";
    return false;
  }
  out = json::array();
  for (const auto& element : content) {
    json x;
    if (!fill(*f.transform, &element, element, caps, x, err)) return false;
    out.push_back(std::move(x));
  }
  return true;
}

tool_params read_tools(const json& tools) {
  tool_params out;
  if (!tools.is_array()) return out;
  for (const auto& tool : tools) {
    if (!tool.is_object()) continue;
    const auto fn_it = tool.find("function");
    const json& fn = fn_it != tool.end() ? *fn_it : tool;
    if (!fn.is_object()) continue;
    const auto name = fn.find("name");
    if (name == fn.end() || !name->is_string()) continue;
    const auto params = fn.find("parameters");
    json props = json::object();
    if (params != fn.end() && params->is_object()) {
      const auto p = params->find("properties");
      if (p != params->end() && p->is_object()) props = *p;
    }
    out[name->get<std::string>()] = std::move(props);
  }
  return out;
}

void json_untyped_values(json& value, const tool_params& tools) {
  if (value.is_array()) {
    for (auto& item : value) json_untyped_values(item, tools);
    return;
  }
  if (!value.is_object()) return;
  const auto fn_it = value.find("function");
  json& fn = fn_it != value.end() && fn_it->is_object() ? *fn_it : value;
  const auto name = fn.find("name");
  const auto args = fn.find("arguments");
  if (args == fn.end() || !args->is_object()) return;
  const std::string tool = name != fn.end() && name->is_string() ? name->get<std::string>() : "";
  for (auto& [key, arg] : args->items()) json_untyped_argument(tool, key, arg, tools);
}

bool declared_calls(const json& value, const tool_params& tools) {
  if (value.is_array()) {
    return std::all_of(value.begin(), value.end(),
                       [&](const json& v) { return declared_calls(v, tools); });
  }
  if (!value.is_object()) return true;
  const auto fn = value.find("function");
  const json& f = fn != value.end() && fn->is_object() ? *fn : value;
  for (const char* key : {"name", "tool_name"}) {
    const auto n = f.find(key);
    if (n != f.end() && n->is_string()) return tools.contains(n->get<std::string>());
  }
  return true;
}

void coerce_tool_calls(json& value, const tool_params& tools) {
  if (value.is_array()) {
    for (auto& item : value) coerce_tool_calls(item, tools);
    return;
  }
  if (!value.is_object()) return;
  const auto fn_it = value.find("function");
  json* fn = fn_it != value.end() && fn_it->is_object() ? &*fn_it : &value;
  auto name = fn->find("name");
  if (name == fn->end()) name = fn->find("tool_name");
  auto args = fn->find("arguments");
  if (args == fn->end()) args = fn->find("parameters");
  if (name == fn->end() || !name->is_string() || args == fn->end() || !args->is_object()) return;
  const std::string tool = name->get<std::string>();
  for (auto& [key, arg] : args->items()) coerce_argument(tool, key, arg, tools);
}

void coerce_argument(const std::string& tool_name, const std::string& key, json& arg,
                     const tool_params& tools) {
  const auto tool = tools.find(tool_name);
  if (tool == tools.end() || tool->second.empty()) return;
  const auto prop = tool->second.find(key);
  if (prop == tool->second.end()) return;
  const auto types = schema_types(*prop);
  if (types.empty()) return;
  if (arg.is_string()) {
    arg = coerce(arg.get<std::string>(), types);
  } else if (arg.is_array()) {
    for (auto& item : arg) {
      if (item.is_string()) item = coerce(item.get<std::string>(), types);
    }
  }
}

void json_untyped_argument(const std::string& tool_name, const std::string& key, json& arg,
                           const tool_params& tools) {
  if (!arg.is_string()) return;
  const auto tool = tools.find(tool_name);
  if (tool != tools.end() && tool->second.contains(key)) return;  // the schema decided
  if (auto v = detail::try_parse_json(arg.get<std::string>())) arg = std::move(*v);
}

bool xml_item(const regex_match& m, const content_spec& c, std::string& key, json& value,
              content_error& err) {
  const std::string* k = nullptr;
  const std::string* v = nullptr;
  bool has_value = false;
  for (const auto& n : c.tag->names()) has_value = has_value || n == "value";
  for (const auto& [n, x] : m.groups) {
    if (n == "key") k = &x;
    if (n == "value") v = &x;
  }
  if (k == nullptr) return false;
  const std::string empty;
  if (!sub_parse(has_value ? v : &empty, c.value_parser.get(), value, err)) return false;
  key = *k;
  return true;
}

}  // namespace ocml::resp
