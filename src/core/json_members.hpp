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
#include <cstring>
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

/// How a JSON string token (quotes included) is written. `plain`: no escape, so its text
/// between the quotes is its value; `canonical`: its only escapes are \" \\ \b \f \n \r \t,
/// which nlohmann's dump and Python's json.dumps(ensure_ascii=False) write the same way, so
/// both write the token as it stands; `other`: anything else (\u, \/, a raw control
/// character, bytes that are not UTF-8, no string at all), for a real parser.
///
///   json_string_form("\"Paris\"") == string_form::plain
///   json_string_form("\"a\\nb\"") == string_form::canonical
enum class string_form : std::uint8_t { plain, canonical, other };

[[nodiscard]] inline string_form json_string_form(std::string_view token) noexcept {
  if (token.size() < 2 || token.front() != '"' || token.back() != '"') return string_form::other;
  bool escaped = false;
  std::uint32_t need = 0;  // continuation bytes still due
  for (std::size_t i = 1; i + 1 < token.size(); ++i) {
    const auto c = static_cast<unsigned char>(token[i]);
    if (need != 0) {
      if ((c & 0xC0) != 0x80) return string_form::other;
      --need;
    } else if (c == '\\') {
      if (i + 2 >= token.size()) return string_form::other;
      const char e = token[++i];
      if (e != '"' && e != '\\' && e != 'b' && e != 'f' && e != 'n' && e != 'r' && e != 't') {
        return string_form::other;
      }
      escaped = true;
    } else if (c < 0x20 || c == '"') {
      return string_form::other;
    } else if (c >= 0x80) {
      // Lead bytes of 2-4 byte sequences (overlongs and surrogates are left to the parser).
      if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
      } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
        need = 2;
      } else if (c >= 0xF1 && c <= 0xF3) {
        need = 3;
      } else {
        return string_form::other;
      }
    }
  }
  if (need != 0) return string_form::other;
  return escaped ? string_form::canonical : string_form::plain;
}

/// The value of a plain or canonical string token.
[[nodiscard]] inline std::string json_string_value(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (std::size_t i = 1; i + 1 < token.size(); ++i) {
    char c = token[i];
    if (c == '\\') {
      switch (token[++i]) {
        case 'b':
          c = '\b';
          break;
        case 'f':
          c = '\f';
          break;
        case 'n':
          c = '\n';
          break;
        case 'r':
          c = '\r';
          break;
        case 't':
          c = '\t';
          break;
        default:
          c = token[i];
          break;  // '"' or '\\'
      }
    }
    out += c;
  }
  return out;
}

/// An integer token both nlohmann's dump and Python's json.dumps write as it stands
/// (no sign of zero, no fraction or exponent, at most 18 digits).
[[nodiscard]] inline bool json_plain_integer(std::string_view token) noexcept {
  const bool negative = !token.empty() && token.front() == '-';
  if (negative) token.remove_prefix(1);
  if (token.empty() || token.size() > 18) return false;
  if (token[0] == '0') return token.size() == 1 && !negative;
  for (const char c : token) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

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
    const char* const data = text.data();
    const std::size_t n = text.size();
    for (; at_ < n && st_ == status::going; ++at_) {
      if (string_ && !escape_) {
        // Inside a string only '"' and '\\' matter: memchr to the next of them.
        const void* q = std::memchr(data + at_, '"', n - at_);
        const std::size_t quote = q == nullptr ? n : static_cast<const char*>(q) - data;
        const void* b = std::memchr(data + at_, '\\', quote - at_);
        at_ = b == nullptr ? quote : static_cast<std::size_t>(static_cast<const char*>(b) - data);
        if (at_ == n) break;
      }
      byte(data[at_], at_, on_member, on_open);
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
