// SPDX-License-Identifier: Apache-2.0
// Running a parsed template: scopes, output, limits, and the operations expressions need.
#pragma once

#include <cstddef>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ocml/template.hpp"
#include "template/ast.hpp"
#include "template/value.hpp"

namespace ocml::tmpl {

using limits = template_limits;

/// Values by name, before the template that reads them is known: a render's globals
/// (a later set of a name replaces the value). Past kIndexFrom names, set() finds a name
/// through an index (a request's chat_template_kwargs may hold 10^5 keys).
struct named_values {
  std::vector<std::pair<std::string, value>> vars;
  [[nodiscard]] const value* find(std::string_view name) const;
  void set(std::string_view name, value v);

 private:
  static constexpr std::size_t kIndexFrom = 32;
  std::unordered_map<std::string, std::size_t> index_;
};

/// Variables of one scope, in assignment order, by the program's id of their name
/// (name_table): a lookup compares integers. Scopes are small; one of more than kIndexFrom
/// variables (a template setting 10^5 names at its top) is indexed by id, so that setting
/// and finding stay constant-time.
class frame {
 public:
  const frame* parent = nullptr;
  [[nodiscard]] const value* find(std::uint32_t id) const {
    for (const frame* f = this; f != nullptr; f = f->parent) {
      if (const value* v = f->own(id)) return v;
    }
    return nullptr;
  }
  void set(std::uint32_t id, value v) {
    if (index_.empty()) {  // the usual small scope, inline
      for (auto& [k, val] : vars_) {
        if (k == id) {
          val = std::move(v);
          return;
        }
      }
      if (vars_.size() < kIndexFrom) {
        vars_.emplace_back(id, std::move(v));
        return;
      }
    }
    set_indexed(id, std::move(v));
  }
  /// Keeps the first `n` variables (a loop's bound names), drops the rest.
  void truncate(std::size_t n);
  /// Whether this scope itself (not its parents) holds `id`.
  [[nodiscard]] bool holds(std::uint32_t id) const { return own(id) != nullptr; }
  [[nodiscard]] std::size_t size() const { return vars_.size(); }
  void reserve(std::size_t n) { vars_.reserve(n); }

 private:
  static constexpr std::size_t kIndexFrom = 32;
  void set_indexed(std::uint32_t id, value v);
  [[nodiscard]] const value* own(std::uint32_t id) const {
    if (!index_.empty()) {
      return id < index_.size() && index_[id] != 0 ? &vars_[index_[id] - 1].second : nullptr;
    }
    for (const auto& [k, v] : vars_) {
      if (k == id) return &v;
    }
    return nullptr;
  }
  std::vector<std::pair<std::uint32_t, value>> vars_;
  std::vector<std::uint32_t> index_;  // id -> place + 1 (0: not here), once indexed
};

/// Raises E-LIMIT-EXCEEDED when a value of `bytes` is beyond the running template's
/// max_value (a string's bytes, a list's items × 16); nothing when no template runs on this
/// thread. Called before the value is built.
void check_size(std::size_t bytes);
/// check_size of `a` + `b`, or of `a` × `b`, without overflow.
void check_size_sum(std::size_t a, std::size_t b);
void check_size_product(std::size_t a, std::size_t b);

class interpreter {
 public:
  /// Renders `p` into `out`. Of `globals`, the names `p` reads are kept.
  interpreter(const program& p, const named_values& globals, const limits& l, std::string& out);
  ~interpreter();
  interpreter(const interpreter&) = delete;
  interpreter& operator=(const interpreter&) = delete;

  /// Runs the template: its first error (with the position of the statement that raised
  /// it, when the error has none), or null. (Returned, not thrown again: a throw costs
  /// ~13 000 instructions even over two frames.)
  [[nodiscard]] const template_error* run();
  [[nodiscard]] std::size_t statement_pos() const noexcept { return stmt_pos_; }

  // ---- used by the nodes ----
  [[nodiscard]] value lookup(std::uint32_t id) const;
  void assign(std::uint32_t id, value v) { scope_->set(id, std::move(v)); }
  void write(std::string_view s);
  void step();  ///< one loop iteration or call: counted against max_steps
  void exec_body(const body& b);
  /// Runs `b` with output captured; returns it.
  [[nodiscard]] std::string capture(const body& b);

  /// error: a statement raised; everything returns to run(), which throws the first error.
  enum class flow : unsigned char { normal, break_, continue_, error };
  flow control = flow::normal;

  /// Enters a new scope whose parent is `parent` (restored by the guard).
  struct scope_guard {
    interpreter& in;
    frame f;
    frame* saved;
    scope_guard(interpreter& i, const frame* parent) : in(i), saved(i.scope_) {
      f.parent = parent;
      in.scope_ = &f;
    }
    ~scope_guard() { in.scope_ = saved; }
    scope_guard(const scope_guard&) = delete;
    scope_guard& operator=(const scope_guard&) = delete;
  };
  [[nodiscard]] frame* scope() const { return scope_; }
  [[nodiscard]] const frame* root() const { return &root_; }
  std::size_t depth = 0;
  const limits& lim;
  std::tm now{};  ///< what strftime_now formats
  [[nodiscard]] std::string_view source() const { return prog_.source; }
  /// The {% generation %} spans of the top-level output, when asked for.
  std::vector<std::pair<std::size_t, std::size_t>>* generation_spans = nullptr;
  /// The top-level output's size, or npos while output is captured.
  [[nodiscard]] std::size_t top_output_size() const noexcept {
    return out_ == top_out_ ? out_->size() : static_cast<std::size_t>(-1);
  }

 private:
  std::string* top_out_ = nullptr;
  const program& prog_;
  frame globals_;
  frame root_;
  frame* scope_;
  std::string* out_;
  std::size_t steps_ = 0;
  std::size_t stmt_pos_ = static_cast<std::size_t>(-1);  // the statement running
  std::optional<template_error> pending_;                // the error, under flow::error
  void keep_error(template_error&& e);
  const limits* saved_limits_;  // the thread's running template before this one
};

// Operations (Python's and Jinja2's rules), shared by the nodes and the built-ins.
[[nodiscard]] value get_attr(const value& obj, std::string_view name);
[[nodiscard]] value get_item(const value& obj, const value& key);
[[nodiscard]] value call_value(interpreter& in, const value& fn, call_args& args);
/// The items `for` iterates (str: characters, dict: keys); Undefined: none.
[[nodiscard]] list iterate(const value& x);
/// len(x), raising TypeError where Python does.
[[nodiscard]] std::size_t length(const value& x);
/// Raises E-TEMPLATE-UNDEFINED for an undefined value used where Jinja2 raises.
void check_defined(const value& x);
[[nodiscard]] value binary_op(std::string_view op, const value& l, const value& r);
[[nodiscard]] bool contains(const value& container, const value& item);

}  // namespace ocml::tmpl
