// SPDX-License-Identifier: Apache-2.0
#include "template/lexer.hpp"

#include <algorithm>

#include <cstring>

#include "core/utf8.hpp"
#include "template/value.hpp"

namespace ocml::tmpl {

namespace {

bool ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Python's str.rstrip() for the ASCII whitespace a template holds.
void rstrip(std::string& s) {
  while (!s.empty() && ws(s.back())) s.pop_back();
}

class lexer {
 public:
  explicit lexer(std::string src) : s_(std::move(src)) {}

  lexed run() {
    bool line_starting = true;
    while (i_ < s_.size()) {
      // The next tag opener.
      std::size_t open = i_;
      char kind = 0;
      for (;;) {
        open = s_.find('{', open);  // memchr
        if (open == std::string::npos) {
          open = s_.size();
          break;
        }
        if (open + 1 < s_.size() &&
            (s_[open + 1] == '{' || s_[open + 1] == '%' || s_[open + 1] == '#')) {
          kind = s_[open + 1];
          break;
        }
        ++open;
      }
      std::string text = s_.substr(i_, open - i_);
      if (kind == 0) {
        emit_data(std::move(text), i_);
        break;
      }
      const char sign = open + 2 < s_.size() ? s_[open + 2] : 0;
      if (sign == '-') {
        rstrip(text);
      } else if (sign != '+' && kind != '{') {
        // lstrip_blocks: the spaces between a line's start and a block or comment tag.
        const std::size_t nl = text.rfind('\n');
        const std::size_t l = nl == std::string::npos ? 0 : nl + 1;
        if ((l > 0 || line_starting) && l < text.size()) {
          bool only = true;
          for (std::size_t k = l; k < text.size(); ++k) only = only && ws(text[k]);
          if (only) text.resize(l);
        }
      }
      emit_data(std::move(text), i_);
      i_ = open + 2 + (sign == '-' || sign == '+' ? 1 : 0);
      if (kind == '#') {
        comment(open);
      } else if (kind == '{') {
        out_.tokens.push_back({tok::var_begin, "", open});
        expression("}}", open);
      } else {
        const std::size_t before = out_.tokens.size();
        out_.tokens.push_back({tok::block_begin, "", open});
        expression("%}", open);
        if (is_raw(before)) raw(before);
      }
      line_starting = i_ > 0 && s_[i_ - 1] == '\n';
    }
    out_.tokens.push_back({tok::eof, "", s_.size()});
    out_.source = std::move(s_);
    return std::move(out_);
  }

 private:
  [[noreturn]] void error(std::size_t pos, const std::string& what) const {
    throw template_error{error_code::template_syntax, position(s_, pos) + " " + what, pos};
  }

  void emit_data(std::string text, std::size_t pos) {
    if (!text.empty()) out_.tokens.push_back({tok::data, std::move(text), pos});
  }

  // After a tag's closer: "-" strips all following white space; "%}" and "#}" eat one newline
  // (trim_blocks); "+%}" keeps it.
  void after_close(bool minus, bool plus, bool block) {
    if (minus) {
      while (i_ < s_.size() && ws(s_[i_])) ++i_;
    } else if (block && !plus && i_ < s_.size() && s_[i_] == '\n') {
      ++i_;
    }
  }

  void comment(std::size_t open) {
    const std::size_t end = s_.find("#}", i_);
    if (end == std::string::npos) error(open, "missing end of comment tag");
    const bool minus = end > i_ && s_[end - 1] == '-';
    const bool plus = end > i_ && s_[end - 1] == '+';
    i_ = end + 2;
    after_close(minus, plus, true);
  }

  // Tokens up to the closer ("}}" or "%}"), with its white space control.
  void expression(std::string_view closer, std::size_t open) {
    const bool block = closer == "%}";
    for (;;) {
      while (i_ < s_.size() && ws(s_[i_])) ++i_;
      if (i_ >= s_.size())
        error(open, block ? "unexpected end of template, expected '%}'"
                          : "unexpected end of template, expected '}}'");
      // The closer, with "-" or "+" before it.
      for (const char sign : {'-', '+', '\0'}) {
        const std::size_t k = i_ + (sign != 0 ? 1 : 0);
        if ((sign == 0 || s_[i_] == sign) && s_.compare(k, 2, closer) == 0) {
          if (sign == '+' && !block) break;
          out_.tokens.push_back({block ? tok::block_end : tok::var_end, "", i_});
          i_ = k + 2;
          after_close(sign == '-', sign == '+', block);
          return;
        }
      }
      lex_one();
    }
  }

  void lex_one() {
    const std::size_t at = i_;
    const char c = s_[i_];
    if (std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_') {
      std::size_t e = i_ + 1;
      while (e < s_.size() &&
             (std::isalnum(static_cast<unsigned char>(s_[e])) != 0 || s_[e] == '_'))
        ++e;
      out_.tokens.push_back({tok::name, s_.substr(i_, e - i_), at});
      i_ = e;
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      number();
      return;
    }
    if (c == '\'' || c == '"') {
      string_literal();
      return;
    }
    static constexpr std::string_view two[] = {"//", "**", "==", "!=", "<=", ">="};
    for (const auto t : two) {
      if (s_.compare(i_, 2, t) == 0) {
        out_.tokens.push_back({tok::op, std::string(t), at});
        i_ += 2;
        return;
      }
    }
    if (std::strchr("+-/*%~[](){}<>=.:|,;", c) != nullptr) {
      out_.tokens.push_back({tok::op, std::string(1, c), at});
      ++i_;
      return;
    }
    error(at, std::string("unexpected char '") + c + "'");
  }

  void digits(std::size_t& e) const {
    while (e < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[e])) != 0 ||
                             (s_[e] == '_' && e + 1 < s_.size() &&
                              std::isdigit(static_cast<unsigned char>(s_[e + 1])) != 0))) {
      ++e;
    }
  }

  void number() {
    const std::size_t at = i_;
    std::size_t e = i_;
    digits(e);
    bool is_float = false;
    if (e + 1 < s_.size() && s_[e] == '.' &&
        std::isdigit(static_cast<unsigned char>(s_[e + 1])) != 0) {
      ++e;
      digits(e);
      is_float = true;
    }
    if (e < s_.size() && (s_[e] == 'e' || s_[e] == 'E')) {
      std::size_t k = e + 1;
      if (k < s_.size() && (s_[k] == '+' || s_[k] == '-')) ++k;
      if (k < s_.size() && std::isdigit(static_cast<unsigned char>(s_[k])) != 0) {
        e = k;
        digits(e);
        is_float = true;
      }
    }
    std::string t;
    for (std::size_t k = at; k < e; ++k) {
      if (s_[k] != '_') t.push_back(s_[k]);
    }
    out_.tokens.push_back({is_float ? tok::number : tok::integer, std::move(t), at});
    i_ = e;
  }

  // A quoted string, unescaped as Python's "unicode-escape" codec does.
  void string_literal() {
    const std::size_t at = i_;
    const char q = s_[i_++];
    std::string v;
    for (;;) {
      if (i_ >= s_.size()) error(at, "unexpected end of string");
      const char c = s_[i_];
      if (c == q) {
        ++i_;
        break;
      }
      if (c != '\\' || i_ + 1 >= s_.size()) {
        v.push_back(c);
        ++i_;
        continue;
      }
      const char n = s_[i_ + 1];
      i_ += 2;
      const auto hex = [&](std::size_t count) {
        unsigned long cp = 0;
        for (std::size_t k = 0; k < count; ++k) {
          if (i_ >= s_.size() || std::isxdigit(static_cast<unsigned char>(s_[i_])) == 0) {
            error(at, "truncated \\x, \\u or \\U escape in a string");
          }
          const char h = s_[i_++];
          cp = cp * 16 + static_cast<unsigned long>(std::isdigit(static_cast<unsigned char>(h)) != 0
                                                        ? h - '0'
                                                        : (std::tolower(h) - 'a' + 10));
        }
        detail::append_utf8(v, cp);
      };
      switch (n) {
        case '\n':
          break;
        case '\\':
        case '\'':
        case '"':
          v.push_back(n);
          break;
        case 'a':
          v.push_back('\a');
          break;
        case 'b':
          v.push_back('\b');
          break;
        case 'f':
          v.push_back('\f');
          break;
        case 'n':
          v.push_back('\n');
          break;
        case 'r':
          v.push_back('\r');
          break;
        case 't':
          v.push_back('\t');
          break;
        case 'v':
          v.push_back('\v');
          break;
        case 'x':
          hex(2);
          break;
        case 'u':
          hex(4);
          break;
        case 'U':
          hex(8);
          break;
        default:
          if (n >= '0' && n <= '7') {
            unsigned long cp = static_cast<unsigned long>(n - '0');
            for (int k = 0; k < 2 && i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '7'; ++k) {
              cp = cp * 8 + static_cast<unsigned long>(s_[i_++] - '0');
            }
            detail::append_utf8(v, cp);
          } else {
            v.push_back('\\');
            v.push_back(n);
          }
      }
    }
    out_.tokens.push_back({tok::string, std::move(v), at});
  }

  [[nodiscard]] bool is_raw(std::size_t begin) const {
    const auto& t = out_.tokens;
    return t.size() == begin + 3 && t[begin + 1].kind == tok::name && t[begin + 1].text == "raw";
  }

  // {% raw %}…{% endraw %}: the text between, as it is.
  void raw(std::size_t begin) {
    out_.tokens.resize(begin);
    // "{% raw %}" takes no trim_blocks newline (only "-%}" strips after it).
    if (i_ >= 3 && s_[i_ - 1] == '\n' && s_.compare(i_ - 3, 2, "%}") == 0 && s_[i_ - 4] != '-') {
      --i_;
    }
    for (std::size_t k = i_;;) {
      const std::size_t open = s_.find("{%", k);
      if (open == std::string::npos) error(i_, "missing '{% endraw %}'");
      std::size_t j = open + 2;
      const char sign = j < s_.size() ? s_[j] : 0;
      if (sign == '-' || sign == '+') ++j;
      while (j < s_.size() && ws(s_[j])) ++j;
      if (s_.compare(j, 6, "endraw") != 0) {
        k = open + 2;
        continue;
      }
      j += 6;
      while (j < s_.size() && ws(s_[j])) ++j;
      const bool minus = j < s_.size() && s_[j] == '-';
      const bool plus = j < s_.size() && s_[j] == '+';
      if (minus || plus) ++j;
      if (s_.compare(j, 2, "%}") != 0) {
        k = open + 2;
        continue;
      }
      std::string text = s_.substr(i_, open - i_);
      if (sign == '-') rstrip(text);
      emit_data(std::move(text), i_);
      i_ = j + 2;
      after_close(minus, plus, true);
      return;
    }
  }

  std::string s_;
  std::size_t i_ = 0;
  lexed out_;
};

}  // namespace

lexed lex(std::string_view source) {
  // Jinja2 splits the source on "\r\n", "\r" and "\n", drops one trailing newline and joins
  // the lines with "\n".
  std::string s;
  s.reserve(source.size());
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\r') {
      s.push_back('\n');
      if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
    } else {
      s.push_back(source[i]);
    }
  }
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return lexer(std::move(s)).run();
}

std::pair<std::size_t, std::size_t> line_column(std::string_view source, std::size_t pos) {
  // Counted, not stepped through (every failing line of a batch asks).
  const std::string_view head = source.substr(0, std::min(pos, source.size()));
  const auto line = 1 + static_cast<std::size_t>(std::count(head.begin(), head.end(), '\n'));
  const std::size_t nl = head.rfind('\n');
  const std::size_t col = nl == std::string_view::npos ? head.size() + 1 : head.size() - nl;
  return {line, col};
}

std::string position(std::string_view source, std::size_t pos) {
  const auto [line, col] = line_column(source, pos);
  return std::to_string(line) + ":" + std::to_string(col);
}

}  // namespace ocml::tmpl
