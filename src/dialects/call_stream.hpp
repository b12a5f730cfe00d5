// SPDX-License-Identifier: Apache-2.0
// A JSON tool call written inside a message (ChatML and Qwen3 `<tool_call>`, PCML `<call>`),
// streamed while it is written (issue 26, docs/decisions.md 94): the call begins
// (call_begin) at its first complete argument, or when its empty arguments close, and each
// argument goes out (call_arguments) as Python's json.dumps writes it, so the parts are the
// start of the tool_call event's arguments. A body that breaks after the call began is that
// call (kept), its arguments as written. Each byte of the body is scanned once.
//
//   call_stream cs(em, opt, {.read_id = true});
//   cs.start(body_off, body_pos);   // at the call's open tag
//   buf += text; cs.scan(buf);      // as bytes arrive (only when opt.stream_arguments)
//   if (!parsed && cs.begun(buf)) em.call(cs.kept(buf), …);
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/emitter.hpp"
#include "core/json_members.hpp"

namespace ocml::detail {

struct call_stream_options {
  bool read_id = false;  ///< The object's "id" is the call's (PCML).
};

class call_stream {
 public:
  call_stream(emitter& em, const decoder_options& opt, call_stream_options o = {})
      : em_(em), opt_(opt), o_(o) {}

  /// A call's body begins at `off` (line:column `pos`).
  void start(std::size_t off, position pos);
  /// Reads the bytes of `body` (everything buffered so far) not read before.
  void scan(std::string_view body);
  /// Whether a stream began the call: when nobody listened (stream_arguments off), the
  /// body is read now, as far as the stream would have read it to decide.
  [[nodiscard]] bool begun(std::string_view body);
  /// The begun call from a body that broke or was cut off: its arguments are the object
  /// when it closed (only white space and the call's '}' after it), else the parts sent
  /// followed by the rest of the body as written: no byte is lost.
  [[nodiscard]] tool_call kept(std::string_view body);
  /// kept(body) as the call event (its span ending at `end`), with a warning saying `why`
  /// the body did not parse.
  void emit_kept(std::string_view body, std::size_t end, const std::string& why);

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  void reset_scan();
  void member(std::string_view body, const json_member& m);
  void begin(std::size_t at);
  void repeated(std::string_view what);
  [[nodiscard]] bool valid_member(std::string_view key, std::string_view value) const;
  bool python_member(std::string_view key, std::string_view value, std::string& out,
                     std::string& name) const;

  emitter& em_;
  const decoder_options& opt_;
  call_stream_options o_;
  std::size_t off_ = 0;
  position pos_;
  json_members members_;
  bool going_ = false;                 // its arguments may still stream
  bool begun_ = false;                 // call_begin was sent (or, unsent, would have been)
  std::size_t begun_at_ = kNone;       // body offset where it began
  tool_call call_;                     // its id and name (call_begin's call)
  std::string streamed_;               // the arguments sent so far
  std::vector<std::string> arg_keys_;  // the first arguments' names (a repeat is said)
  std::size_t args_open_ = kNone;      // body offset after the arguments' '{'
  std::size_t args_tail_ = kNone;      // body offset after the last argument sent
  std::size_t args_end_ = kNone;       // body offset where the arguments object closed
  std::size_t args_key_at_ = kNone;    // body offsets of the keys read
  std::size_t name_key_at_ = kNone;
  std::size_t id_key_at_ = kNone;
};

}  // namespace ocml::detail
