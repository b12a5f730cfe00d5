// SPDX-License-Identifier: Apache-2.0
// str.splitlines, wordwrap (textwrap.wrap), urlize and pprint, as CPython and Jinja2 write
// them (read from their documentation and checked against them by tests/template/cases.jsonl).
#include "template/text_filters.hpp"

#include <algorithm>
#include <memory>

#include "core/utf8.hpp"
#include "response/regex.hpp"
#include "template/bigint.hpp"
#include "template/interpreter.hpp"

namespace ocml::tmpl {

namespace {

using detail::decode_utf8;

bool all_space(std::string_view s) {  // s.strip() == ''
  for (std::size_t i = 0; i < s.size();) {
    if (!detail::py_isspace(decode_utf8(s, i))) return false;
  }
  return true;
}

std::string_view cp_prefix(std::string_view s, std::size_t n) {
  return s.substr(0, code_point_offset(s, n));
}

// One of the library's own patterns, compiled once (kept for the process).
std::shared_ptr<const resp::regex> compiled(const char* pattern) {
  std::string err;
  auto re = resp::regex::compile(pattern, err);
  if (re == nullptr) fail(error_code::internal, "built-in pattern: " + err);
  return re;
}

// textwrap's wordsep_re: white space, an em-dash between words, or a word that may end at a
// hyphen between letters.
const resp::regex& hyphen_words() {
  static const auto re = compiled(
      R"re(([\t\n\x0b\x0c\r ]+|(?<=[\w!"'&.,?])-{2,}(?=\w)|[^\t\n\x0b\x0c\r ]+?(?:-(?:(?<=[^\d\W]{2}-)|(?<=[^\d\W]-[^\d\W]-))(?=[^\d\W]-?[^\d\W])|(?=[\t\n\x0b\x0c\r ]|\Z)|(?<=[\w!"'&.,?])(?=-{2,}\w))))re");
  return *re;
}

bool textwrap_space(char c) {
  return c == '\t' || c == '\n' || c == '\x0b' || c == '\x0c' || c == '\r' || c == ' ';
}

std::vector<std::string> split_chunks(const std::string& text, bool hyphens) {
  std::vector<std::string> chunks;
  if (!hyphens) {  // wordsep_simple_re: runs of white space and of the rest
    for (std::size_t i = 0; i < text.size();) {
      const bool ws = textwrap_space(text[i]);
      std::size_t e = i;
      while (e < text.size() && textwrap_space(text[e]) == ws) ++e;
      chunks.push_back(text.substr(i, e - i));
      i = e;
    }
    return chunks;
  }
  std::size_t at = 0;
  resp::regex_match m;
  while (at < text.size() &&
         hyphen_words().search(text, at, false, m) == resp::search_status::found &&
         m.end > m.start) {
    if (m.start > at) chunks.push_back(text.substr(at, m.start - at));
    chunks.push_back(text.substr(m.start, m.end - m.start));
    at = m.end;
  }
  if (at < text.size()) chunks.push_back(text.substr(at));
  return chunks;
}

// textwrap.TextWrapper._wrap_chunks without indents or max_lines; `chunks` reversed.
std::vector<std::string> wrap_chunks(std::vector<std::string> chunks, const wordwrap_options& o) {
  const auto width = static_cast<std::size_t>(o.width);
  std::vector<std::string> lines;
  std::reverse(chunks.begin(), chunks.end());
  while (!chunks.empty()) {
    std::vector<std::string> cur;
    std::size_t cur_len = 0;
    if (!lines.empty() && all_space(chunks.back())) chunks.pop_back();
    while (!chunks.empty()) {
      const std::size_t l = code_points(chunks.back());
      if (cur_len + l > width) break;
      cur.push_back(std::move(chunks.back()));
      chunks.pop_back();
      cur_len += l;
    }
    if (!chunks.empty() && code_points(chunks.back()) > width) {
      // _handle_long_word
      const std::size_t space_left = width < 1 ? 1 : width - cur_len;
      if (o.break_long_words) {
        std::size_t end = space_left;
        const std::string& chunk = chunks.back();
        if (o.break_on_hyphens && code_points(chunk) > space_left) {
          const std::string_view head = cp_prefix(chunk, space_left);
          const std::size_t h = head.rfind('-');
          if (h != std::string_view::npos && h > 0 &&
              head.substr(0, h).find_first_not_of('-') != std::string_view::npos) {
            end = code_points(head.substr(0, h)) + 1;
          }
        }
        const std::size_t cut = code_point_offset(chunk, end);
        cur.push_back(chunk.substr(0, cut));
        chunks.back() = chunk.substr(cut);
      } else if (cur.empty()) {
        cur.push_back(std::move(chunks.back()));
        chunks.pop_back();
      }
      cur_len = 0;
      for (const auto& c : cur) cur_len += code_points(c);
    }
    if (!cur.empty() && all_space(cur.back())) cur.pop_back();
    if (!cur.empty()) {
      std::string line;
      for (const auto& c : cur) line += c;
      lines.push_back(std::move(line));
    }
  }
  return lines;
}

void join_into(std::string& out, const std::vector<std::string>& parts, const std::string& sep) {
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      check_size_sum(out.size(), sep.size());
      out += sep;
    }
    check_size_sum(out.size(), parts[i].size());
    out += parts[i];
  }
}

// ---- urlize -------------------------------------------------------------------------------

const resp::regex& http_re() {
  static const auto re = compiled(
      R"re((?i)^(?:(?:https?://|www\.)(?:(?:[\w%-]+\.)+)?(?:[a-z]{2,63}|xn--[\w%]{2,59})|(?:[\w%-]{2,63}\.)+(?:com|net|int|edu|gov|org|info|mil)|(?:https?://)(?:(?:\d{1,3})(?:\.\d{1,3}){3}|\[(?:[\da-f]{0,4}:){2}(?:[\da-f]{0,4}:?){1,6}\]))(?::\d{1,5})?(?:[/?#]\S*)?$)re");
  return *re;
}

const resp::regex& email_re() {
  static const auto re = compiled(R"re(^\S+@\w[\w.-]*\.\w+$)re");
  return *re;
}

bool matches(const resp::regex& re, std::string_view s) {
  resp::regex_match m;
  return re.search(s, 0, false, m) == resp::search_status::found;
}

std::size_t count_of(std::string_view s, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string_view::npos;
       at = s.find(what, at + what.size()))
    ++n;
  return n;
}

std::string urlize_word(std::string middle, const urlize_options& o, const std::string& attrs) {
  std::string head;
  std::string tail;
  for (;;) {  // ^([(<]|&lt;)+
    if (!middle.empty() && (middle[0] == '(' || middle[0] == '<')) {
      head += middle[0];
      middle.erase(0, 1);
    } else if (middle.starts_with("&lt;")) {
      head += "&lt;";
      middle.erase(0, 4);
    } else {
      break;
    }
  }
  for (;;) {  // ([)>.,\n]|&gt;)+$
    if (middle.ends_with("&gt;")) {
      tail.insert(0, "&gt;");
      middle.resize(middle.size() - 4);
    } else if (!middle.empty() &&
               std::string_view(")>.,\n").find(middle.back()) != std::string_view::npos) {
      tail.insert(tail.begin(), middle.back());
      middle.pop_back();
    } else {
      break;
    }
  }
  // Balance parentheses from the tail rather than leave a closing one out.
  for (const auto& [open, close] :
       {std::pair<std::string_view, std::string_view>{"(", ")"}, {"<", ">"}, {"&lt;", "&gt;"}}) {
    const std::size_t starts = count_of(middle, open);
    if (starts <= count_of(middle, close)) continue;
    const std::size_t moves = std::min(starts, count_of(tail, close));
    for (std::size_t k = 0; k < moves; ++k) {
      const std::size_t end = tail.find(close) + close.size();
      middle += tail.substr(0, end);
      tail.erase(0, end);
    }
  }
  const auto trim = [&o](const std::string& x) {
    if (o.trim_url_limit && *o.trim_url_limit >= 0 &&
        code_points(x) > static_cast<std::size_t>(*o.trim_url_limit)) {
      return std::string(cp_prefix(x, static_cast<std::size_t>(*o.trim_url_limit))) + "...";
    }
    return x;
  };
  if (matches(http_re(), middle)) {
    const bool scheme = middle.starts_with("https://") || middle.starts_with("http://");
    middle = "<a href=\"" + std::string(scheme ? "" : "https://") + middle + "\"" + attrs + ">" +
             trim(middle) + "</a>";
  } else if (middle.starts_with("mailto:") && matches(email_re(), middle.substr(7))) {
    middle = "<a href=\"" + middle + "\">" + middle.substr(7) + "</a>";
  } else if (middle.find('@') != std::string::npos && !middle.starts_with("www.") &&
             !middle.starts_with("@") && middle.find(':') == std::string::npos &&
             matches(email_re(), middle)) {
    middle = "<a href=\"mailto:" + middle + "\">" + middle + "</a>";
  } else {
    for (const auto& scheme : o.extra_schemes) {
      if (middle != scheme && middle.starts_with(scheme)) {
        middle = "<a href=\"" + middle + "\"" + attrs + ">" + middle + "</a>";
      }
    }
  }
  return head + middle + tail;
}

// ---- pprint -------------------------------------------------------------------------------

constexpr std::size_t kWidth = 80;

// The order pprint sorts dict keys in: by value within a kind, kinds by name (Python falls
// back to type names where keys do not compare).
bool key_before(const value& a, const value& b) {
  const auto kind = [](const value& v) {
    return v.is_number() || is_integral(v) ? std::string_view("number") : type_name(v);
  };
  if (kind(a) != kind(b)) return kind(a) < kind(b);
  try {
    return less(a, b);
  } catch (const template_error&) {
    return false;
  }
}

std::vector<const std::pair<value, value>*> sorted_items(const dict& d) {
  std::vector<const std::pair<value, value>*> items;
  items.reserve(d.entries.size());
  for (const auto& e : d.entries) items.push_back(&e);
  std::stable_sort(items.begin(), items.end(),
                   [](const auto* x, const auto* y) { return key_before(x->first, y->first); });
  return items;
}

// pprint's _safe_repr: repr with every dict's keys sorted.
void safe_repr(const value& v, std::string& out) {
  if (v.is_list()) {
    out.push_back(v.tuple ? '(' : '[');
    const list& items = v.items();
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out += ", ";
      safe_repr(items[i], out);
    }
    if (v.tuple && items.size() == 1) out.push_back(',');
    out.push_back(v.tuple ? ')' : ']');
  } else if (v.is_dict()) {
    out.push_back('{');
    bool first = true;
    for (const auto* e : sorted_items(v.map())) {
      if (!first) out += ", ";
      first = false;
      safe_repr(e->first, out);
      out += ": ";
      safe_repr(e->second, out);
    }
    out.push_back('}');
  } else {
    append_repr(v, out);
  }
  check_size(out.size());
}

std::string repr_of(const value& v) {
  std::string r;
  safe_repr(v, r);
  return r;
}

class pretty_printer {
 public:
  std::string out;

  void format(const value& v, std::size_t indent, std::size_t allowance, int level) {
    const std::string rep = repr_of(v);
    const std::size_t used = indent + allowance;
    if (code_points(rep) + used > kWidth) {
      if (v.is_list() && !v.tuple) return list_items(v, indent, allowance, level + 1, "[", "]");
      if (v.is_list()) {
        const bool one = v.items().size() == 1;
        return list_items(v, indent, allowance, level + 1, "(", one ? ",)" : ")");
      }
      if (v.is_dict()) return dict_items(v, indent, allowance, level + 1);
      if (v.is_string()) return long_string(v.str(), indent, allowance, level + 1);
    }
    out += rep;
  }

 private:
  void list_items(const value& v, std::size_t indent, std::size_t allowance, int level,
                  const char* open, const char* close) {
    out += open;
    allowance += std::string_view(close).size();
    indent += 1;
    const list& items = v.items();
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i > 0) {
        out += ",\n";
        out.append(indent, ' ');
      }
      format(items[i], indent, i + 1 == items.size() ? allowance : 1, level);
    }
    out += close;
  }

  void dict_items(const value& v, std::size_t indent, std::size_t allowance, int level) {
    out.push_back('{');
    allowance += 1;
    indent += 1;
    const auto items = sorted_items(v.map());
    for (std::size_t i = 0; i < items.size(); ++i) {
      const bool last = i + 1 == items.size();
      const std::string key = repr_of(items[i]->first);
      out += key;
      out += ": ";
      format(items[i]->second, indent + code_points(key) + 2, last ? allowance : 1, level);
      if (!last) {
        out += ",\n";
        out.append(indent, ' ');
      }
    }
    out.push_back('}');
  }

  // _pprint_str: a long string as adjacent literals, split after white space.
  void long_string(const std::string& s, std::size_t indent, std::size_t allowance, int level) {
    const auto lines = py_splitlines(s, true);
    if (level == 1) {
      indent += 1;
      allowance += 1;
    }
    const std::size_t max_width = kWidth > indent ? kWidth - indent : 0;
    std::size_t max_width1 = max_width;
    std::vector<std::string> chunks;
    std::string rep;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      rep = repr_of(value(lines[i]));
      const bool last_line = i + 1 == lines.size();
      if (last_line) max_width1 = max_width1 > allowance ? max_width1 - allowance : 0;
      if (code_points(rep) <= max_width1) {
        chunks.push_back(rep);
        continue;
      }
      // re.findall(r'\S*\s*', line), without its empty last match
      std::vector<std::string> parts;
      const std::string& line = lines[i];
      for (std::size_t p = 0; p < line.size();) {
        std::size_t e = p;
        std::size_t next = e;
        while (e < line.size() && !detail::py_isspace(decode_utf8(line, next))) e = next;
        next = e;
        while (e < line.size() && detail::py_isspace(decode_utf8(line, next))) e = next;
        parts.push_back(line.substr(p, e - p));
        p = e;
      }
      std::size_t max_width2 = max_width;
      std::string current;
      for (std::size_t j = 0; j < parts.size(); ++j) {
        const std::string candidate = current + parts[j];
        if (j + 1 == parts.size() && last_line) {
          max_width2 = max_width2 > allowance ? max_width2 - allowance : 0;
        }
        if (code_points(repr_of(value(candidate))) > max_width2) {
          if (!current.empty()) chunks.push_back(repr_of(value(current)));
          current = parts[j];
        } else {
          current = candidate;
        }
      }
      if (!current.empty()) chunks.push_back(repr_of(value(current)));
    }
    if (chunks.size() == 1) {
      out += rep;
      return;
    }
    if (level == 1) out.push_back('(');
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      if (i > 0) {
        out.push_back('\n');
        out.append(indent, ' ');
      }
      out += chunks[i];
    }
    if (level == 1) out.push_back(')');
  }
};

}  // namespace

std::vector<std::string> py_splitlines(const std::string& s, bool keepends) {
  std::vector<std::string> out;
  std::size_t b = 0;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t at = i;
    const char32_t c = decode_utf8(s, i);
    const bool nl = c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || c == 0x1C || c == 0x1D ||
                    c == 0x1E || c == 0x85 || c == 0x2028 || c == 0x2029;
    if (!nl) continue;
    std::size_t end = i;
    if (c == '\r' && i < s.size() && s[i] == '\n') end = ++i;
    out.push_back(s.substr(b, (keepends ? end : at) - b));
    b = end;
  }
  if (b < s.size()) out.push_back(s.substr(b));
  return out;
}

std::string py_wordwrap(const std::string& s, const wordwrap_options& o) {
  std::vector<std::string> paragraphs;
  for (const auto& line : py_splitlines(s, false)) {
    if (o.width <= 0) {
      fail(error_code::template_type,
           "invalid width " + std::to_string(o.width) + " (must be > 0)");
    }
    std::string wrapped;
    join_into(wrapped, wrap_chunks(split_chunks(line, o.break_on_hyphens), o), o.wrapstring);
    paragraphs.push_back(std::move(wrapped));
  }
  std::string out;
  join_into(out, paragraphs, o.wrapstring);
  return out;
}

std::string jinja_urlize(const std::string& text, const urlize_options& o) {
  const std::string escaped = html_escape(text);
  std::string attrs;
  if (!o.rel.empty()) attrs += " rel=\"" + html_escape(o.rel) + "\"";
  if (!o.target.empty()) attrs += " target=\"" + html_escape(o.target) + "\"";
  std::string out;
  // re.split(r"(\s+)"): words and the white space between them, kept.
  for (std::size_t i = 0; i < escaped.size();) {
    std::size_t next = i;
    const bool space = detail::py_isspace(decode_utf8(escaped, next));
    std::size_t e = i;
    while (e < escaped.size()) {
      std::size_t n = e;
      if (detail::py_isspace(decode_utf8(escaped, n)) != space) break;
      e = n;
    }
    const std::string piece = escaped.substr(i, e - i);
    out += space ? piece : urlize_word(piece, o, attrs);
    check_size(out.size());
    i = e;
  }
  return out;
}

std::string py_pformat(const value& v) {
  pretty_printer p;
  p.format(v, 0, 0, 0);
  check_size(p.out.size());
  return std::move(p.out);
}

}  // namespace ocml::tmpl
