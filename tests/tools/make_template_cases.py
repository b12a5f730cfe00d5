#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes tests/template/cases.jsonl: small templates with their variables and what Python
Jinja2, set up as transformers sets it up (render_template.py), makes of them: the text, or
the error code. The C++ suite replays them without Python.

usage: make_template_cases.py OUT.jsonl
"""
import json
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from render_template import make_environment, error_of, render_line  # noqa: E402

CASES = [
    # whitespace control, trim_blocks, lstrip_blocks, comments, raw
    ("{% if true %}\n  yes\n{% endif %}\n", {}),
    ("  {% if true %}x{% endif %}  \n{{ 'a' }}\n", {}),
    ("a {%- if true -%} b {%- endif -%} c", {}),
    ("a\n    {# comment #}\nb\n{#- c -#}\n  d", {}),
    ("{% raw %}{{ not evaluated }}{% endraw %}", {}),
    ("{{- ' x ' -}}  \n  {{ 'y' }}\n\n", {}),
    ("line\r\nnext\rlast\n", {}),
    ("  {%+ if true %}kept{% endif %}", {}),
    # expressions
    ("{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 / 2 }} {{ -7 % 3 }} {{ 2 ** 10 }} {{ 1.0 }} {{ 1e20 }} {{ 0.1 + 0.2 }}", {}),
    ("{{ 'a' ~ 1 ~ none ~ true }} {{ [1, 'x', none, true, 2.5] }} {{ {'k': [1, {'n': none}]} }}", {}),
    ("{{ \"it's\" }} {{ [\"it's\", 'say \"hi\"', 'tab\\t', '\\u200d'] }}", {}),
    ("{{ x[1:] }} {{ x[::-1] }} {{ x[-1] }} {{ s[2:4] }} {{ s[-2:] }} {{ s|length }}", {"x": [1, 2, 3], "s": "日本語テキスト"}),
    ("{{ 1 if x else 2 }} {{ 'y' if not x }} {{ x or 'd' }} {{ x and 'd' }}", {"x": 0}),
    ("{{ 1 < 2 < 3 }} {{ 'a' in 'cat' }} {{ 3 not in [1, 2] }} {{ 'k' in {'k': 1} }}", {}),
    ("{{ '%s-%d' % ('a', 3) }} {{ '{} and {}'.format('x', 2) }}", {}),
    ("{{ d['items'] }}{{ d.get('missing', 'dflt') }}{{ d.get('items') }}", {"d": {"items": 3}}),
    ("{{ none.x }}|{{ [1][5] }}|{{ {'a': 1}.b }}|{{ y }}", {}),
    # *args and **kwargs in calls (Jamba's template uses them)
    ("{% macro f(a, b, c=3) %}{{a}}{{b}}{{c}}{% endmacro %}{{ f(*[1, 2]) }}|{{ f(1, *[2], c=9) }}|{{ f(**{'a': 7, 'b': 8}) }}|{{ f(*xs, **kw) }}", {"xs": [4, 5], "kw": {"c": 6}}),
    ("{{ '{}-{}'.format(*['x', 'y']) }} {{ range(*[1, 4])|list }} {{ dict(**{'a': 1})|tojson }}", {}),
    ("{% macro f(a) %}{{a}}{% endmacro %}{{ f(*3) }}", {}),
    ("{% macro f(a) %}{{a}}{% endmacro %}{{ f(**3) }}", {}),
    ("{{ dict(**{'a': 1}, b=2) }}", {}),
    ("{{ f(a=1, 2) }}", {}),
    # statements
    ("{% for i in range(3) %}{% if i == 0 %}{% set x = 'a' %}{% endif %}[{{ x }}]{% endfor %}", {}),
    ("{% set x = 1 %}{% for i in range(2) %}{{ x }}{% set x = x + 1 %}{{ x }}{% endfor %}{{ x }}", {}),
    ("{% set ns = namespace(n=0) %}{% for i in [1, 2, 3] %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}", {}),
    ("{% for k, v in d.items() %}{{ loop.index }}{{ k }}={{ v }}{% if not loop.last %},{% endif %}{% endfor %}", {"d": {"b": 1, "a": 2}}),
    ("{% for x in xs if x > 1 %}{{ loop.index0 }}:{{ x }}:{{ loop.length }}{{ loop.previtem }}/{{ loop.nextitem }} {% else %}none{% endfor %}", {"xs": [1, 2, 3]}),
    ("{% for x in [] %}x{% else %}empty{% endfor %}", {}),
    ("{% for x in range(10) %}{% if x == 2 %}{% continue %}{% endif %}{% if x == 5 %}{% break %}{% endif %}{{ x }}{% endfor %}", {}),
    ("{% macro m(a, b='B') %}<{{ a }}{{ b }}>{% endmacro %}{{ m(1) }}{{ m(1, b=2) }}{{ m('x', 'y') }}", {}),
    ("{% macro m() %}{{ y }}{% endmacro %}{% set y = 5 %}{{ m() }}", {}),
    ("{% macro r(n) %}{% if n > 0 %}{{ n }}{{ r(n - 1) }}{% endif %}{% endmacro %}{{ r(3) }}", {}),
    ("{% set block %}  inner {{ 1 + 1 }}  {% endset %}[{{ block }}][{{ block|trim }}]", {}),
    ("{% generation %}gen {{ 1 }}{% endgeneration %}", {}),
    ("{% for a in [1, 2] %}{% for b in [3] %}{{ loop.depth }}{{ a }}{{ b }}{% endfor %}{% endfor %}", {}),
    # filters
    ("{{ [3, 1, 2]|sort }} {{ ['b', 'A', 'a']|sort }} {{ ['b', 'A', 'a']|unique|list }} {{ 'Hello World'|lower }} {{ 'x'|upper }}", {}),
    ("{{ d|tojson }} {{ d|tojson(indent=2) }} {{ 'é'|tojson(ensure_ascii=True) }} {{ d|tojson(sort_keys=true) }}", {"d": {"b": [1, 2.0, None, True], "a": "é\"\n"}}),
    ("{{ xs|map(attribute='n')|join(',') }} {{ xs|selectattr('n', 'equalto', 2)|list }} {{ xs|rejectattr('n', 'none')|list|length }}", {"xs": [{"n": 1}, {"n": 2}, {"n": None}]}),
    ("{{ ['a', 'b']|map('upper')|list }} {{ [1, 2, 3]|select('odd')|list }} {{ [1, 2, 3]|reject('equalto', 2)|list }}", {}),
    ("{{ d|dictsort }} {{ d|items|list }} {{ d|length }} {{ d|list }} {{ d|first }}", {"d": {"b": 1, "A": 2, "a": 3}}),
    ("{{ '  x  '|trim }}|{{ 'xxhixx'|trim('x') }}|{{ x|default('d') }}|{{ ''|default('d', true) }}|{{ none|string }}", {}),
    ("{{ 'a\\nb\\n\\nc'|indent(2) }}|{{ 'a\\nb'|indent(2, true) }}|{{ 3.7|int }}|{{ '42'|int }}|{{ 'x'|int }}|{{ '2.5'|float }}|{{ -3|abs }}|{{ 2.567|round(2) }}", {}),
    ("{{ [1, 2, 3]|sum }} {{ [3, 1]|max }} {{ [3, 1]|min }} {{ [1, 2, 3]|reverse|list }} {{ 'abc'|reverse }} {{ [1, 2, 3]|last }} {{ 'a b  c'|wordcount }}", {}),
    ("{{ '<b>&'|e }} {{ 'x'|safe + '<' }} {{ '<'|safe }} {{ 'hello world'|title }} {{ 'hello'|capitalize }} {{ 'x'|center(5) }}|", {}),
    ("{{ '%s=%s'|format('a', 1) }} {{ [1, 2, 3, 4, 5]|batch(2)|list }} {{ 'ab'|replace('a', 'z') }}", {}),
    # tests
    ("{{ x is defined }} {{ y is undefined }} {{ none is none }} {{ 1 is number }} {{ true is number }} {{ 1 is integer }} {{ 1.0 is float }} {{ 's' is string }} {{ {} is mapping }} {{ [] is iterable }} {{ 's' is sequence }} {{ 3 is odd }} {{ 4 is even }} {{ 6 is divisibleby 3 }} {{ true is boolean }} {{ false is false }} {{ 2 is in [1, 2] }} {{ 1 is eq 1 }}", {"x": 1}),
    # methods
    ("{{ ' a b '.strip() }}|{{ 'xay'.strip('xy') }}|{{ 'a,b,,c'.split(',') }}|{{ ' a  b '.split() }}|{{ 'a b c'.split(' ', 1) }}|{{ 'a b c'.rsplit(' ', 1) }}", {}),
    ("{{ 'Hello'.startswith('He') }} {{ 'Hello'.endswith(('x', 'lo')) }} {{ 'aXa'.replace('a', 'b') }} {{ 'abc'.find('c') }} {{ 'ÄbC'.upper() }} {{ 'ÄbC'.lower() }} {{ 'hello world'.title() }} {{ 'x\\ny'.splitlines() }}", {}),
    ("{{ [1, 2, 2].count(2) }} {{ [1, 2].index(2) }} {{ d.keys()|list }} {{ d.values()|list }} {{ ', '.join(['a', 'b']) }}", {"d": {"a": 1, "b": 2}}),
    ("{{ strftime_now('%Y-%m-%d %H:%M %b %A') }}", {}),
    # filters that return generators: true when empty, no len(), not JSON, consumed once,
    # their bodies run (and raise) only as they are consumed
    ("{% if x|select('gt', 5) %}t{% else %}f{% endif %} {{ x|select('gt', 5)|list }} {{ (x|select('odd')) is iterable }} {{ (x|map('string')) is sequence }}", {"x": [1, 2, 3]}),
    ("{% set g = x|selectattr('r', 'eq', 'u') %}{% for m in g %}{{ m.c }}{% endfor %}|{% for m in g %}{{ m.c }}{% endfor %}|{{ g|list }}", {"x": [{"r": "u", "c": "a"}, {"r": "s", "c": "b"}, {"r": "u", "c": "c"}]}),
    ("{% set g = x|map('upper') %}{{ g|first }} {{ g|list }} {{ g|list }}", {"x": ["a", "b", "c"]}),
    ("{% set g = x|reject('none') %}{{ 2 in g }} {{ g|list }}", {"x": [1, 2, None, 3]}),
    ("{% set g = x|map('no_such_filter') %}unused: fine", {"x": [1]}),
    ("{% set g = x|map(attribute='a', default='d') %}{{ g|join(',') }} {{ x|map(attribute='a')|list }}", {"x": [{"a": 1}, {}]}),
    ("{{ x|unique|list }} {{ x|batch(2)|list }} {{ x|batch(2, 0)|list }} {{ d|items|list }} {{ x|reverse|list }} {{ x|map('abs')|reverse }} {{ x|select|sum }}", {"x": [3, 1, 3, -2, 5], "d": {"a": 1}}),
    ("{{ x|map('string')|length }}", {"x": [1]}),
    ("{{ x|select|tojson }}", {"x": [1]}),
    ("{{ x|select|last }}", {"x": [1]}),
    ("{{ (x|map|string)[:29] }}", {"x": [1]}),
    ("{{ x|items|list }}", {"x": [1]}),
    ("{% set it = x|items %}ok", {"x": [1]}),
    ("{{ (x|select)[0] is undefined }} {{ none|map('upper')|list }} {{ y|items|list }}", {"x": [1]}),
    # macros: varargs (a tuple), kwargs, their attributes, keywords given twice
    ("{% macro f(a, b=2) %}{{ a }}-{{ b }}-{{ varargs }}-{{ kwargs }}{% endmacro %}{{ f(1) }}|{{ f(1, 3, 4, 5) }}|{{ f(1, x=1, y='z') }}|{{ f(1, 2, 3, k=4) }}|{{ f(b=5, a=0) }}|{{ f(1, a=9) }}|{{ f.name }} {{ f.arguments }} {{ f.catch_kwargs }} {{ f.catch_varargs }} {{ f.caller }}", {}),
    ("{% macro g(a) %}{{ a }}{% endmacro %}{{ g.arguments }} {{ g.catch_varargs }} {{ g(1, a=2) }}", {}),
    ("{% macro g(a) %}{{ a }}{% endmacro %}{{ g(1, 2, b=3) }}", {}),
    ("{% macro g(a) %}{{ a }}{% endmacro %}{{ g(1, 2) }}", {}),
    ("{% macro h() %}{{ varargs|length }}:{% for x in varargs %}{{ x }}{% endfor %}:{{ kwargs|dictsort }}{% endmacro %}{{ h(*[1, 2], **{'z': 1, 'a': 2}) }}", {}),
    # indexing and slicing by characters (ASCII and not), without splitting the string
    ("{{ s[0] }}{{ s[-1] }}{{ s[2:5] }}|{{ s[-3:] }}|{{ s[:-4] }}|{{ s[5:2] }}|{{ s[::2] }}|{{ s[::-1] }}|{{ a[3:7] }}{{ a[-2] }}|{{ s[100:] }}|", {"s": "añ日本語テキスト🙂x", "a": "plain ascii text"}),
    # strftime_now with a long format, and a NUL in it
    ("{{ strftime_now('%Y-%m-%d ' * 40)|length }} {{ strftime_now('%B%A' * 30)|length }}", {}),
    # d['name'] without such a key is the dict's method (Jinja2's getitem falls back)
    ("{{ d['items'] is callable }} {{ d['keys']()|list }} {{ d['get']('a') }} {{ d['zzz'] is defined }}", {"d": {"a": 1}}),
    # indent splits lines as str.splitlines (\r\n, \r, U+2028 end lines too)
    ("{{ s|indent(2) }}|{{ s|indent(2, true, true) }}|{{ ''|indent }}|{{ 'x\n'|indent(first=true) }}", {"s": "a\r\nb\rc\u2028d\n\n  \ne"}),
    # round as Python's round (half to even, ints stay ints), ceil and floor
    ("{{ 2.5|round }} {{ 3.5|round }} {{ 2.675|round(2) }} {{ -0.5|round }} {{ 42.55|round(1, 'floor') }} {{ 42.51|round(1, 'ceil') }} {{ 7|round }} {{ 1250|round(-2) }} {{ 1350|round(-2) }} {{ 1234.5|round(-2) }} {{ 1e300|round(2) }}", {}),
    ("{{ 1.5|round(0, 'nearest') }}", {}),
    # slice, filesizeformat, urlencode, xmlattr; the escaped, filter and test tests
    ("{{ x|slice(3)|list }} {{ x|slice(3, 0)|list }} {{ []|slice(2)|list }} {{ 1|filesizeformat }} {{ 999|filesizeformat }} {{ 1500|filesizeformat }} {{ 3000000|filesizeformat(true) }} {{ 1e30|filesizeformat }}", {"x": [1, 2, 3, 4, 5, 6, 7]}),
    ("{{ 'a b/c?d=é&'|urlencode }} {{ {'k': 'v w', 'n': 1}|urlencode }} {{ [('a', 'b&c')]|urlencode }} {{ {'class': 'a<b', 'none': none, 'id': 3}|xmlattr }}|{{ {'x': '1'}|xmlattr(false) }}", {}),
    ("{{ 'x'|safe is escaped }} {{ 'x' is escaped }} {{ 'upper' is filter }} {{ 'nope' is filter }} {{ 'odd' is test }} {{ 'nope' is test }}", {}),
    # the sandbox's range: at most MAX_RANGE (100 000) items
    ("{{ range(100000)|length }} {{ range(0, 300000, 3)|length }} {{ range(5, -99990, -1)|length }}", {}),
    ("{{ range(100001)|length }}", {}),
    # errors
    ("{{ raise_exception('refused: ' ~ 1) }}", {}),
    ("{{ x.y }}", {}),
    ("{{ 'a' + 1 }}", {}),
    ("{{ 1 / 0 }}", {}),
    ("{{ messages.append(1) }}", {"messages": []}),
    ("{% for x in 1 %}{% endfor %}", {}),
    ("{{ none|length }}", {}),
    ("{{ x|tojson }}", {}),
    ("{{ 'a' < 1 }}", {}),
    ("{% if %}", {}),
    ("{{ 1 + }}", {}),
    ("{% for x in y %}no end", {}),
    ("{% endfor %}", {}),
    ("{{ x|no_such_filter }}", {"x": 1}),
    ("{% if false %}{{ x|no_such_filter }}{% endif %}ok", {}),
    ("{% unknowntag %}", {}),
]

# str.format specs (Python's format-spec mini-language), one value and one spec a case so
# that each error is its own: strings, ints (negative, beyond 64 bits, bool), floats.
FORMAT_SPECS = ["", ">10", "<10", "^10", "*^9", "日>5", "05", "010", "+", " ", "-", ",", "_",
                "010,", "08,", "x", "#x", "X", "#X", "o", "#o", "b", "#b", "_b", "_x", ",x",
                "c", "d", ".3", ".2f", "08.3f", "e", ".3e", "E", "g", ".3g", "#g", "G", "%",
                ".1%", "n", "z.1f", "+.2f", "=10", "s", ".2s", "10.3s", ".0", ".0f", "#.0f",
                ".12g", ".1", "3.5", "x<+08.2f", "=+8", "^+9,", ".2F", "#.3", ".3x", "zd",
                "ab", ".", ",_"]
FORMAT_VALUES = ["'ab'", "'héllo'", "42", "-42", "0", "1234567", "2 ** 70", "true", "3.14159",
                 "-2.5", "1e20", "1234.5", "-0.0", "100.0", "1e-05", "none", "[1]"]
CASES += [("{{ '{:%s}'.format(%s) }}" % (spec, v), {}) for spec in FORMAT_SPECS for v in FORMAT_VALUES]
CASES += [(t, {"x": {"k": "v", "n": [1, 2]}, "w": 6}) for t in [
    "{{ '{0}{1}{0}'.format('a', 'b') }}", "{{ '{a}-{b}'.format(a=1, b='x') }}",
    "{{ '{0.k}|{0[k]}|{0[n][1]}|{0.n[0]}'.format(x) }}", "{{ '{!r}|{!s}|{0!r:>8}'.format('q') }}",
    "{{ '{:{w}}|{:{f}^{w}}|{:>{w}.{p}f}'.format('a', 'b', 3.14159, w=w, f='-', p=2) }}",
    "{{ '{{}}{{x}}'.format() }}", "{{ '{'.format(1) }}", "{{ '}'.format(1) }}",
    "{{ '{0}{}'.format(1, 2) }}", "{{ '{}{0}'.format(1, 2) }}", "{{ '{5}'.format(1) }}",
    "{{ '{missing}'.format(a=1) }}", "{{ '{!x}'.format(1) }}", "{{ '{0.nope}|'.format(x) }}",
    "{{ '{0!r}'.format([1, 'a']) }}",
    "{{ '{0[0]}'.format('xyz') }}", "{{ '{:,}'.format(12345678901234567890123) }}",
    "{{ '%5s|%-5s|'|format('a', 'b') }}",
    "{{ '%(a)s-%(b)05d'|format(a='x', b=42) }} {{ '%s'|format([1, 2]) }} {{ '%s' % [1, 2] }}",
    "{{ '%s'|format(1, b=2) }}", "{{ '%(a)s' % {'a': 1} }} {{ '%(z)s' % {'a': 1} }}",
]]

# Jinja2's builtins, one by one (jinja2.filters.FILTERS, jinja2.tests.TESTS): the ones no
# other case reaches. (lipsum is refused: see docs/decisions.md 75.)
PEOPLE = [{"name": "Ann", "city": "Paris"}, {"name": "bob", "city": "paris"},
          {"name": "Cy", "city": "Oslo"}, {"name": "Di"}]
LONG = ("The quick brown fox jumps over the lazy dog; a well-known pangram, and "
        "self-referential sentences are fun to wrap — multi-hyphenated-word-chains too.")
CASES += [
    ("{{ [1, 2, 3]|select('==', 2)|list }} {{ [1, 2, 3]|reject('<', 2)|list }} "
     "{{ [1, 2, 3]|select('>=', 2)|list }} {{ [1, 2, 3]|select('!=', 2)|list }} "
     "{{ [1, 2, 3]|select('<=', 2)|list }} {{ [1, 2, 3]|select('>', 2)|list }} "
     "{{ [1, 2, 3]|select('in', [1, 3])|list }} {{ 1 is eq 1 }} {{ 2 is gt 1 }}", {}),
    ("{% for city, items in people|groupby('city') %}{{ city }}:{{ items|map(attribute='name')|join(',') }};{% endfor %}", {"people": PEOPLE}),
    ("{% for g in people|groupby('city', default='NY') %}{{ g.grouper }}={{ g.list|length }} {{ g }};{% endfor %}", {"people": PEOPLE}),
    ("{% for g in people|groupby('city', case_sensitive=true, default='NY') %}{{ g.grouper }}={{ g.list|length }};{% endfor %}", {"people": PEOPLE}),
    ("{{ people|groupby('name')|list|length }} {{ [3, 1, 3]|groupby(0) }}", {"people": PEOPLE}),
    ("{{ [[3], [1], [3]]|groupby(0)|list }}", {}),
    ("{{ s|wordwrap }}|{{ s|wordwrap(20) }}|{{ s|wordwrap(12, wrapstring='<br>') }}", {"s": LONG}),
    ("{{ s|wordwrap(7, break_long_words=false) }}|{{ s|wordwrap(10, break_on_hyphens=false) }}", {"s": LONG}),
    ("{{ 'a  b\tc\n\nd e'|wordwrap(3) }}|{{ ''|wordwrap(5) }}|{{ ''|wordwrap(0) }}", {}),
    ("{{ 'x'|wordwrap(0) }}", {}),
    ("{{ 'aaaa-bbbb-cccc dd---ee x--y'|wordwrap(6) }}|{{ 'ünïcödé wörds här'|wordwrap(6) }}", {}),
    ("{{ 'Visit www.example.com, or (http://a.org/x?y=1). Mail me@ex.com or mailto:a@b.io! <b>x</b>'|urlize }}", {}),
    ("{{ 'https://example.com/very/long/path/here and example.com and foo.net. x@y'|urlize(10, true, target='_blank') }}", {}),
    ("{{ 'see (www.x.com) &lt;https://y.org&gt; [https://[::1]:8080/] tel:+1 ftp://f.io'|urlize(rel='me x', extra_schemes=['tel:', 'ftp://']) }}", {}),
    ("{{ 'x'|urlize(extra_schemes=['t']) }}", {}),
    ("{{ {'b': 1, 'a': [1, 2]}|pprint }}|{{ q|pprint }}|{{ none|pprint }}|{{ (1,)|pprint }}", {"q": "it's"}),
    ("{{ x|pprint }}", {"x": {"messages": [{"role": "user", "content": LONG}, {"role": "assistant", "content": "ok", "tool_calls": [{"name": "f", "arguments": {"z": 1, "a": [1, 2, 3] * 10}}]}]}}),
    ("{{ s|pprint }}|{{ [s, s]|pprint }}|{{ (s,)|pprint }}", {"s": LONG + "\n" + LONG}),
    ("{{ [7]|random }} {{ 'x'|random }} {{ ([1, 2]|random) in [1, 2] }} {{ []|random }}|{{ ''|random }}", {}),
    ("{{ 5|random }}", {}),
]

# Whole requests (JSON text read as json.loads reads it), rendered as render_template.py
# renders a line: numbers with Python's semantics, tool-call arguments parsed.
NUMBERS = ("{% for m in messages %}{% for c in m.tool_calls or [] %}"
           "{{ c.function.arguments | tojson }}|{% for k, v in c.function.arguments.items() %}"
           "{{ k }}={{ v }} {{ v is number }} {{ v is integer }} {{ v is float }} {{ [v] }} "
           "{{ v == v }} {{ v > 0 }};{% endfor %}{% endfor %}{% endfor %}")
ARGS = ('{"a": NaN, "b": Infinity, "c": -Infinity, "d": 123456789012345678901234567890, '
        '"e": -9223372036854775809, "f": 18446744073709551615, "g": 1e400, "h": -0.0, '
        '"i": 1E2, "j": 9223372036854775807, "k": -1e-400, "l": 0.1, "m": 1e16, "n": 12345678901234567890123.5}')


def call_request(arguments, direct=False):
    fn = {"name": "f", "arguments": arguments if direct else json.dumps(arguments)}
    return ('{"messages": [{"role": "assistant", "tool_calls": [{"type": "function", "function": '
            + (json.dumps(fn) if not direct else '{"name": "f", "arguments": ' + arguments + '}')
            + '}]}]}')


REQUESTS = [
    (NUMBERS, call_request(ARGS, direct=True)),
    (NUMBERS, '{"messages": [{"role": "assistant", "tool_calls": [{"type": "function", "function": '
              '{"name": "f", "arguments": ' + json.dumps(ARGS) + '}}]}]}'),
    # arithmetic and comparison beyond 64 bits, exact as Python's ints
    ("{% set a = x.a %}{{ a + 1 }} {{ a - a }} {{ a * a }} {{ a // 7 }} {{ a % 7 }} {{ -a }} {{ a|abs }} "
     "{{ a > 1e300 }} {{ a == 123456789012345678901234567890.0 }} {{ a|float }} {{ a|int }} {{ a|string }} "
     "{{ 2 ** 100 }} {{ 9223372036854775807 + 1 }} {{ -9223372036854775807 - 2 }} {{ 99999999999999999999 }} "
     "{{ [a, 1, 2.5]|max }} {{ [a, 1]|sort }} {{ '%d'|format(3) }} {{ 1e300|int }}",
     '{"messages": [], "chat_template_kwargs": {"x": {"a": 123456789012345678901234567890}}}'),
    ("{{ x|tojson }} {{ x }} {{ x|float }} {{ x is number }}",
     '{"messages": [], "chat_template_kwargs": {"x": [NaN, Infinity, -Infinity, -0.0, 1e-7, 5e-324]}}'),
    ("{{ x }}", '{"messages": [], "chat_template_kwargs": {"x": -NaN}}'),
    ("{{ x }}", '{"messages": [], "chat_template_kwargs": {"x": nan}}'),
    ("{{ x }}", '{"messages": [], "chat_template_kwargs": {"x": [1NaN]}}'),
    ("{{ x|length }}", '{"messages": [], "chat_template_kwargs": {"x": ' + "9" * 4301 + '}}'),
    ("{{ x|string|length }}", '{"messages": [], "chat_template_kwargs": {"x": ' + "9" * 4300 + '}}'),
    # a repeated key keeps its first place and takes its last value (small dicts and indexed
    # large ones)
    ("{{ x }} {{ y|length }} {{ y.k7 }} {{ (y|list)[:3] }} {{ y.k39 }}",
     '{"messages": [], "chat_template_kwargs": {"x": {"a": 1, "b": 2, "a": 3}, "y": {'
     + ", ".join(f'"k{i % 40}": {i}' for i in range(100)) + '}}}'),
    # json.loads refuses the arguments (ValueError): they stay the string they are
    ("{{ messages[0].tool_calls[0].function.arguments|length }}",
     '{"messages": [{"role": "assistant", "tool_calls": [{"type": "function", "function": '
     '{"name": "f", "arguments": ' + json.dumps('{"x": ' + "1" * 4301 + '}') + '}}]}]}'),
]


def main():
    env = make_environment()
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        for source, variables in CASES:
            case = {"template": source, "variables": variables}
            try:
                case["text"] = env.from_string(source).render(**variables)
            except Exception as e:  # noqa: BLE001 - every failure is a case
                case["error"] = error_of(e)[0]
            out.write(json.dumps(case, ensure_ascii=False) + "\n")
        for source, request in REQUESTS:
            case = {"template": source, "request": request}
            try:
                case["text"] = render_line(env.from_string(source), request, {})
            except json.JSONDecodeError:  # not JSON to Python: ocml's input error
                case["error"] = "E-JSON-INPUT"
            except Exception as e:  # noqa: BLE001 - every failure is a case
                case["error"] = error_of(e)[0]
            out.write(json.dumps(case, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
