// SPDX-License-Identifier: Apache-2.0
// A JSON tool call inside a message, streamed while it is written (call_stream.hpp).
#include "dialects/call_stream.hpp"

#include <algorithm>

#include "interchange/json_util.hpp"
#include "interchange/pyjson.hpp"

namespace ocml::detail {

namespace {

constexpr std::string_view kArgs = "\"arguments\"";
constexpr std::string_view kName = "\"name\"";
constexpr std::string_view kId = "\"id\"";

bool literal(std::string_view v) {
  return v == "true" || v == "false" || v == "null";
}

// A string token's value (a plain or canonical one without the parser).
std::optional<std::string> string_of(std::string_view token) {
  if (json_string_form(token) != string_form::other) return json_string_value(token);
  auto j = try_parse_json(token);
  if (!j || !j->is_string()) return std::nullopt;
  return j->get<std::string>();
}

}  // namespace

void call_stream::start(std::size_t off, position pos) {
  off_ = off;
  pos_ = pos;
  reset_scan();
  going_ = true;
  begun_ = false;
  begun_at_ = kNone;
  call_ = tool_call{};
  streamed_.clear();
  arg_keys_.clear();
}

void call_stream::reset_scan() {
  members_.reset();
  args_open_ = args_tail_ = args_end_ = kNone;
  args_key_at_ = name_key_at_ = id_key_at_ = kNone;
}

void call_stream::scan(std::string_view body) {
  if (!going_) return;
  const auto part = [&](std::size_t b, std::size_t e) { return body.substr(b, e - b); };
  const auto on_member = [&](const json_member& m) { member(body, m); };
  const auto on_open = [&](std::size_t kb, std::size_t ke, char c, std::size_t at) {
    if (!going_ || part(kb, ke) != kArgs || args_tail_ != kNone) return;
    if (c != '{' || call_.name.empty()) {
      going_ = false;  // arguments that are no object, or a name after them: whole
      return;
    }
    args_tail_ = args_open_ = at + 1;
  };
  if (members_.feed(body, on_member, on_open) == json_members::status::invalid) {
    going_ = false;
    return;
  }
  std::size_t kb = 0;
  std::size_t ke = 0;
  std::size_t end = 0;
  if (going_ && args_tail_ != kNone && args_end_ == kNone && members_.ended_value(kb, ke, end) &&
      part(kb, ke) == kArgs) {
    if (!begun_) begin(end);  // {} arguments
    args_end_ = end;
    args_key_at_ = kb;
  }
}

void call_stream::member(std::string_view body, const json_member& m) {
  if (!going_) return;
  const auto part = [&](std::size_t b, std::size_t e) { return body.substr(b, e - b); };
  const std::string_view key = part(m.key_begin, m.key_end);
  const std::string_view value = part(m.value_begin, m.value_end);
  if (m.depth == 1) {
    const bool is_args = key == kArgs;
    const bool is_name = key == kName;
    const bool is_id = o_.read_id && key == kId;
    if (!is_args && !is_name && !is_id) return;
    std::size_t& seen = is_args ? args_key_at_ : is_name ? name_key_at_ : id_key_at_;
    if (seen != kNone && seen != m.key_begin) {
      repeated(key);
      return;
    }
    seen = m.key_begin;
    if (is_name) {
      call_.name = string_of(value).value_or("");
      going_ = !call_.name.empty();
    } else if (is_id) {
      // An id written after the call began cannot be the one call_begin sent: the call
      // keeps the generated one in both readings.
      if (auto id = string_of(value)) {
        if (begun_at_ == kNone || m.key_begin < begun_at_) {
          call_.id = std::move(*id);
        } else if (opt_.stream_arguments) {
          em_.report_at(error_code::body_constraint_violation, severity::warning, off_, pos_,
                        "the call's id comes after its arguments began to stream: the stream "
                        "gave the call a generated id");
        }
      }
    } else if (args_tail_ != kNone) {
      if (!begun_) begin(m.value_end);
      args_end_ = m.value_end;
    }
    return;
  }
  if (args_tail_ == kNone || args_end_ != kNone ||
      part(m.parent_key_begin, m.parent_key_end) != kArgs) {
    return;
  }
  if (begun_ && !opt_.stream_arguments) {
    args_tail_ = m.value_end;  // tracking only (kept's second reading)
    return;
  }
  if (!opt_.stream_arguments) {
    // Nobody listens, and the body broke (begun): a valid first argument is what would
    // have begun the call; the reading stops there.
    if (valid_member(key, value)) begin(m.value_end);
    going_ = false;
    return;
  }
  std::string t = streamed_.empty() ? "{" : ", ";
  std::string name;
  if (!python_member(key, value, t, name)) {
    going_ = false;  // the close says why
    return;
  }
  // A key written twice goes out twice: the folded text, read as JSON, is the call's
  // arguments (the last wins, as in Python's json.loads); a warning says so. Checked while
  // the call has few arguments (no allocation once the list has its capacity).
  if (arg_keys_.size() < 32) {
    if (std::find(arg_keys_.begin(), arg_keys_.end(), name) != arg_keys_.end()) {
      em_.report_at(error_code::body_constraint_violation, severity::warning, off_, pos_,
                    "the call writes argument '" + name +
                        "' twice: the stream sends both, the call keeps the last");
    }
    arg_keys_.push_back(name);
  }
  if (!begun_) begin(m.value_end);
  args_tail_ = m.value_end;
  streamed_ += t;
  em_.call_progress(event_kind::call_arguments, nullptr, t, off_);
}

void call_stream::begin(std::size_t at) {
  begun_ = true;
  begun_at_ = at;
  if (opt_.stream_arguments) em_.call_progress(event_kind::call_begin, &call_, {}, off_);
}

void call_stream::repeated(std::string_view what) {
  if (begun_ && opt_.stream_arguments) {
    em_.report_at(error_code::body_constraint_violation, severity::warning, off_, pos_,
                  "the call repeats " + std::string(what) +
                      " after its arguments began to stream: the stream sent the first, the "
                      "call keeps the last");
  }
  going_ = false;
}

bool call_stream::begun(std::string_view body) {
  if (opt_.stream_arguments || begun_) return begun_;
  reset_scan();
  going_ = true;
  call_.name.clear();
  call_.id.clear();
  scan(body);  // stops at the first argument, valid or not
  going_ = false;
  return begun_;
}

tool_call call_stream::kept(std::string_view body) {
  if (!opt_.stream_arguments) {
    // The reading stopped at the first argument: where the complete ones end, read again.
    reset_scan();
    going_ = true;
    scan(body);
    going_ = false;
    if (args_tail_ != kNone && args_open_ != kNone && args_tail_ > args_open_ &&
        args_tail_ <= body.size()) {
      // The arguments that were complete, as the stream would have sent them (each part
      // is json.dumps of the object they make, without its '}').
      std::string obj(body.substr(args_open_ - 1, args_tail_ - args_open_ + 1));
      obj += '}';
      if (auto v = try_parse_json(obj, opt_.limits.max_json_depth); v && !v->empty()) {
        streamed_ = python_json_dumps(*v);
        streamed_.pop_back();
      }
    }
  }
  tool_call tc;
  tc.name = call_.name;
  tc.id = call_.id;
  bool closed = args_end_ != kNone && args_end_ <= body.size();
  if (closed) {
    std::string_view rest = body.substr(args_end_);
    const auto ws = rest.find_first_not_of(" \t\r\n");
    rest.remove_prefix(ws == std::string_view::npos ? rest.size() : ws);
    if (!rest.empty() && rest.front() == '}') rest.remove_prefix(1);
    closed = rest.find_first_not_of(" \t\r\n") == std::string_view::npos;
  }
  if (closed) {
    tc.arguments = streamed_.empty() ? "{}" : streamed_ + "}";
  } else {
    tc.arguments = streamed_.empty() ? "{" : streamed_;
    tc.arguments.append(body.substr(std::min(args_tail_, body.size())));
  }
  return tc;
}

void call_stream::emit_kept(std::string_view body, std::size_t end, const std::string& why) {
  const tool_call tc = kept(body);
  em_.report_at(error_code::body_constraint_violation, severity::warning, off_, pos_,
                "recovered: " + why + " after the stream began the call to '" + tc.name +
                    "' (kept as that call, its arguments as written)");
  em_.call(tc, off_, end);
}

bool call_stream::valid_member(std::string_view key, std::string_view value) const {
  if (!string_of(key)) return false;
  return json_string_form(value) != string_form::other || json_plain_integer(value) ||
         literal(value) || try_parse_json(value, opt_.limits.max_json_depth).has_value();
}

// `"key": value` as Python's json.dumps writes it, appended to `out` (`name`: the key).
// Strings whose escapes json.dumps writes the same way, plain integers and literals are
// their own text (no parse); anything else goes through the JSON parser. False when the
// member is not valid JSON.
bool call_stream::python_member(std::string_view key, std::string_view value, std::string& out,
                                std::string& name) const {
  if (json_string_form(key) != string_form::other) {
    name = json_string_value(key);
    out += key;
  } else {
    auto k = string_of(key);
    if (!k) return false;
    name = std::move(*k);
    python_json_string(name, out);
  }
  out += ": ";
  if (json_string_form(value) != string_form::other || json_plain_integer(value) ||
      literal(value)) {
    out += value;  // json.dumps writes it as it stands
    return true;
  }
  auto v = try_parse_json(value, opt_.limits.max_json_depth);
  if (!v) return false;
  python_json_dumps(*v, out);
  return true;
}

}  // namespace ocml::detail
