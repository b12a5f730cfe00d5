// SPDX-License-Identifier: Apache-2.0
// Runs a response template at every chunk size and checks what must not depend on chunking.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "ocml/response.hpp"

namespace ocml::test {

/// One event as text: "kind field [b,e) text|value" (for comparing event logs).
inline std::string describe(const response_event& e) {
  std::string s(response_event_name(e.kind));
  s += ' ';
  s += e.field;
  s += " [" + std::to_string(e.span.begin) + "," + std::to_string(e.span.end) + ")";
  if (e.value != nullptr) s += " = " + e.value->dump();
  if (e.diag != nullptr) s += " ! " + e.diag->to_string();
  if (e.dirty) s += " dirty";
  if (e.from_prefix) s += " prefix";
  return s;
}

struct response_run {
  result<json> message = make_error(error_code::internal, "not run");
  std::vector<response_event_kind> kinds;
  std::vector<std::string> log;  // describe() of each event, text of a run merged
  std::string chunks;            // region_chunk text, all fields
  /// region_item values and region_call names, in order: the same at every chunking (their
  /// place among the chunks is not, as OpenAI deltas' boundaries are not, so they stay out
  /// of `log`).
  std::vector<std::string> items;
};

/// Feeds `generation` in pieces of `chunk` bytes (0: whole).
inline response_run run_response(const response_template& t, std::string_view generation,
                                 const response_parser_options& o, std::size_t chunk) {
  response_run r;
  std::size_t next = 0;
  std::string pending_chunk;  // consecutive chunks of one region, merged
  std::string pending_desc;
  std::size_t pending_begin = 0;
  std::size_t pending_end = 0;
  const auto flush = [&] {
    if (pending_desc.empty()) return;
    r.log.push_back(pending_desc + " [" + std::to_string(pending_begin) + "," +
                    std::to_string(pending_end) + ") " + json(pending_chunk).dump());
    pending_desc.clear();
    pending_chunk.clear();
  };
  const std::size_t total = o.prefix.size() + generation.size();
  bool tiles = true;
  response_parser p(t, o, [&](const response_event& e) {
    if (e.kind == response_event_kind::region_item) {
      r.items.push_back(std::string(e.field) + " " + e.value->dump());
      return;
    }
    if (e.kind == response_event_kind::region_call) {
      r.items.push_back(std::string(e.field) + " call " + std::string(e.call_name) + " " +
                        std::string(e.text));
      return;
    }
    r.kinds.push_back(e.kind);
    if (e.span.end > e.span.begin) {
      tiles = tiles && e.span.begin == next;
      next = e.span.end;
    }
    if (e.kind == response_event_kind::region_chunk || e.kind == response_event_kind::unclaimed) {
      if (e.kind == response_event_kind::region_chunk) r.chunks.append(e.text);
      const std::string desc = std::string(response_event_name(e.kind)) + " " +
                               std::string(e.field) + (e.dirty ? " dirty" : "") +
                               (e.from_prefix ? " prefix" : "");
      if (desc == pending_desc && pending_end == e.span.begin) {
        pending_chunk.append(e.text);
        pending_end = e.span.end;
        return;
      }
      flush();
      pending_desc = desc;
      pending_chunk.assign(e.text);
      pending_begin = e.span.begin;
      pending_end = e.span.end;
      return;
    }
    flush();
    r.log.push_back(describe(e));
  });
  if (chunk == 0) {
    p.push(generation);
  } else {
    for (std::size_t i = 0; i < generation.size(); i += chunk) p.push(generation.substr(i, chunk));
  }
  r.message = p.finish();
  flush();
  EXPECT_TRUE(tiles) << "event spans do not tile the input";
  EXPECT_EQ(next, total) << "event spans end at " << next << " of " << total;
  return r;
}

inline std::string outcome(const result<json>& m) {
  return m ? m->dump() : "error " + m.error().to_string();
}

/// The one-shot result, after checking that every chunk size 1..16 gives the same message
/// and the same event log (chunks of a region merged).
inline result<json> parse_every_chunking(const response_template& t, std::string_view generation,
                                         const response_parser_options& o = {}) {
  const response_run whole = run_response(t, generation, o, 0);
  for (std::size_t c = 1; c <= 16; ++c) {
    const response_run r = run_response(t, generation, o, c);
    EXPECT_EQ(outcome(r.message), outcome(whole.message)) << "chunk size " << c;
    EXPECT_EQ(r.log, whole.log) << "chunk size " << c;
    EXPECT_EQ(r.items, whole.items) << "chunk size " << c;
    if (::testing::Test::HasFailure()) break;
  }
  return whole.message;
}

/// A spec loaded (a failure to load fails the test).
inline response_template load(const json& spec) {
  auto t = response_template::from_json(spec);
  EXPECT_TRUE(t) << (t ? "" : t.error().to_string());
  return t ? *t : response_template{};
}

/// The message of `text` under `spec`, the same at every chunk size (a failure fails the
/// test).
inline json parse_ok(const json& spec, std::string_view text,
                     const response_parser_options& o = {}) {
  auto m = parse_every_chunking(load(spec), text, o);
  EXPECT_TRUE(m) << (m ? "" : m.error().to_string());
  return m ? *m : json();
}

}  // namespace ocml::test
