// SPDX-License-Identifier: Apache-2.0
// Render diagnostics' paths, and putting them back in the caller's terms.
#include "core/message_path.hpp"

#include <charconv>

namespace ocml::detail {

namespace {

bool path_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '[' || c == ']';
}

// Reads "NAME[K]" at the front of `p`; the rest after it.
bool take_index(std::string_view& p, std::string_view name, std::size_t& k) {
  if (!p.starts_with(name) || p.size() <= name.size() || p[name.size()] != '[') return false;
  const char* first = p.data() + name.size() + 1;
  const char* last = p.data() + p.size();
  const auto r = std::from_chars(first, last, k);
  if (r.ec != std::errc{} || r.ptr == last || *r.ptr != ']') return false;
  p.remove_prefix(static_cast<std::size_t>(r.ptr + 1 - p.data()));
  return true;
}

std::string append_field(std::string s, std::string_view field) {
  if (!field.empty()) {
    s += '.';
    s += field;
  }
  return s;
}

// A call's field in the grouped form ("id", "name", "arguments") as the split form's.
std::string_view split_call_field(std::string_view sub) {
  if (sub == ".id") return "call_id";
  if (sub == ".name") return "recipient";
  if (sub == ".arguments") return "content";
  return {};
}

// A split call message's field as the grouped form's.
std::string_view grouped_call_field(std::string_view rest) {
  if (rest == ".call_id") return "id";
  if (rest == ".recipient") return "name";
  if (rest == ".content") return "arguments";
  return {};
}

std::string source_path(const message_origin& o, std::string_view rest) {
  using piece = message_origin::piece;
  switch (o.kind) {
    case piece::made:
      return o.path;
    case piece::reasoning:
      return message_path(o.message, "reasoning");
    case piece::call:
      return call_path(o.message, o.call, grouped_call_field(rest));
    case piece::whole:
      break;
  }
  std::string_view sub = rest;
  std::size_t j = 0;
  if (!o.calls.empty() && sub.starts_with('.')) {
    sub.remove_prefix(1);
    if (take_index(sub, "tool_calls", j) && j < o.calls.size()) {
      return message_path(o.calls[j], split_call_field(sub));
    }
  }
  if (o.reasoning >= 0 && rest == ".reasoning") {
    return message_path(static_cast<std::size_t>(o.reasoning), "content");
  }
  std::string s = message_path(o.message);
  s += rest;
  return s;
}

// Replaces the leading path of `d.message` (of length `len`) with `path`.
void replace_path(diagnostic& d, std::size_t len, const std::string& path) {
  if (path.empty()) {
    std::size_t cut = len;
    if (d.message.compare(cut, 2, ": ") == 0) cut += 2;
    d.message.erase(0, cut);
  } else {
    d.message.replace(0, len, path);
  }
}

}  // namespace

std::string message_path(std::size_t i, std::string_view field) {
  std::string s = "messages[";
  char digits[24];
  s.append(digits, std::to_chars(digits, digits + sizeof digits, i).ptr);
  s += ']';
  return append_field(std::move(s), field);
}

std::string call_path(std::size_t i, std::size_t j, std::string_view field) {
  std::string s = message_path(i, "tool_calls[");
  char digits[24];
  s.append(digits, std::to_chars(digits, digits + sizeof digits, j).ptr);
  s += ']';
  return append_field(std::move(s), field);
}

std::string_view leading_path(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && path_char(text[i])) ++i;
  std::string_view p = text.substr(0, i);
  while (!p.empty() && p.back() == '.') p.remove_suffix(1);
  return p.find_first_of(".[") == std::string_view::npos ? std::string_view{} : p;
}

void relocate(diagnostic& d, const origin_map& origins) {
  const std::string_view path = leading_path(d.message);
  std::string_view rest = path;
  std::size_t k = 0;
  if (!take_index(rest, "messages", k) || k >= origins.size()) return;
  replace_path(d, path.size(), source_path(origins[k], rest));
}

void relocate(std::vector<diagnostic>& ds, std::size_t from, const origin_map& origins) {
  for (std::size_t i = from; i < ds.size(); ++i) relocate(ds[i], origins);
}

void to_openai_path(diagnostic& d) {
  const std::string_view path = leading_path(d.message);
  std::string_view rest = path;
  std::size_t k = 0;
  if (!take_index(rest, "messages", k)) return;
  std::string out = message_path(k);
  std::size_t j = 0;
  std::string_view sub = rest.starts_with('.') ? rest.substr(1) : std::string_view{};
  if (rest == ".reasoning") {
    out += ".reasoning_content";
  } else if (rest == ".call_id") {
    out += ".tool_call_id";
  } else if (rest == ".content" || rest == ".name" || rest == ".role" || rest == ".flags" ||
             rest == ".tool_calls" || rest == ".reflection" || rest == ".introspection") {
    out += rest;
  } else if (take_index(sub, "tool_calls", j)) {
    out = call_path(k, j);
    if (sub == ".arguments" || sub == ".name") {
      out += ".function";
      out += sub;
    } else if (sub == ".id") {
      out += sub;
    }
  }  // any other field (channel, recipient, intent, ...) has no OpenAI key: the message
  replace_path(d, path.size(), out);
}

}  // namespace ocml::detail
