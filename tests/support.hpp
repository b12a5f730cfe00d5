// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the test files.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ocml/ocml.hpp"

namespace ocml::test {

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A python3 that can import jinja2 (Debian's python3-jinja2 installs for /usr/bin/python3),
/// or empty.
inline std::string python_with_jinja() {
  for (const char* py : {"/usr/bin/python3", "python3"}) {
    const std::string cmd = std::string(py) + " -c 'import jinja2' >/dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) return py;
  }
  return {};
}

/// Feeds `text` to `d`, `chunk` bytes at a time (0 = all at once), then finishes.
inline void feed(decoder& d, std::string_view text, std::size_t chunk) {
  if (chunk == 0) {
    d.push(text);
  } else {
    for (std::size_t i = 0; i < text.size(); i += chunk) d.push(text.substr(i, chunk));
  }
  d.finish();
}

/// Parses `text` fed `chunk` bytes at a time (0 = all at once).
inline parse_result parse_chunked(std::string_view text, const decoder_options& o,
                                  std::size_t chunk) {
  collector c;
  decoder d(o, [&c](const event& e) { c(e); });
  feed(d, text, chunk);
  return c.take();
}

/// One line per event with its byte offset; adjacent content slices are joined so the log
/// does not depend on chunking (llhttp-style expected logs).
struct event_log {
  std::vector<std::string> lines;
  std::string pending;
  std::size_t pending_offset = 0;
  bool has_pending = false;
  void flush() {
    if (!has_pending) return;
    static const char* names[] = {"header", "begin",      "content",      "end",
                                  "diag",   "reasoning",  "call",         "tools",
                                  "part",   "reflection", "introspection"};
    lines.push_back(std::string(names[pending_reasoning]) + "@" + std::to_string(pending_offset) +
                    " " + pending);
    pending.clear();
    has_pending = false;
  }
  int pending_reasoning = static_cast<int>(event_kind::content);
  void operator()(const event& e) {
    if (e.kind == event_kind::content || e.kind == event_kind::reasoning ||
        e.kind == event_kind::reflection || e.kind == event_kind::introspection) {
      const int r = static_cast<int>(e.kind);
      if (has_pending && r != pending_reasoning) flush();
      if (!has_pending) pending_offset = e.offset;
      has_pending = true;
      pending_reasoning = r;
      pending.append(e.text);
      return;
    }
    flush();
    const std::string at = "@" + std::to_string(e.offset);
    switch (e.kind) {
      case event_kind::document_header:
        lines.push_back("header" + at);
        break;
      case event_kind::message_begin:
        lines.push_back("begin" + at + " " +
                        dump_json(to_native_json({{}, {*e.message}, {}})["messages"][0]));
        break;
      case event_kind::message_end:
        lines.push_back("end" + at + " " + std::string(end_name(e.end)));
        break;
      case event_kind::diagnostic:
        lines.push_back("diag" + at + " " + e.diag->to_string());
        break;
      default:
        break;
    }
  }
};

inline std::vector<std::string> events_chunked(std::string_view text, const decoder_options& o,
                                               std::size_t chunk) {
  event_log log;
  decoder d(o, [&log](const event& e) { log(e); });
  feed(d, text, chunk);
  log.flush();
  return log.lines;
}

inline std::vector<std::string> codes(const parse_result& r) {
  std::vector<std::string> out;
  for (const auto& d : r.diagnostics) out.emplace_back(error_name(d.code));
  return out;
}

/// A tool-call id ocml generated: "call_" and 24 base-62 characters (OpenAI's shape).
inline bool is_generated_call_id(std::string_view id) {
  if (id.size() != 29 || id.substr(0, 5) != "call_") return false;
  for (const char c : id.substr(5)) {
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!alnum) return false;
  }
  return true;
}

/// A message of `role` with its content, channel and recipient (2.x-family fixtures).
inline message msg(role r, std::string content, std::string channel = {},
                   std::string recipient = {}) {
  message m;
  m.role = r;
  m.content = std::move(content);
  m.channel = std::move(channel);
  m.recipient = std::move(recipient);
  return m;
}

}  // namespace ocml::test
