// SPDX-License-Identifier: Apache-2.0
// The members of a JSON object as a stream completes them, without parsing it: a byte at a
// time in O(1) state, for the object's own members (depth 1) and those of an object that is
// one of its members' values (depth 2). A call body `{"name": "f", "arguments": {...}}`
// gives its name when the name's member ends and each argument when that argument's member
// ends, so the arguments stream as the model writes them (issue 26).
//
//   json_members m;
//   std::string text = R"({"name": "f", "arguments": {"a": 1, )";
//   m.feed(text, on_member, on_open);  // on_member: "name" (depth 1), "a" (depth 2)
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ocml::detail {

/// A member whose value has ended. Offsets index the text fed.
struct json_member {
  int depth = 1;  ///< 1: of the top-level object; 2: of an object that is a depth-1 value.
  std::size_t key_begin = 0;  ///< The key, quotes included.
  std::size_t key_end = 0;
  std::size_t value_begin = 0;  ///< The value, no white space around it.
  std::size_t value_end = 0;
  std::size_t parent_key_begin = 0;  ///< Depth 2: the key of the member it belongs to.
  std::size_t parent_key_end = 0;
};

class json_members {
 public:
  enum class status : std::uint8_t {
    going,    ///< The top-level object is still open (or not yet begun).
    done,     ///< It closed.
    invalid,  ///< What was fed is no JSON object (or breaks JSON's grammar where it is seen).
  };

  void reset() noexcept { *this = json_members{}; }

  /// Reads the bytes of `text` not read before (`text` is everything fed so far; it only
  /// grows). `on_member(const json_member&)` for each member whose value ends;
  /// `on_open(std::size_t key_begin, std::size_t key_end, char c, std::size_t at)` when the
  /// value of a depth-1 member opens with '{' or '[' (`c`, at offset `at`).
  template <class Member, class Open>
  status feed(std::string_view text, Member&& on_member, Open&& on_open) {
    for (; at_ < text.size() && st_ == status::going; ++at_) {
      byte(text[at_], at_, on_member, on_open);
    }
    return st_;
  }

  [[nodiscard]] status current() const noexcept { return st_; }

  /// The depth-1 member whose value has ended, while nothing after it was read (its ',' or
  /// '}' not yet): its key's and value's end offsets.
  bool ended_value(std::size_t& key_begin, std::size_t& key_end,
                   std::size_t& value_end) const noexcept {
    const frame& f = frames_[0];
    if (depth_ != 1 || !f.object || f.ph != phase::after) return false;
    key_begin = f.key_begin;
    key_end = f.key_end;
    value_end = f.value_end;
    return true;
  }

 private:
  enum class phase : std::uint8_t { key, colon, value, scalar, after };
  struct frame {
    bool object = true;
    phase ph = phase::key;
    bool comma = false;  // a ',' was the last thing seen (no member after it yet)
    std::size_t key_begin = 0, key_end = 0, value_begin = 0, value_end = 0;
  };

  frame* top() noexcept { return depth_ >= 1 && depth_ <= 2 ? &frames_[depth_ - 1] : nullptr; }

  template <class Member>
  void member_ends(const frame& f, Member& on_member) {
    if (!f.object) return;
    json_member m;
    m.depth = static_cast<int>(depth_);
    m.key_begin = f.key_begin;
    m.key_end = f.key_end;
    m.value_begin = f.value_begin;
    m.value_end = f.value_end;
    if (depth_ == 2) {
      m.parent_key_begin = frames_[0].key_begin;
      m.parent_key_end = frames_[0].key_end;
    }
    on_member(m);
  }

  template <class Member, class Open>
  void byte(char c, std::size_t i, Member& on_member, Open& on_open) {
    if (string_) {
      if (escape_) {
        escape_ = false;
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '"') {
        string_ = false;
        if (frame* f = top()) {
          if (key_) {
            f->key_end = i + 1;
            f->ph = phase::colon;
          } else {
            f->value_end = i + 1;
            f->ph = phase::after;
          }
        }
      }
      return;
    }
    frame* f = top();
    switch (c) {
      case ' ':
      case '\t':
      case '\n':
      case '\r':
        if (f != nullptr && f->ph == phase::scalar) f->ph = phase::after;
        return;
      case '"':
        string_ = true;
        if (depth_ == 0) return fail();
        if (f == nullptr) return;
        f->comma = false;
        if (f->object && f->ph == phase::key) {
          key_ = true;
          f->key_begin = i;
        } else if (f->ph == phase::value) {
          key_ = false;
          f->value_begin = i;
        } else {
          fail();
        }
        return;
      case '{':
      case '[':
        if (depth_ == 0) {
          if (c != '{') return fail();
        } else if (f != nullptr) {
          if (f->ph != phase::value) return fail();
          f->value_begin = i;
          f->comma = false;
          if (depth_ == 1 && f->object) on_open(f->key_begin, f->key_end, c, i);
        }
        ++depth_;
        if (frame* n = top()) *n = frame{c == '{', c == '{' ? phase::key : phase::value};
        return;
      case '}':
      case ']':
        if (depth_ == 0) return fail();
        if (f != nullptr) {
          if (f->object != (c == '}') || f->comma || f->ph == phase::colon ||
              (f->object && f->ph == phase::value)) {
            return fail();
          }
          if (f->ph == phase::after || f->ph == phase::scalar) member_ends(*f, on_member);
        }
        --depth_;
        if (depth_ == 0) {
          st_ = status::done;
        } else if (frame* p = top()) {
          p->value_end = i + 1;
          p->ph = phase::after;
        }
        return;
      case ',':
        if (depth_ == 0) return fail();
        if (f == nullptr) return;
        if (f->ph != phase::after && f->ph != phase::scalar) return fail();
        member_ends(*f, on_member);
        f->ph = f->object ? phase::key : phase::value;
        f->comma = true;
        return;
      case ':':
        if (depth_ == 0) return fail();
        if (f == nullptr) return;
        if (!f->object || f->ph != phase::colon) return fail();
        f->ph = phase::value;
        f->comma = false;
        return;
      default:
        if (depth_ == 0) return fail();
        if (f == nullptr) return;
        if (f->ph == phase::value) {
          f->value_begin = i;
          f->ph = phase::scalar;
          f->comma = false;
        } else if (f->ph != phase::scalar) {
          return fail();
        }
        f->value_end = i + 1;
        return;
    }
  }

  void fail() noexcept { st_ = status::invalid; }

  std::array<frame, 2> frames_{};
  std::size_t depth_ = 0;
  std::size_t at_ = 0;
  bool string_ = false;
  bool escape_ = false;
  bool key_ = false;
  status st_ = status::going;
};

}  // namespace ocml::detail
