// SPDX-License-Identifier: Apache-2.0
// Shared pieces of the fuzz targets: picking a dialect and split points from the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

#include "ocml/ocml.hpp"

namespace ocml::fuzz {

/// Every dialect of the registry, by number (the enum is contiguous from 0).
inline constexpr std::size_t kDialectCount = ocml::dialect_count;
inline constexpr ocml::dialect dialect_at(std::size_t i) {
  return static_cast<ocml::dialect>(i % kDialectCount);
}

/// Aborts (a finding) when `ok` is false, naming the failed check.
inline void check(bool ok, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  if (ok) return;
  std::fprintf(stderr, "fuzz check failed: %s:%d\n", file, line);
  std::abort();
}

/// Checks the spans of a decoder's events as they come: they tile the input (no gap, no
/// overlap, nothing past the end; text events hold exactly the bytes of their span), and
/// records them with adjacent slices of one kind joined, to compare chunkings.
class span_checker {
 public:
  explicit span_checker(std::string_view text, bool on) : text_(text), on_(on) {}
  void operator()(const event& e) {
    if (!on_ || e.kind == event_kind::diagnostic) return;
    if (!(e.span.begin == cursor_ && e.span.begin <= e.span.end && e.span.end <= text_.size())) {
      std::fprintf(stderr, "event %d spans [%zu, %zu) after %zu of %zu\n", static_cast<int>(e.kind),
                   e.span.begin, e.span.end, cursor_, text_.size());
      check(false);
    }
    const bool text = e.kind == event_kind::content || e.kind == event_kind::reasoning ||
                      e.kind == event_kind::reflection || e.kind == event_kind::introspection;
    if (text && text_.substr(e.span.begin, e.span.end - e.span.begin) != e.text) {
      std::fprintf(stderr, "span [%zu, %zu) holds '%.*s', the event '%.*s'\n", e.span.begin,
                   e.span.end, static_cast<int>(e.span.end - e.span.begin),
                   text_.data() + e.span.begin, static_cast<int>(e.text.size()), e.text.data());
      check(false);
    }
    cursor_ = e.span.end;
    const bool joins = text || e.kind == event_kind::structure || e.kind == event_kind::skipped;
    if (joins && e.span.begin == e.span.end) return;
    if (joins && !log_.empty() && log_.back().first == e.kind) {
      log_.back().second.end = e.span.end;
      return;
    }
    log_.emplace_back(e.kind, e.span);
  }
  /// After finish(): the spans reached the end.
  void done() const {
    if (on_) check(cursor_ == text_.size());
  }
  [[nodiscard]] const std::vector<std::pair<event_kind, byte_span>>& log() const { return log_; }

 private:
  std::string_view text_;
  bool on_;
  std::size_t cursor_ = 0;
  std::vector<std::pair<event_kind, byte_span>> log_;
};

/// Parses `text` pushed in pieces whose sizes follow from `seed` (spans checked into
/// `spans` when given).
inline parse_result parse_split(std::string_view text, const decoder_options& o, std::uint8_t seed,
                                span_checker* spans = nullptr) {
  collector c;
  decoder d(o, [&c, spans](const event& e) {
    c(e);
    if (spans != nullptr) (*spans)(e);
  });
  std::size_t pos = 0;
  std::size_t step = 1 + seed % 17;
  while (pos < text.size()) {
    d.push(text.substr(pos, step));
    pos += step;
    step = 1 + (step * 7 + seed) % 23;
  }
  d.finish();
  return c.take();
}

/// One-shot and split parses agree, in strict and lenient mode; returns the strict one.
inline parse_result parse_both_ways(std::string_view text, ocml::dialect d, std::uint8_t seed) {
  parse_result strict;
  for (bool lenient : {false, true}) {
    const decoder_options o{.dialect = d, .lenient = lenient, .completion = (seed & 0x80) != 0};
    const bool spans = spans_reported(d);
    span_checker whole_spans(text, spans), split_spans(text, spans);
    parse_result whole;
    {
      collector c;
      decoder dec(o, [&](const event& e) {
        c(e);
        whole_spans(e);
      });
      dec.push(text);
      dec.finish();
      whole = c.take();
    }
    const auto split = parse_split(text, o, seed, &split_spans);
    check(whole.conversation == split.conversation && whole.diagnostics == split.diagnostics);
    whole_spans.done();
    split_spans.done();
    check(whole_spans.log() == split_spans.log());
    for (const auto& diag : whole.diagnostics) check(diag.offset <= text.size());
    if (!lenient) strict = std::move(whole);
  }
  return strict;
}

}  // namespace ocml::fuzz
