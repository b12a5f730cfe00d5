// SPDX-License-Identifier: Apache-2.0
#include "core/document_header.hpp"
#include <algorithm>
#include "core/utf8.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include <simdjson.h>
#include <yaml-cpp/yaml.h>

namespace ocml::detail {

namespace {

// YAML 1.2 core schema resolution for plain scalars.
json scalar_to_json(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") return s;  // quoted: always a string
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  {
    long long v = 0;
    const char* b = s.data();
    const char* e = s.data() + s.size();
    if (*b == '+') ++b;
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec == std::errc() && p == e) return v;
  }
  {
    char* endp = nullptr;
    const double d = std::strtod(s.c_str(), &endp);
    // A number JSON cannot hold (1e999 overflows to infinity, "nan") stays its text.
    if (endp == s.c_str() + s.size() && s.find_first_of("0123456789") != std::string::npos &&
        std::isfinite(d)) {
      return d;
    }
  }
  return s;
}

// Aliases can make a small YAML text expand exponentially ("billion laughs"): the
// conversion stops after this many nodes, or once the expanded text (every scalar and key
// each time it is reached, plus 8 bytes a node) passes the header's byte limit.
constexpr std::size_t kMaxYamlNodes = 100000;
struct yaml_budget {
  std::size_t nodes = kMaxYamlNodes;
  std::size_t bytes = 0;
  void take(std::size_t n) {
    if (n > bytes) throw yaml_budget{};
    bytes -= n;
  }
};
struct yaml_too_big {};
struct yaml_duplicate_key {
  std::string key;
};
struct yaml_bad_text {};  // a scalar that is not valid UTF-8 once unescaped

const std::string& checked_text(const std::string& s) {
  // yaml-cpp writes some escapes (e.g. \N, U+0085) as a single raw byte.
  if (!simdjson::validate_utf8(s.data(), s.size())) throw yaml_bad_text{};
  return s;
}

// Aliases can also make a node contain itself (&a [*a]): depth is bounded as well.
constexpr std::size_t kMaxYamlDepth = 64;

json node_to_json(const YAML::Node& n, yaml_budget& budget, std::size_t depth = 0) {
  if (budget.nodes == 0 || depth > kMaxYamlDepth) throw yaml_too_big{};
  --budget.nodes;
  budget.take(8);
  switch (n.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      budget.take(n.Scalar().size());
      checked_text(n.Scalar());
      return scalar_to_json(n);
    case YAML::NodeType::Sequence: {
      json a = json::array();
      for (const auto& c : n) a.push_back(node_to_json(c, budget, depth + 1));
      return a;
    }
    case YAML::NodeType::Map: {
      json o = json::object();
      for (const auto& kv : n) {
        // YAML forbids a key given twice; readers that allow it disagree on which counts.
        budget.take(kv.first.IsScalar() ? kv.first.Scalar().size() : 0);
        auto key = checked_text(kv.first.as<std::string>());
        if (o.contains(key)) throw yaml_duplicate_key{std::move(key)};
        o[key] = node_to_json(kv.second, budget, depth + 1);
      }
      return o;
    }
  }
  return nullptr;
}

void emit_json(YAML::Emitter& e, const json& j) {
  if (j.is_object()) {
    e << YAML::BeginMap;
    for (const auto& [k, v] : j.items()) {
      e << YAML::Key << k << YAML::Value;
      emit_json(e, v);
    }
    e << YAML::EndMap;
  } else if (j.is_array()) {
    e << YAML::Flow << YAML::BeginSeq;
    for (const auto& v : j) emit_json(e, v);
    e << YAML::EndSeq;
  } else if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    // Quote strings a YAML reader would otherwise take as another type.
    bool plain = !s.empty() && s.find_first_of(":#{}[],&*!|>'\"%@`\n\r\t\\") == std::string::npos &&
                 s.front() != ' ' && s.back() != ' ' && s.front() != '-' && s.front() != '?';
    if (plain) {
      try {
        const json back = scalar_to_json(YAML::Load(s));
        plain = back.is_string() && back.get_ref<const std::string&>() == s;
      } catch (const YAML::Exception&) {
        plain = false;
      }
    }
    if (!plain) {
      e << YAML::DoubleQuoted << s;
    } else {
      e << s;
    }
  } else if (j.is_null()) {
    e << YAML::Null;
  } else if (j.is_boolean()) {
    e << (j.get<bool>() ? "true" : "false");
  } else {
    e << j.dump();
  }
}

// yaml-cpp parses recursively: refuse nesting deep enough to exhaust the stack. Counts
// flow collections ('[' or '{' where a value can start, not inside quoted or plain text)
// and block indentation.
bool too_deep(std::string_view yaml) {
  int depth = 0;
  std::size_t indent = 0;
  bool line_start = true;
  char prev = '\n';  // the last byte that was not a space
  for (std::size_t i = 0; i < yaml.size(); ++i) {
    const char c = yaml[i];
    const bool value_start = prev == '\n' || prev == ':' || prev == ',' || prev == '[' ||
                             prev == '{' || prev == '-' || prev == '?';
    // '-', '?' and ':' are indicators only before white space ("-[[" is plain text), but
    // ':' also right after a quoted key or inside a flow collection ({"a":[1]}).
    const bool spaced = i + 1 == yaml.size() || yaml[i + 1] == ' ' || yaml[i + 1] == '\t' ||
                        yaml[i + 1] == '\n' || yaml[i + 1] == '\r';
    const bool indicator = (c != '-' && c != '?' && c != ':') || spaced ||
                           (c == ':' && (depth > 0 || prev == '"' || prev == '\''));
    if ((c == '"' || c == '\'') && value_start) {  // a quoted scalar: skip it
      for (++i; i < yaml.size() && yaml[i] != c; ++i) {
        if (c == '"' && yaml[i] == '\\') ++i;
      }
      prev = c;
      line_start = false;
      continue;
    }
    if ((c == '&' || c == '!') && value_start) {  // an anchor or tag: the value follows it
      while (i + 1 < yaml.size() && yaml[i + 1] != ' ' && yaml[i + 1] != '\n' &&
             yaml[i + 1] != '[' && yaml[i + 1] != '{') {
        ++i;
      }
      continue;
    }
    if ((c == '[' || c == '{') && value_start) ++depth;
    if ((c == ']' || c == '}') && depth > 0) --depth;
    if (depth > 64) return true;
    if (c == '\n') {
      line_start = true;
      indent = 0;
      prev = '\n';
    } else if (line_start && (c == ' ' || (c == '-' && indicator))) {
      if (++indent > 256) return true;
      if (c == '-') prev = '-';
    } else {
      line_start = false;
      // A bracket inside plain text is text: it does not open a value for the next one.
      const bool text_bracket = (c == '[' || c == '{') && !value_start;
      if (c != ' ' && c != '\t') prev = text_bracket || !indicator ? 'a' : c;
    }
  }
  return false;
}

// Fills `err` with `message` at byte `at` of `yaml` (0-based line and column); false.
bool fail_at(yaml_error& err, std::string_view yaml, std::size_t at, std::string message) {
  const std::string_view before = yaml.substr(0, at);
  err.message = std::move(message);
  err.line = static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
  const std::size_t nl = before.rfind('\n');
  err.column = nl == std::string_view::npos ? at : at - nl - 1;
  return false;
}

}  // namespace

bool parse_document_header(std::string_view yaml, document_header& out, yaml_error& err,
                           std::size_t max_bytes) {
  // YAML is Unicode text; yaml-cpp would turn bad bytes into U+FFFD (so distinct keys could
  // collapse into one): refuse them where they are.
  utf8_stream utf8;
  std::size_t bad = utf8.feed(yaml, 0);
  if (bad == utf8_stream::npos && utf8.incomplete()) bad = utf8.pending_at();
  if (bad != utf8_stream::npos) {
    return fail_at(err, yaml, bad, "invalid UTF-8 in the YAML header");
  }
  // YAML streams hold printable characters only (and tab, line breaks): yaml-cpp reads
  // other control bytes but writes them back raw, which it then cannot read.
  for (std::size_t i = 0; i < yaml.size(); ++i) {
    const auto c = static_cast<unsigned char>(yaml[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
      return fail_at(err, yaml, i, "control character in the YAML header");
    }
  }
  if (too_deep(yaml)) {
    err.message = "nesting deeper than 64 levels";
    err.limit = true;
    return false;
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& ex) {
    err.message = ex.msg;
    err.line = ex.mark.line < 0 ? 0 : static_cast<std::size_t>(ex.mark.line);
    err.column = ex.mark.column < 0 ? 0 : static_cast<std::size_t>(ex.mark.column);
    return false;
  }
  out.present = true;
  if (root.IsNull()) return true;
  if (!root.IsMap()) {
    err.message = "document header is not a YAML mapping";
    return false;
  }
  json j;
  try {
    yaml_budget budget;
    budget.bytes = max_bytes;
    j = node_to_json(root, budget);
  } catch (const YAML::Exception& ex) {
    err.message = ex.msg;
    return false;
  } catch (const yaml_too_big&) {
    err.message = "expands to more than 100000 nodes or 64 levels (aliases?)";
    err.limit = true;
    return false;
  } catch (const yaml_budget&) {
    err.message = "expands to more than " + std::to_string(max_bytes) +
                  " bytes (max_document_header_bytes; aliases?)";
    err.limit = true;
    return false;
  } catch (const yaml_bad_text&) {
    err.message = "a value is not valid UTF-8 once its escapes are read";
    return false;
  } catch (const yaml_duplicate_key& d) {
    err.message = "key '" + d.key + "' given twice";
    return false;
  }
  for (auto& [k, v] : j.items()) {
    if ((k == "version" || k == "model") && root[k].IsScalar()) {
      (k == "version" ? out.version : out.model) = root[k].Scalar();  // raw text: "2.10" stays
    } else if (k == "generation_settings") {
      out.generation_settings = v;
    } else if (k == "capabilities") {
      out.capabilities = v;
    } else if (k == "profiles") {
      out.profiles = v;
    } else {
      out.extra[k] = v;
    }
  }
  return true;
}

std::string render_document_header(const document_header& h) {
  if (!h.present) return {};
  json j = json::object();
  // version and model are raw scalars ("2.10" must stay "2.10"); quoted when not plain-safe.
  const auto scalar_line = [](std::string_view key, const std::string& v) {
    const bool safe = v.find_first_not_of(
                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                          "0123456789._-/+") == std::string::npos;
    if (safe) return std::string(key) + ": " + v + "\n";
    YAML::Emitter e;
    e << YAML::DoubleQuoted << v;
    return std::string(key) + ": " + e.c_str() + "\n";
  };
  std::string plain;
  if (!h.version.empty()) plain += scalar_line("version", h.version);
  if (!h.model.empty()) plain += scalar_line("model", h.model);
  if (!h.generation_settings.is_null()) j["generation_settings"] = h.generation_settings;
  if (!h.capabilities.is_null()) j["capabilities"] = h.capabilities;
  if (!h.profiles.is_null()) j["profiles"] = h.profiles;
  for (const auto& [k, v] : h.extra.items()) j[k] = v;
  std::string out = "---\n" + plain;
  if (!j.empty()) {
    YAML::Emitter e;
    emit_json(e, j);
    if (e.good()) {
      out += e.c_str();
    } else {
      // JSON is YAML: fall back to one flow line per key (invalid UTF-8 becomes U+FFFD).
      std::string flow;
      for (const auto& [k, v] : j.items()) {
        flow += json(k).dump(-1, ' ', false, json::error_handler_t::replace) + ": " +
                v.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
      }
      flow.pop_back();
      out += flow;
    }
    out += '\n';
  }
  out += "---\n";
  return out;
}

}  // namespace ocml::detail
