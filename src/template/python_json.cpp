// SPDX-License-Identifier: Apache-2.0
// json.loads on nlohmann-json's SAX parser (iterative: no recursion on depth). nlohmann
// refuses NaN and Infinity, so a first pass over the text outside strings replaces each by a
// number of the same length and remembers it; the SAX events come in text order, so the
// n-th number event is the n-th number of that pass.
#include "template/python_json.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

#include "core/json_extent.hpp"
#include "ocml/model.hpp"
#include "template/bigint.hpp"

namespace ocml::tmpl {

namespace {

enum class special : unsigned char { none, nan, inf, neg_inf, big_int };
struct number_token {
  special kind;
  std::string_view text;  // big_int: its digits
};

// The text with NaN / Infinity / -Infinity outside strings replaced by "0" padded to the
// same length, and what each number token of the text was, in order.
std::string mark_specials(std::string_view text, std::vector<number_token>& numbers) {
  std::string out(text);
  const auto starts = [&](std::size_t i, std::string_view w) {
    return text.compare(i, w.size(), w) == 0;
  };
  char before = '[';  // the last character outside white space: where a value may begin
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char prev = before;
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') before = c;
    if (c == '"') {  // skip the string, escapes included
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      continue;
    }
    special kind = special::none;
    std::size_t len = 0;
    if (prev != '[' && prev != ',' && prev != ':') continue;  // not where a value begins
    if (starts(i, "NaN")) {
      kind = special::nan;
      len = 3;
    } else if (starts(i, "Infinity")) {
      kind = special::inf;
      len = 8;
    } else if (starts(i, "-Infinity")) {
      kind = special::neg_inf;
      len = 9;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t end = i + 1;
      while (end < text.size() &&
             std::string_view("0123456789+-.eE").find(text[end]) != std::string_view::npos) {
        ++end;
      }
      // A float beyond the double range is inf to Python, an integer of any length exact
      // (nlohmann refuses both past the double range).
      const std::string_view raw = text.substr(i, end - i);
      const bool is_float = raw.find_first_of(".eE") != std::string::npos;
      if (!is_float && raw.size() > 19) {
        kind = special::big_int;
      } else if (is_float && std::isinf(std::strtod(std::string(raw).c_str(), nullptr))) {
        kind = raw[0] == '-' ? special::neg_inf : special::inf;
      } else {
        numbers.push_back({special::none, raw});
        i = end - 1;
        continue;
      }
      len = end - i;
      numbers.push_back({kind, raw});
      out[i] = '0';
      for (std::size_t k = 1; k < len; ++k) out[i + k] = ' ';
      i += len - 1;
      continue;
    } else {
      continue;
    }
    numbers.push_back({kind, {}});
    out[i] = '0';
    for (std::size_t k = 1; k < len; ++k) out[i + k] = ' ';
    i += len - 1;
  }
  return out;
}

// Builds the value with an explicit stack of open containers.
class builder final : public nlohmann::json_sax<json> {
 public:
  explicit builder(const std::vector<number_token>& numbers) : numbers_(numbers) {}

  bool null() override { return put(value(none_t{})); }
  bool boolean(bool b) override { return put(value(b)); }
  bool number_integer(number_integer_t i) override { return number(value(std::int64_t{i})); }
  bool number_unsigned(number_unsigned_t u) override {
    if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return number(value(static_cast<std::int64_t>(u)));
    }
    return number(int_from_text(std::to_string(u)));
  }
  bool number_float(number_float_t d, const string_t& raw) override {
    // An integer beyond 64 bits comes here, as its text: Python keeps it exact.
    if (raw.find_first_of(".eE") == string_t::npos) return number(int_from_text(raw));
    return number(value(static_cast<double>(d)));
  }
  bool string(string_t& s) override { return put(value(std::move(s))); }
  bool binary(binary_t& /*b*/) override { return false; }
  bool start_object(std::size_t /*n*/) override {
    stack_.push_back({make_rc<dict>(), {}, {}, true});
    return true;
  }
  bool key(string_t& k) override {
    stack_.back().key = value(std::move(k));
    return true;
  }
  bool end_object() override {
    value v(dict_ptr(std::move(stack_.back().d)));
    stack_.pop_back();
    return put(std::move(v));
  }
  bool start_array(std::size_t /*n*/) override {
    stack_.push_back({nullptr, {}, {}, false});
    return true;
  }
  bool end_array() override {
    value v(std::move(stack_.back().l));
    stack_.pop_back();
    return put(std::move(v));
  }
  bool parse_error(std::size_t /*pos*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& /*e*/) override {
    return false;
  }

  std::optional<value> result;

 private:
  struct open {
    rc<dict> d;
    list l;
    value key;
    bool is_dict;
  };

  bool number(value v) {
    const special s = next_ < numbers_.size() ? numbers_[next_].kind : special::none;
    if (s == special::big_int) v = int_from_text(numbers_[next_].text);
    ++next_;
    if (s == special::nan) v = value(std::numeric_limits<double>::quiet_NaN());
    if (s == special::inf) v = value(std::numeric_limits<double>::infinity());
    if (s == special::neg_inf) v = value(-std::numeric_limits<double>::infinity());
    return put(std::move(v));
  }
  bool put(value v) {
    if (stack_.empty()) {
      result = std::move(v);
    } else if (stack_.back().is_dict) {
      stack_.back().d->set(std::move(stack_.back().key), std::move(v));
    } else {
      stack_.back().l.push_back(std::move(v));
    }
    return true;
  }

  const std::vector<number_token>& numbers_;
  std::size_t next_ = 0;
  std::vector<open> stack_;
};

}  // namespace

std::optional<value> python_json_loads(std::string_view text, std::size_t max_depth) {
  if (detail::json_too_deep(text, max_depth) != std::string_view::npos) return std::nullopt;
  std::vector<number_token> numbers;
  const std::string marked = mark_specials(text, numbers);
  builder b(numbers);
  if (!json::sax_parse(marked, &b, json::input_format_t::json, true) || !b.result) {
    return std::nullopt;
  }
  return std::move(b.result);
}

}  // namespace ocml::tmpl
