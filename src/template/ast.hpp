// SPDX-License-Identifier: Apache-2.0
// The compiled form of a chat template: expressions and statements, each evaluated by the
// interpreter (template/interpreter.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "template/value.hpp"

namespace ocml::tmpl {

class interpreter;

struct expr {
  std::size_t pos = 0;
  virtual ~expr() = default;
  [[nodiscard]] virtual value eval(interpreter& in) const = 0;
  /// The value without a copy where it is stored (a variable, a dict's entry, a list's
  /// item, a constant), else computed into `tmp` (which may also hold what keeps the
  /// stored value alive). Valid while `tmp` lives and nothing else is evaluated or run:
  /// a caller evaluates nothing that is not pure() while it holds one.
  [[nodiscard]] virtual const value& ref(interpreter& in, value& tmp) const {
    tmp = eval(in);
    return tmp;
  }
  /// Evaluating it runs no call and changes nothing (a constant, a name, and attributes
  /// and items of those), so it cannot move what another reference points into.
  [[nodiscard]] virtual bool pure() const { return false; }
  /// Python's bool() of the value, as `if`, `and`, `or`, `not` and `x if c` ask it: a
  /// comparison, a test or a logical operator answers without making the value.
  [[nodiscard]] virtual bool test(interpreter& in) const;
};
using expr_ptr = std::unique_ptr<expr>;

struct literal final : expr {
  value owner;  ///< the constant
  value v;      ///< value::borrow(owner): what eval returns, read from any thread uncounted
  value eval(interpreter& in) const override;
  const value& ref(interpreter& /*in*/, value& /*tmp*/) const override { return v; }
  [[nodiscard]] bool pure() const override { return true; }
};
struct name_ref final : expr {
  std::string name;
  std::uint32_t id = 0;  ///< the program's id of `name` (program::names)
  value missing_owner;   ///< Undefined, naming `name`
  value missing;         ///< value::borrow(missing_owner): what an unknown name evaluates to
  value eval(interpreter& in) const override;
  const value& ref(interpreter& in, value& tmp) const override;
  [[nodiscard]] bool pure() const override { return true; }
};
struct list_expr final : expr {
  std::vector<expr_ptr> items;
  bool is_tuple = false;
  value eval(interpreter& in) const override;
};
struct dict_expr final : expr {
  std::vector<std::pair<expr_ptr, expr_ptr>> items;
  value eval(interpreter& in) const override;
};
struct attr_expr final : expr {
  expr_ptr obj;
  std::string name;
  bool dict_method = false;  ///< `name` is a dict's method, which comes before its key
  value missing_owner;       ///< Undefined: a dict's missing attribute `name`
  value missing;             ///< value::borrow(missing_owner): no allocation per miss
  value eval(interpreter& in) const override;
  const value& ref(interpreter& in, value& tmp) const override;
  [[nodiscard]] bool pure() const override { return obj->pure(); }
};
struct item_expr final : expr {
  expr_ptr obj;
  expr_ptr index;
  value eval(interpreter& in) const override;
  const value& ref(interpreter& in, value& tmp) const override;
  [[nodiscard]] bool pure() const override { return obj->pure() && index->pure(); }
};
struct slice_expr final : expr {
  expr_ptr obj;
  expr_ptr start, stop, step;  // each may be null
  value eval(interpreter& in) const override;
};
struct arg_list {
  std::vector<expr_ptr> positional;
  std::vector<std::pair<std::string, expr_ptr>> keyword;
  expr_ptr star;       ///< `*args`: more positional arguments (any iterable)
  expr_ptr star_star;  ///< `**kwargs`: more keyword arguments (a dict)
  /// No argument, or only pure() ones.
  [[nodiscard]] bool pure() const;
};
struct call_expr final : expr {
  expr_ptr fn;
  arg_list args;
  value eval(interpreter& in) const override;
};
struct filter_fn;
struct filter_expr final : expr {
  expr_ptr arg;  // null in a filter block: the block's output
  std::string name;
  const filter_fn* fn = nullptr;
  arg_list args;
  value eval(interpreter& in) const override;
  [[nodiscard]] value apply(interpreter& in, const value& input) const;
};
struct test_fn;
struct test_expr final : expr {
  expr_ptr arg;
  std::string name;
  const test_fn* fn = nullptr;
  arg_list args;
  bool negated = false;
  value eval(interpreter& in) const override;
  bool test(interpreter& in) const override;
};
struct binary_expr final : expr {
  std::string op;  // + - * / // % ** ~
  expr_ptr l, r;
  value eval(interpreter& in) const override;
};
struct compare_expr final : expr {
  expr_ptr first;
  std::vector<std::pair<std::string, expr_ptr>> rest;  // == != < > <= >= in notin
  bool single_pure = false;  ///< `a OP b` with a pure b: neither side is copied
  value eval(interpreter& in) const override;
  bool test(interpreter& in) const override;
};
struct logic_expr final : expr {
  bool is_and = false;
  expr_ptr l, r;
  value eval(interpreter& in) const override;
  bool test(interpreter& in) const override;
};
struct not_expr final : expr {
  expr_ptr e;
  value eval(interpreter& in) const override;
  bool test(interpreter& in) const override;
};
struct unary_expr final : expr {
  bool negative = false;
  expr_ptr e;
  value eval(interpreter& in) const override;
};
struct cond_expr final : expr {
  expr_ptr cond, then, otherwise;  // otherwise may be null
  value eval(interpreter& in) const override;
};

// ---- statements ---------------------------------------------------------------------------

struct node {
  std::size_t pos = 0;
  virtual ~node() = default;
  virtual void exec(interpreter& in) const = 0;
};
using node_ptr = std::unique_ptr<node>;
using body = std::vector<node_ptr>;

struct text_node final : node {
  std::string text;
  void exec(interpreter& in) const override;
};
struct output_node final : node {
  expr_ptr e;
  static constexpr std::size_t kMaxPieces = 16;
  /// `e` as the pieces of a sum `a + b + ...` (2 to kMaxPieces of them, left to right), or
  /// empty: strings written one after another rather than summed first (write_sum).
  std::vector<const expr*> sum;
  bool sum_pure = false;  ///< every piece is pure: each is read in place, not copied
  void exec(interpreter& in) const override;
  /// Sets `sum` from `e` (the parser calls it once `e` is parsed).
  void find_sum();

 private:
  void write_sum(interpreter& in) const;
};
struct if_node final : node {
  std::vector<std::pair<expr_ptr, body>> branches;
  body otherwise;
  void exec(interpreter& in) const override;
};
/// An assignment target: a name, `ns.attr`, or a tuple of names.
struct target {
  std::vector<std::string> names;  // several: tuple unpacking
  std::vector<std::uint32_t> ids;  // the program's id of each name
  std::string attr;                // set: names[0] is the namespace
};
struct for_node final : node {
  target vars;
  expr_ptr iter;
  expr_ptr filter;  // may be null
  body loop_body, otherwise;
  bool recursive = false;
  void exec(interpreter& in) const override;
};
struct set_node final : node {
  target to;
  expr_ptr e;
  void exec(interpreter& in) const override;
};
struct set_block_node final : node {
  target to;
  std::vector<std::unique_ptr<filter_expr>> filters;
  body content;
  void exec(interpreter& in) const override;
};
struct macro_node final : node {
  std::string name;
  std::uint32_t id = 0;                                  ///< of `name`
  std::vector<std::pair<std::string, expr_ptr>> params;  // default may be null
  std::vector<std::uint32_t> param_ids;
  body content;
  bool uses_caller = false, uses_varargs = false, uses_kwargs = false;
  void exec(interpreter& in) const override;
};
struct call_block_node final : node {
  std::unique_ptr<call_expr> call;
  std::shared_ptr<macro_node> caller;  // the block as a macro named "caller"
  void exec(interpreter& in) const override;
};
struct filter_block_node final : node {
  std::vector<std::unique_ptr<filter_expr>> filters;
  body content;
  void exec(interpreter& in) const override;
};
struct loop_control_node final : node {
  bool is_break = false;
  void exec(interpreter& in) const override;
};
struct scope_node final : node {  // {% generation %}, {% with %}: the body in a scope
  std::vector<std::pair<std::string, expr_ptr>> assigns;
  std::vector<std::uint32_t> assign_ids;
  bool new_scope = false;
  bool generation = false;  // {% generation %}: its output's span is recorded
  body content;
  void exec(interpreter& in) const override;
};

/// The ids of the names the engine binds itself, the same in every program.
inline constexpr std::uint32_t kLoopId = 0;
inline constexpr std::uint32_t kVarargsId = 1;
inline constexpr std::uint32_t kKwargsId = 2;
inline constexpr std::uint32_t kCallerId = 3;

/// A template's names, each given a small id when the template is parsed: scopes store
/// and compare ids, not text. A name the template never writes cannot be read by it, so a
/// render's globals of other names are left out.
class name_table {
 public:
  name_table();
  /// The id of `name`, given one if it has none.
  std::uint32_t id(std::string_view name);
  /// The id of `name`, or null when the template never names it.
  [[nodiscard]] const std::uint32_t* find(std::string_view name) const;

 private:
  struct hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  std::unordered_map<std::string, std::uint32_t, hash, std::equal_to<>> ids_;
};

/// A parsed template.
struct program {
  std::string source;
  body content;
  name_table names;
  /// Where each line of `source` starts, for the line:column of a run-time error (every
  /// failing line of a batch asks).
  std::vector<std::size_t> line_starts;
  /// "LINE:COLUMN" of `pos` in `source`, as position(source, pos) gives it.
  [[nodiscard]] std::string position(std::size_t pos) const;
};

/// Parses `source`; throws template_error (E-TEMPLATE-SYNTAX).
[[nodiscard]] std::unique_ptr<program> parse_template(std::string_view source);

}  // namespace ocml::tmpl
