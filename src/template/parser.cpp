// SPDX-License-Identifier: Apache-2.0
// The template parser: Jinja2's grammar (jinja2/parser.py's precedence and statements).
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <initializer_list>

#include "template/ast.hpp"
#include "template/bigint.hpp"
#include "template/builtins.hpp"
#include "template/lexer.hpp"

namespace ocml::tmpl {

namespace {

class parser {
 public:
  explicit parser(lexed&& l) : src_(std::move(l.source)), t_(std::move(l.tokens)) {}

  std::unique_ptr<program> run() {
    auto p = std::make_unique<program>();
    p->content = subparse({});
    p->names = std::move(names_);
    if (cur().kind != tok::eof) error(cur().pos, "unexpected tag");
    p->source = std::move(src_);
    p->line_starts.push_back(0);
    for (std::size_t i = p->source.find('\n'); i != std::string::npos;
         i = p->source.find('\n', i + 1)) {
      p->line_starts.push_back(i + 1);
    }
    return p;
  }

 private:
  [[noreturn]] void error(std::size_t pos, const std::string& what) const {
    throw template_error{error_code::template_syntax, position(src_, pos) + " " + what, pos};
  }
  const token& cur() const { return t_[i_]; }
  const token& peek(std::size_t k = 1) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  bool is_op(std::string_view op) const { return cur().kind == tok::op && cur().text == op; }
  bool is_name(std::string_view n) const { return cur().kind == tok::name && cur().text == n; }
  bool skip_op(std::string_view op) {
    if (!is_op(op)) return false;
    ++i_;
    return true;
  }
  bool skip_name(std::string_view n) {
    if (!is_name(n)) return false;
    ++i_;
    return true;
  }
  void expect_op(std::string_view op) {
    if (!skip_op(op)) error(cur().pos, "expected '" + std::string(op) + "'" + got());
  }
  std::string expect_name() {
    if (cur().kind != tok::name) error(cur().pos, "expected a name" + got());
    return t_[i_++].text;
  }
  void expect_block_end() {
    if (cur().kind != tok::block_end) error(cur().pos, "expected end of statement block" + got());
    ++i_;
  }
  std::string got() const {
    switch (cur().kind) {
      case tok::eof:
        return ", got end of template";
      case tok::block_end:
        return ", got '%}'";
      case tok::var_end:
        return ", got '}}'";
      default:
        return ", got '" + cur().text + "'";
    }
  }

  // ---- statements -------------------------------------------------------------------------

  // Nodes up to a block tag named in `ends` (left unconsumed: i_ at its name).
  body subparse(std::initializer_list<std::string_view> ends) {
    body out;
    for (;;) {
      const token& t = cur();
      if (t.kind == tok::eof) {
        if (ends.size() != 0) {
          error(t.pos, "unexpected end of template, expected '" + std::string(*ends.begin()) + "'");
        }
        return out;
      }
      if (t.kind == tok::data) {
        auto n = std::make_unique<text_node>();
        n->pos = t.pos;
        n->text = t.text;
        out.push_back(std::move(n));
        ++i_;
        continue;
      }
      if (t.kind == tok::var_begin) {
        ++i_;
        auto n = std::make_unique<output_node>();
        n->pos = t.pos;
        n->e = tuple_or_expr();
        n->find_sum();
        if (cur().kind != tok::var_end) error(cur().pos, "expected end of print statement" + got());
        ++i_;
        out.push_back(std::move(n));
        continue;
      }
      if (t.kind != tok::block_begin) error(t.pos, "unexpected token");
      ++i_;
      if (cur().kind != tok::name) error(cur().pos, "expected a tag name" + got());
      for (const auto e : ends) {
        if (cur().text == e) return out;
      }
      out.push_back(statement());
    }
  }

  node_ptr statement() {
    const std::size_t at = cur().pos;
    const nest guard(*this, at);
    const std::string name = cur().text;
    ++i_;
    node_ptr n;
    if (name == "if") {
      n = parse_if();
    } else if (name == "for") {
      n = parse_for();
    } else if (name == "set") {
      n = parse_set();
    } else if (name == "macro") {
      n = parse_macro();
    } else if (name == "call") {
      n = parse_call_block();
    } else if (name == "filter") {
      n = parse_filter_block();
    } else if (name == "break" || name == "continue") {
      if (loops_ == 0) error(at, "'" + name + "' outside of a loop");
      auto b = std::make_unique<loop_control_node>();
      b->is_break = name == "break";
      expect_block_end();
      n = std::move(b);
    } else if (name == "generation" || name == "with") {
      n = parse_scope(name);
    } else if (name == "include" || name == "import" || name == "from" || name == "extends" ||
               name == "block") {
      error(at, "'" + name + "' is not supported: a chat template is one file");
    } else {
      error(at, "Encountered unknown tag '" + name + "'.");
    }
    n->pos = at;
    return n;
  }

  void end_tag(std::string_view name) {
    if (!skip_name(name)) error(cur().pos, "expected '" + std::string(name) + "'");
    expect_block_end();
  }

  node_ptr parse_if() {
    auto n = std::make_unique<if_node>();
    expr_ptr cond = tuple_or_expr();
    expect_block_end();
    for (;;) {
      ++conditional_;
      body b = subparse({"elif", "else", "endif"});
      --conditional_;
      n->branches.emplace_back(std::move(cond), std::move(b));
      if (skip_name("elif")) {
        cond = tuple_or_expr();
        expect_block_end();
        continue;
      }
      if (skip_name("else")) {
        expect_block_end();
        ++conditional_;
        n->otherwise = subparse({"endif"});
        --conditional_;
      }
      end_tag("endif");
      return n;
    }
  }

  target assign_target(bool allow_attr) {
    target t;
    const bool paren = skip_op("(");
    t.names.push_back(expect_name());
    t.ids.push_back(names_.id(t.names.back()));
    if (allow_attr && skip_op(".")) {
      t.attr = expect_name();
      return t;
    }
    while (skip_op(",")) {
      if (cur().kind != tok::name) break;
      t.names.push_back(expect_name());
      t.ids.push_back(names_.id(t.names.back()));
    }
    if (paren) expect_op(")");
    return t;
  }

  node_ptr parse_for() {
    auto n = std::make_unique<for_node>();
    n->vars = assign_target(false);
    if (!skip_name("in")) error(cur().pos, "expected 'in'" + got());
    n->iter = tuple_or_expr(false);
    if (skip_name("if")) n->filter = expression();
    if (skip_name("recursive")) n->recursive = true;
    expect_block_end();
    frame_reset fr(*this);
    ++loops_;
    n->loop_body = subparse({"endfor", "else"});
    --loops_;
    if (skip_name("else")) {
      expect_block_end();
      n->otherwise = subparse({"endfor"});
    }
    end_tag("endfor");
    return n;
  }

  std::vector<std::unique_ptr<filter_expr>> filter_chain() {
    std::vector<std::unique_ptr<filter_expr>> out;
    do {
      out.push_back(filter_call(nullptr));
    } while (skip_op("|"));
    return out;
  }

  node_ptr parse_set() {
    target to = assign_target(true);
    if (skip_op("=")) {
      auto n = std::make_unique<set_node>();
      n->to = std::move(to);
      n->e = tuple_or_expr();
      expect_block_end();
      return n;
    }
    auto n = std::make_unique<set_block_node>();
    n->to = std::move(to);
    if (skip_op("|")) n->filters = filter_chain();
    expect_block_end();
    {
      frame_reset fr(*this);
      n->content = subparse({"endset"});
    }
    end_tag("endset");
    return n;
  }

  void macro_params(macro_node& m) {
    expect_op("(");
    while (!skip_op(")")) {
      if (!m.params.empty()) expect_op(",");
      if (skip_op(")")) break;
      std::string name = expect_name();
      expr_ptr def;
      if (skip_op("=")) def = expression();
      m.param_ids.push_back(names_.id(name));
      m.params.emplace_back(std::move(name), std::move(def));
    }
  }

  // Which of caller/varargs/kwargs a macro body names (Jinja2 finds them the same way).
  void scan_special_names(macro_node& m, std::size_t from, std::size_t to) const {
    for (std::size_t k = from; k < to; ++k) {
      if (t_[k].kind != tok::name) continue;
      if (t_[k].text == "caller") m.uses_caller = true;
      if (t_[k].text == "varargs") m.uses_varargs = true;
      if (t_[k].text == "kwargs") m.uses_kwargs = true;
    }
  }

  node_ptr parse_macro() {
    auto n = std::make_unique<macro_node>();
    n->name = expect_name();
    n->id = names_.id(n->name);
    macro_params(*n);
    expect_block_end();
    const std::size_t from = i_;
    const std::size_t saved = loops_;
    loops_ = 0;
    frame_reset fr(*this);
    n->content = subparse({"endmacro"});
    loops_ = saved;
    scan_special_names(*n, from, i_);
    end_tag("endmacro");
    return n;
  }

  node_ptr parse_call_block() {
    auto n = std::make_unique<call_block_node>();
    n->caller = std::make_shared<macro_node>();
    n->caller->name = "caller";
    n->caller->id = kCallerId;
    if (is_op("(")) macro_params(*n->caller);
    expr_ptr e = expression();
    auto* c = dynamic_cast<call_expr*>(e.get());
    if (c == nullptr) error(cur().pos, "expected call");
    (void)e.release();
    n->call.reset(c);
    expect_block_end();
    const std::size_t from = i_;
    n->caller->content = subparse({"endcall"});
    scan_special_names(*n->caller, from, i_);
    end_tag("endcall");
    return n;
  }

  node_ptr parse_filter_block() {
    auto n = std::make_unique<filter_block_node>();
    n->filters = filter_chain();
    expect_block_end();
    n->content = subparse({"endfilter"});
    end_tag("endfilter");
    return n;
  }

  node_ptr parse_scope(const std::string& name) {
    auto n = std::make_unique<scope_node>();
    n->new_scope = name == "with";
    n->generation = name == "generation";
    while (n->new_scope && cur().kind == tok::name) {
      std::string v = expect_name();
      expect_op("=");
      n->assign_ids.push_back(names_.id(v));
      n->assigns.emplace_back(std::move(v), expression());
      if (!skip_op(",")) break;
    }
    expect_block_end();
    n->content = n->new_scope ? subparse({"endwith"}) : subparse({"endgeneration"});
    end_tag(name == "with" ? "endwith" : "endgeneration");
    return n;
  }

  // ---- expressions ------------------------------------------------------------------------

  template <typename T>
  std::unique_ptr<T> make(std::size_t pos) {
    auto n = std::make_unique<T>();
    n->pos = pos;
    return n;
  }

  // `a, b` (a tuple, as a list) or one expression.
  expr_ptr tuple_or_expr(bool with_cond = true) {
    const std::size_t at = cur().pos;
    expr_ptr first = with_cond ? expression() : or_expr();
    if (!is_op(",")) return first;
    auto l = make<list_expr>(at);
    l->is_tuple = true;
    l->items.push_back(std::move(first));
    while (skip_op(",")) {
      if (cur().kind == tok::block_end || cur().kind == tok::var_end || is_op(")")) break;
      l->items.push_back(with_cond ? expression() : or_expr());
    }
    return l;
  }

  expr_ptr expression() {
    const std::size_t at = cur().pos;
    expr_ptr e = or_expr();
    chain ch(*this);
    while (skip_name("if")) {
      ch.link(at);
      auto c = make<cond_expr>(at);
      c->then = std::move(e);
      c->cond = or_expr();
      if (skip_name("else")) {
        ++conditional_;
        c->otherwise = expression();
        --conditional_;
      }
      e = std::move(c);
    }
    return e;
  }

  expr_ptr or_expr() {
    expr_ptr l = and_expr();
    chain ch(*this);
    while (is_name("or")) {
      ch.link(cur().pos);
      auto n = make<logic_expr>(cur().pos);
      ++i_;
      n->l = std::move(l);
      n->r = and_expr();
      l = std::move(n);
    }
    return l;
  }

  expr_ptr and_expr() {
    expr_ptr l = not_expr_();
    chain ch(*this);
    while (is_name("and")) {
      ch.link(cur().pos);
      auto n = make<logic_expr>(cur().pos);
      ++i_;
      n->is_and = true;
      n->l = std::move(l);
      n->r = not_expr_();
      l = std::move(n);
    }
    return l;
  }

  expr_ptr not_expr_() {
    if (is_name("not")) {
      const nest guard(*this, cur().pos);
      auto n = make<not_expr>(cur().pos);
      ++i_;
      n->e = not_expr_();
      return n;
    }
    return compare();
  }

  expr_ptr compare() {
    const std::size_t at = cur().pos;
    expr_ptr first = math1();
    std::unique_ptr<compare_expr> c;
    for (;;) {
      std::string op;
      if (cur().kind == tok::op &&
          (cur().text == "==" || cur().text == "!=" || cur().text == "<" || cur().text == ">" ||
           cur().text == "<=" || cur().text == ">=")) {
        op = cur().text;
        ++i_;
      } else if (is_name("in")) {
        op = "in";
        ++i_;
      } else if (is_name("not") && peek().kind == tok::name && peek().text == "in") {
        op = "notin";
        i_ += 2;
      } else {
        break;
      }
      if (!c) {
        c = make<compare_expr>(at);
        c->first = std::move(first);
      }
      c->rest.emplace_back(std::move(op), math1());
    }
    if (c) {
      c->single_pure = c->rest.size() == 1 && c->rest[0].second->pure();
      return c;
    }
    return first;
  }

  expr_ptr binary(expr_ptr (parser::*next)(), std::initializer_list<std::string_view> ops) {
    expr_ptr l = (this->*next)();
    chain ch(*this);
    for (;;) {
      if (cur().kind != tok::op) return l;
      ch.link(cur().pos);
      const auto it = std::find(ops.begin(), ops.end(), cur().text);
      if (it == ops.end()) return l;
      auto n = make<binary_expr>(cur().pos);
      n->op = cur().text;
      ++i_;
      n->l = std::move(l);
      n->r = (this->*next)();
      l = std::move(n);
    }
  }
  expr_ptr math1() { return binary(&parser::concat, {"+", "-"}); }
  expr_ptr concat() { return binary(&parser::math2, {"~"}); }
  expr_ptr math2() { return binary(&parser::power, {"*", "/", "//", "%"}); }
  expr_ptr power() { return binary(&parser::unary_with_filter, {"**"}); }
  expr_ptr unary_with_filter() { return unary(true); }

  expr_ptr unary(bool with_filter) {
    const nest guard(*this, cur().pos);
    expr_ptr e;
    if (is_op("-") || is_op("+")) {
      auto n = make<unary_expr>(cur().pos);
      n->negative = cur().text == "-";
      ++i_;
      n->e = unary(false);
      e = std::move(n);
    } else {
      e = primary();
    }
    e = postfix(std::move(e));
    if (with_filter) e = filter_tail(std::move(e));
    return e;
  }

  expr_ptr primary() {
    const token& t = cur();
    if (t.kind == tok::name) {
      ++i_;
      if (t.text == "true" || t.text == "True") return lit(t.pos, value(true));
      if (t.text == "false" || t.text == "False") return lit(t.pos, value(false));
      if (t.text == "none" || t.text == "None") return lit(t.pos, value(none_t{}));
      auto n = make<name_ref>(t.pos);
      n->name = t.text;
      n->id = names_.id(n->name);
      n->missing_owner = value::undefined(n->name);
      n->missing = value::borrow(n->missing_owner);
      return n;
    }
    if (t.kind == tok::string) {
      std::string s = t.text;
      ++i_;
      while (cur().kind == tok::string) s += t_[i_++].text;  // adjacent literals join
      return lit(t.pos, value(std::move(s)));
    }
    if (t.kind == tok::integer) {
      ++i_;
      std::int64_t v = 0;
      const auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
      if (r.ec != std::errc()) return lit(t.pos, int_from_text(t.text));  // Python's exact int
      return lit(t.pos, value(v));
    }
    if (t.kind == tok::number) {
      ++i_;
      return lit(t.pos, value(std::strtod(t.text.c_str(), nullptr)));  // overflow: inf
    }
    if (skip_op("(")) {
      if (skip_op(")")) {  // the empty tuple
        auto l = make<list_expr>(t.pos);
        l->is_tuple = true;
        return l;
      }
      expr_ptr e = tuple_or_expr();
      expect_op(")");
      return e;
    }
    if (is_op("[")) {
      auto l = make<list_expr>(t.pos);
      ++i_;
      while (!skip_op("]")) {
        if (!l->items.empty()) expect_op(",");
        if (skip_op("]")) break;
        l->items.push_back(expression());
      }
      return l;
    }
    if (is_op("{")) {
      auto d = make<dict_expr>(t.pos);
      ++i_;
      while (!skip_op("}")) {
        if (!d->items.empty()) expect_op(",");
        if (skip_op("}")) break;
        expr_ptr k = expression();
        expect_op(":");
        d->items.emplace_back(std::move(k), expression());
      }
      return d;
    }
    error(t.pos, "unexpected" + got().substr(5));
  }

  expr_ptr lit(std::size_t pos, value v) {
    auto n = make<literal>(pos);
    n->owner = std::move(v);
    n->v = value::borrow(n->owner);
    return n;
  }

  arg_list call_args() {
    arg_list a;
    expect_op("(");
    // Jinja2's order: positional, `*args`, keyword, `**kwargs` (keywords may also follow
    // `*args`); anything else is its "invalid syntax for function call expression".
    const auto invalid = [this](bool bad) {
      if (bad) error(cur().pos, "invalid syntax for function call expression");
    };
    while (!skip_op(")")) {
      if (!a.positional.empty() || !a.keyword.empty() || a.star || a.star_star) expect_op(",");
      if (skip_op(")")) break;
      if (cur().kind == tok::op && (cur().text == "*" || cur().text == "**")) {
        const bool two = cur().text == "**";
        invalid(two ? a.star_star != nullptr : (a.star || a.star_star));
        ++i_;
        (two ? a.star_star : a.star) = expression();
      } else if (cur().kind == tok::name && peek().kind == tok::op && peek().text == "=") {
        invalid(a.star_star != nullptr);
        std::string k = cur().text;
        i_ += 2;
        a.keyword.emplace_back(std::move(k), expression());
      } else {
        invalid(a.star || a.star_star || !a.keyword.empty());
        a.positional.push_back(expression());
      }
    }
    return a;
  }

  expr_ptr postfix(expr_ptr e) {
    chain ch(*this);
    for (;;) {
      const std::size_t at = cur().pos;
      ch.link(at);
      if (skip_op(".")) {
        auto n = make<attr_expr>(at);
        n->obj = std::move(e);
        if (cur().kind == tok::integer) {  // x.0 is x[0]
          auto item = make<item_expr>(at);
          item->obj = std::move(n->obj);
          item->index = lit(
              at,
              value(static_cast<std::int64_t>(std::strtoll(t_[i_++].text.c_str(), nullptr, 10))));
          e = std::move(item);
          continue;
        }
        n->name = expect_name();
        n->dict_method = builtin::dict_has_method(n->name);
        n->missing_owner = value::undefined_attr("dict", n->name);
        n->missing = value::borrow(n->missing_owner);
        e = std::move(n);
      } else if (is_op("[")) {
        ++i_;
        e = subscript(std::move(e), at);
      } else if (is_op("(")) {
        auto n = make<call_expr>(at);
        n->fn = std::move(e);
        n->args = call_args();
        e = std::move(n);
      } else {
        return e;
      }
    }
  }

  expr_ptr subscript(expr_ptr obj, std::size_t at) {
    expr_ptr parts[3];
    std::size_t colons = 0;
    for (;;) {
      if (is_op("]")) break;
      if (skip_op(":")) {
        if (++colons > 2) error(cur().pos, "invalid slice");
        continue;
      }
      if (parts[colons]) error(cur().pos, "expected ']'" + got());
      parts[colons] = expression();
    }
    expect_op("]");
    if (colons == 0) {
      if (!parts[0]) error(at, "expected a subscript");
      auto n = make<item_expr>(at);
      n->obj = std::move(obj);
      n->index = std::move(parts[0]);
      return n;
    }
    auto n = make<slice_expr>(at);
    n->obj = std::move(obj);
    n->start = std::move(parts[0]);
    n->stop = std::move(parts[1]);
    n->step = std::move(parts[2]);
    return n;
  }

  std::unique_ptr<filter_expr> filter_call(expr_ptr arg) {
    auto f = make<filter_expr>(cur().pos);
    f->arg = std::move(arg);
    f->name = expect_name();
    while (skip_op(".")) f->name += "." + expect_name();
    f->fn = find_filter(f->name);
    check_known(f->fn != nullptr, f->pos, "No filter named '" + f->name + "'.");
    if (is_op("(")) f->args = call_args();
    return f;
  }

  expr_ptr filter_tail(expr_ptr e) {
    chain ch(*this);
    for (;;) {
      ch.link(cur().pos);
      if (skip_op("|")) {
        e = filter_call(std::move(e));
      } else if (is_name("is")) {
        auto n = make<test_expr>(cur().pos);
        ++i_;
        n->negated = skip_name("not");
        n->name = expect_name();
        while (skip_op(".")) n->name += "." + expect_name();
        n->fn = find_test(n->name);
        check_known(n->fn != nullptr, n->pos, "No test named '" + n->name + "'.");
        n->arg = std::move(e);
        const token& c = cur();
        if (is_op("(")) {
          n->args = call_args();
        } else if ((c.kind == tok::name || c.kind == tok::string || c.kind == tok::integer ||
                    c.kind == tok::number || is_op("[") || is_op("{")) &&
                   !(c.kind == tok::name &&
                     (c.text == "else" || c.text == "or" || c.text == "and" || c.text == "if"))) {
          n->args.positional.push_back(postfix(primary()));
        }
        e = std::move(n);
      } else if (is_op("(")) {
        auto n = make<call_expr>(cur().pos);
        n->fn = std::move(e);
        n->args = call_args();
        e = std::move(n);
      } else {
        return e;
      }
    }
  }

  std::string src_;
  std::vector<token> t_;
  std::size_t i_ = 0;
  std::size_t loops_ = 0;
  name_table names_;
  // Nesting of expressions and statements: parsing, evaluating and freeing a template
  // recurse on it, so it is bounded (Jinja2 stops at Python's recursion limit).
  static constexpr std::size_t kMaxNesting = 200;
  std::size_t nesting_ = 0;
  struct nest {
    parser& p;
    nest(parser& q, std::size_t pos) : p(q) {
      if (++p.nesting_ > kMaxNesting) {
        p.error(pos, "nested deeper than " + std::to_string(kMaxNesting) + " levels");
      }
    }
    ~nest() { --p.nesting_; }
    nest(const nest&) = delete;
    nest& operator=(const nest&) = delete;
  };
  // A chain (a + b + c, x.y.z, v|f|g) nests its tree one level a link: counted the same way.
  struct chain {
    parser& p;
    std::size_t links = 0;
    explicit chain(parser& q) : p(q) {}
    void link(std::size_t pos) {
      ++links;
      if (++p.nesting_ > kMaxNesting) {
        p.error(pos, "nested deeper than " + std::to_string(kMaxNesting) + " levels");
      }
    }
    ~chain() { p.nesting_ -= links; }
    chain(const chain&) = delete;
    chain& operator=(const chain&) = delete;
  };
  // Inside an if's body or a conditional expression's branches (and not in a loop or macro
  // within them): there Jinja2 fails on an unknown filter or test only when it runs.
  std::size_t conditional_ = 0;

  struct frame_reset {  // a for, macro or set block: a new frame for Jinja2
    parser& p;
    std::size_t saved;
    explicit frame_reset(parser& q) : p(q), saved(q.conditional_) { q.conditional_ = 0; }
    ~frame_reset() { p.conditional_ = saved; }
    frame_reset(const frame_reset&) = delete;
    frame_reset& operator=(const frame_reset&) = delete;
  };
  void check_known(bool known, std::size_t pos, const std::string& what) const {
    if (!known && conditional_ == 0) error(pos, what);
  }
};

}  // namespace

std::string program::position(std::size_t pos) const {
  pos = std::min(pos, source.size());
  // The last line start at or before pos (the first is 0).
  const auto it = std::upper_bound(line_starts.begin(), line_starts.end(), pos) - 1;
  const std::size_t line = static_cast<std::size_t>(it - line_starts.begin()) + 1;
  return std::to_string(line) + ":" + std::to_string(pos - *it + 1);
}

name_table::name_table() {
  // The engine's own names first, at their fixed ids.
  for (const std::string_view n : {"loop", "varargs", "kwargs", "caller"}) id(n);
}

std::uint32_t name_table::id(std::string_view name) {
  if (const auto it = ids_.find(name); it != ids_.end()) return it->second;
  const auto next = static_cast<std::uint32_t>(ids_.size());
  ids_.emplace(std::string(name), next);
  return next;
}

const std::uint32_t* name_table::find(std::string_view name) const {
  const auto it = ids_.find(name);
  return it == ids_.end() ? nullptr : &it->second;
}

std::unique_ptr<program> parse_template(std::string_view source) {
  return parser(lex(source)).run();
}

}  // namespace ocml::tmpl
