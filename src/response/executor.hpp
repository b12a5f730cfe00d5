// SPDX-License-Identifier: Apache-2.0
// The streaming executor: a buffer, the open region, and a scan over the delimiters the open
// region watches, holding back bytes a delimiter may still claim.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/json_extent.hpp"
#include "core/json_members.hpp"
#include "core/line_tracker.hpp"
#include "ocml/response.hpp"
#include "response/content.hpp"
#include "response/spec.hpp"

namespace ocml::resp {

class executor {
 public:
  executor(std::shared_ptr<const spec> s, const response_parser_options& o,
           response_parser::sink sink);
  void push(std::string_view piece);
  [[nodiscard]] result<json> finish();
  [[nodiscard]] const std::vector<diagnostic>& diagnostics() const noexcept { return diags_; }

 private:
  // One search result of a delimiter, kept while the buffer is unchanged.
  struct found {
    bool valid = false;
    std::size_t from = 0;   // absolute offset the search started at
    std::size_t until = 0;  // absolute end of the buffer it saw
    bool eos = false;
    bool any = false;  // something matched (complete or partial)
    bool pending = false;
    std::size_t start = 0;  // absolute
    std::size_t end = 0;    // absolute
    captures caps;
    std::vector<std::size_t> next;  // literals: absolute next occurrence (npos: none)
    std::size_t next_until = 0;     // the buffer end `next` was found in
  };
  const found& search(std::size_t slot, const delimiter& d, bool eos);
  // One look; `again` when a match was too long and the look must start one byte on.
  const found& search_once(std::size_t slot, const delimiter& d, bool eos, bool& again);
  void process(bool eos);
  void read_prefix(std::string_view prefix);
  void accumulate(std::size_t from, std::size_t to);
  void structure(std::size_t from, std::size_t to, int field);
  void open_region(int field, captures caps);
  void close_region();
  void emit_close(std::string_view field, const json& value);
  // x-ocml-json-end: the absolute offset just past the JSON value the open region's body
  // starts with, once the scan has seen it end (npos until then, or if it is no object or
  // array); each byte is scanned once.
  [[nodiscard]] std::size_t json_end();
  // The kept text of a region whose body did not parse: its delimiters and body as written.
  [[nodiscard]] std::string as_written() const;
  void trim_buffer();
  // A call's XML-style parameters complete so far, as region_item events. A look re-reads
  // the pending body, so it happens when the bytes added hold '<' or '>' (while at most 512
  // bytes are pending) or the body grew by a quarter: O(1) amortized work per byte.
  void scan_items(std::string_view added);
  // A call's JSON arguments complete so far (and, for a JSON call body, its name, id and
  // region_call), as region_item events: each byte of the body is scanned once.
  void scan_json_items();
  // Whether the stream began (or, unscanned when nobody listened, would have begun) the
  // open region's JSON call.
  [[nodiscard]] bool json_call_begun(const field_spec& f);
  // region_call, once a JSON call's name and first argument are known.
  void begin_json_call(const field_spec& f);
  // One streamed argument: false (and no event) when its key came before.
  bool emit_item(const field_spec& f, std::string key, json value);
  // Where the complete arguments of the open body end (args_from_, args_end_), read again
  // when the scan stopped at the first (nobody listened).
  void track_arguments(const field_spec& f);
  // The value of a call the generation cut after the stream began it (null: none).
  [[nodiscard]] json partial_call(const field_spec& f);
  // The text is a literal that closes the implicit field (the end of the message).
  [[nodiscard]] bool ends_message(std::string_view text) const;
  void emit(response_event& e);
  void report(error_code code, std::size_t offset, detail::position at, std::string message,
              bool always_warning = false);
  [[nodiscard]] std::string_view bytes(std::size_t from, std::size_t to) const {
    return std::string_view(buf_).substr(from - base_, to - from);
  }

  std::shared_ptr<const spec> spec_;
  response_parser::sink sink_;
  bool lenient_ = false;
  bool has_tools_ = false;
  tool_params tools_;
  std::string buf_;
  std::size_t base_ = 0;  // absolute offset of buf_[0]
  std::size_t pos_ = 0;   // absolute offset of the first byte not yet consumed
  detail::position lc_;   // line:column of pos_
  int current_ = -1;      // field index, or -1 (bytes go nowhere)
  bool opened_ = false;
  std::string body_;
  std::size_t body_at_ = 0;
  detail::position body_lc_;
  captures caps_;
  std::string open_text_;           // the open region's opening delimiter
  std::string close_text_;          // and its closing one, while it closes
  detail::json_extent scan_{true};  // x-ocml-json-end: the body's JSON so far
  std::size_t scan_at_ = 0;         // absolute offset of the next byte to scan
  std::size_t scan_end_ = static_cast<std::size_t>(-1);
  bool answered_ = false;      // a field without x-ocml-once has taken a byte that is not white
  int resume_ = -1;            // x-ocml-inside: the region to go on with when the inner one closes
  bool itemize_ = false;       // the open region's parameters stream as region_item events
  std::string item_tool_;      // its call's name
  std::size_t item_at_ = 0;    // body_ offset the next parameter is looked for from
  std::size_t item_seen_ = 0;  // body_ size at the last look
  std::unordered_set<std::string> item_keys_;
  bool item_begun_ = false;          // the stream has begun the open region's call
  std::string item_id_;              // a JSON call body's "id"
  json item_args_ = json::object();  // a cut call's complete arguments (partial_call)
  std::size_t items_sent_ = 0;       // region_item events of the open region
  json item_;                        // the value of the last region_item event
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  std::size_t args_open_ = npos;  // body_ offset after the arguments' '{'
  std::size_t args_from_ = npos;  // body_ offset after the last streamed argument
  std::size_t args_end_ = npos;   // body_ offset where the arguments object ended
  detail::json_members members_;
  bool at_eos_ = false;  // the generation ended
  json output_;
  bool from_prefix_ = false;
  bool finished_ = false;
  std::vector<found> cache_;  // one per (field, open|close)
  /// Per slot: no match of its pattern starts before this absolute offset (what was read
  /// without finding one, and the starts given up on).
  std::vector<std::size_t> floor_;
  // Per slot: a too-long delimiter was reported, and the run of them it starts is not
  // reported again (one warning, not one per byte), until a delimiter is found.
  std::vector<bool> too_long_said_;
  std::vector<diagnostic> diags_;
  std::optional<diagnostic> first_error_;
};

}  // namespace ocml::resp
